#!/bin/bash
# Device call run21 (session 7): the executable cache (tutorial/backend/executables*.go) on the H200. Pairs of
# processes with one executable cache directory: the first compiles and stores, the second should load. Each
# pair in the default mode and in fast-start mode (TRAINOPT_FAST_START=on: conv fusion, cuDNN plans built at
# compile time), step 12 at 128 then 512. Autotune cache: run11b's, copied (each process may add to it).
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w21; mkdir -p $W /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
export TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { ls -la /tmp/trainopt-exe > $W/exe-cache-ls.txt 2>&1; cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null
  for f in $W/*/ladder.log; do gzip -f $f; done; tar czf $OUT/run21.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
one() { # name, fast-start, batch
  mkdir -p $W/$1
  TRAINOPT_FAST_START=$2 timeout $((590 - SECONDS)) gpu/trainopt ladder -steps 12 -batches $3 -timed 40 -warmup 5 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$? $(grep -h 'backend:\|first call\|samples/s, step\|executable cache:' $W/$1/ladder.log | sed 's/^ *//' | grep -o 'executable cache [^;]*\|first call[^;]*\|[0-9]* samples/s[^,]*\|ladder: executable cache.*' | tr '\n' ';')"
}
log "start $(date -u +%FT%TZ)"
one d128a off 128
one d128b off 128
one f128a on 128
one f128b on 128
one f512a on 512
one f512b on 512
one d512a off 512
one d512b off 512
