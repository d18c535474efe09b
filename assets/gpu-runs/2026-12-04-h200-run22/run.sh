#!/bin/bash
# Device call run22 (session 7): every rung of the ladder at batch 128, three processes sharing one executable
# cache directory: fast-start mode filling it, fast-start mode loading from it, then the default mode filling
# it (its first calls are the warm-autotune, no-executable-cache figures). Autotune cache: run21's. The
# executable cache comes back (exe.tgz) for the next call's default-mode hit run.
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w22; mkdir -p $W /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
export TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe22
rm -rf /tmp/trainopt-exe22
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { ls -la /tmp/trainopt-exe22 > $W/exe-cache-ls.txt 2>&1; cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null
  for f in $W/*/ladder.log; do gzip -f $f; done; tar czf $OUT/run22.tgz -C $W .; tar czf $OUT/exe.tgz -C /tmp trainopt-exe22; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
one() { # name, fast-start, timeout
  mkdir -p $W/$1
  TRAINOPT_FAST_START=$2 timeout $3 gpu/trainopt ladder -steps all -batches 128 -timed 20 -warmup 3 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$? $(grep -o 'step [0-9a-z@]*: first call [0-9.]*s\|ladder: executable cache.*' $W/$1/ladder.log | sed 's/step //; s/first call //' | tr '\n' ';')"
}
log "start $(date -u +%FT%TZ)"
one fast-fill on 300
one fast-hit on $((560 - SECONDS - 120))
one default-fill off $((575 - SECONDS))
