#!/bin/bash
# Device call run79 (session 31): issue 15's target 3 re-measured on the current fast start (run66 measured it
# before the projection prologue and session 30's tiles changed the step's program): every rung at batch 128,
# "fill" compiling into an empty executable cache, "hit" loading it — the warm first call a notebook cell sees —
# then a cold first call of 12@512 (empty autotune and executable caches). Same commands as run66.
RUN=79 LIMIT=${LIMIT:-500}
. "$(dirname "$0")/../lib.sh"
export TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe79
ALL="-steps all -batches 128 -warmup 5 -timed 40"
one fast-fill on 220 $ALL
one fast-hit on 90 $ALL
TRAINOPT_EXECUTABLE_CACHE=off TRAINOPT_AUTOTUNE_CACHE=/tmp/cold79.pb one cold-512-fast on 120 -steps 12 -batches 512 -warmup 5 -timed 30
log "end"
