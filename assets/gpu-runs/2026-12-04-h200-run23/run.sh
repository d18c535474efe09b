#!/bin/bash
# Device call run23 (session 7), right after run22 on the same warm machine: (1) every rung at batch 128 in the
# default mode loading from run22's executable cache, if /tmp still holds it; (2) cold first calls of 12@512
# (empty autotune cache, empty executable cache): XLA's defaults, then --xla_gpu_autotune_level=2 with
# --xla_gpu_force_compilation_parallelism=16, then the same in fast-start mode.
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w23; mkdir -p $W
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { for f in $W/*/ladder.log; do gzip -f $f; done; tar czf $OUT/run23.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ); run22's executable cache: $(ls /tmp/trainopt-exe22 2>/dev/null | wc -l) files"
if [ -d /tmp/trainopt-exe22 ]; then
  mkdir -p $W/default-hit
  TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe22 \
    timeout 200 gpu/trainopt ladder -steps all -batches 128 -timed 20 -warmup 3 -out $W/default-hit > $W/default-hit/ladder.log 2>&1
  log "default-hit rc=$? $(grep -o 'step [0-9a-z@]*: first call [0-9.]*s\|ladder: executable cache.*' $W/default-hit/ladder.log | sed 's/step //; s/first call //' | tr '\n' ';')"
fi
cold() { # name, fast-start, extra XLA flags
  mkdir -p $W/$1; rm -rf /tmp/cold-$1; mkdir -p /tmp/cold-$1
  XLA_FLAGS="$XLA_FLAGS $3" TRAINOPT_FAST_START=$2 TRAINOPT_AUTOTUNE_CACHE=/tmp/cold-$1/xla-autotune.pb \
    TRAINOPT_EXECUTABLE_CACHE=/tmp/cold-$1/exe timeout $((585 - SECONDS)) gpu/trainopt ladder -steps 12 -batches 512 \
    -timed 30 -warmup 3 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$? $(grep -h 'first call\|samples/s, step' $W/$1/ladder.log | sed 's/^ *//' | tr '\n' ';')"
}
cold cold-default off ""
cold cold-l2p16 off "--xla_gpu_autotune_level=2 --xla_gpu_force_compilation_parallelism=16"
cold cold-l2p16-fast on "--xla_gpu_autotune_level=2 --xla_gpu_force_compilation_parallelism=16"
