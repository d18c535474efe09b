#!/bin/bash
# Device call run57 (session 17): fast-start mode now runs the row kernels with batch norm's prologue
# (mobilenet.FastestDepthwise). As run50 did for the gather kernels: every rung at batch 128 twice, "fill" compiling
# into an empty executable cache, "hit" loading it — the warm first call a notebook cell sees — then a cold first
# call of 12@512 (empty autotune and executable caches) in fast start.
RUN=57 LIMIT=${LIMIT:-400}
. "$(dirname "$0")/../lib.sh"
export TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe57
one() { # name, fast start, cap s, ladder args...
  local name=$1 fast=$2 cap=$3; shift 3
  local left=$(( LIMIT - SECONDS )); [ $left -lt 30 ] && { log "$name skipped (time)"; return; }
  mkdir -p $W/go/$name
  TRAINOPT_FAST_START=$fast timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder "$@" -out $W/go/$name > $W/go/$name.log 2>&1
  log "$name rc=$? $(grep -o 'step [0-9a-z@]*: first call [0-9.]*s\|step [0-9a-z@]*: [0-9]* samples/s' $W/go/$name.log | sed 's/step //' | tr '\n' ';')"
}
ALL="-steps all -batches 128 -warmup 5 -timed 40"
one fast-fill on 220 $ALL
one fast-hit on 90 $ALL
TRAINOPT_EXECUTABLE_CACHE=off TRAINOPT_AUTOTUNE_CACHE=/tmp/cold57.pb one cold-512-fast on 90 -steps 12 -batches 512 -warmup 5 -timed 30
