#!/bin/bash
# Device call run49 (session 14): issue 15 target 3 with the new fast start (TRAINOPT_FAST_START=on: the depthwise
# convolutions by the Triton kernels, adopted after run48). As run22 did for conv fusion: every rung at batch 128 in
# three ladder processes sharing one executable cache - fast start filling it, fast start loading from it (each
# rung's warm first call as a notebook cell sees it), then the default mode filling it (the step each rung has
# without fast start, in the same call). Then, with empty autotune and executable caches, a cold first call of
# 12@512 in fast-start mode, with XLA's default autotuning and with run23's two flags.
# run48's autotune cache (run26's plus the Triton-formulation programs it autotuned).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-580}
W=/tmp/w49; mkdir -p $W /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/ 2>/dev/null ||
  cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe49
finish() { for f in $W/*/ladder.log; do gzip -f $f; done; tar czf $OUT/run49.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
one() { # name, fast start, cap s, ladder args...
  local name=$1 fast=$2 cap=$3; shift 3
  local left=$(( LIMIT - SECONDS )); [ $left -lt 30 ] && { log "$name skipped (time)"; return; }
  mkdir -p $W/$name
  TRAINOPT_FAST_START=$fast timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder "$@" -out $W/$name > $W/$name/ladder.log 2>&1
  log "$name rc=$? $(grep -o 'step [0-9a-z@]*: first call [0-9.]*s\|step [0-9a-z@]*: [0-9]* samples/s' $W/$name/ladder.log | sed 's/step //' | tr '\n' ';')"
}
log "start $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
ALL="-steps all -batches 128 -warmup 5 -timed 40"
one fast-fill on 200 $ALL
one fast-hit on 120 $ALL
one default-fill off 200 $ALL
# Cold: nothing autotuned, nothing cached.
export TRAINOPT_EXECUTABLE_CACHE=off
TRAINOPT_AUTOTUNE_CACHE=/tmp/cold1.pb one cold-512 on 150 -steps 12 -batches 512 -warmup 5 -timed 30
XLA_FLAGS="$XLA_FLAGS --xla_gpu_autotune_level=2 --xla_gpu_force_compilation_parallelism=16" TRAINOPT_AUTOTUNE_CACHE=/tmp/cold2.pb \
  one cold-512-flags on 150 -steps 12 -batches 512 -warmup 5 -timed 30
