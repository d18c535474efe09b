#!/bin/bash
# Device call run50 (session 14): run49 landed on an H100 (the pool gives H100 or H200), where run48's H200
# autotune cache is foreign. This call repeats its two fast-start processes over every rung at batch 128 (filling
# and loading the executable cache) and puts a cold first call of 12@512 in fast-start mode beside one in the
# default mode, on whichever card comes; the autotune caches come back this time.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-420}
W=/tmp/w50; mkdir -p $W /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe50
finish() { for f in $W/*/ladder.log; do gzip -f $f; done; cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null
  cp /tmp/cold-fast.pb /tmp/cold-default.pb $W/ 2>/dev/null; tar czf $OUT/run50.tgz -C $W .; }
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
one fast-hit on 90 $ALL
export TRAINOPT_EXECUTABLE_CACHE=off # cold: nothing autotuned, nothing cached
TRAINOPT_AUTOTUNE_CACHE=/tmp/cold-fast.pb one cold-512-fast on 90 -steps 12 -batches 512 -warmup 5 -timed 30
TRAINOPT_AUTOTUNE_CACHE=/tmp/cold-default.pb one cold-512-default off 150 -steps 12 -batches 512 -warmup 5 -timed 30
