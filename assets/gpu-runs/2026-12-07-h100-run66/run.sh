#!/bin/bash
# Device call run66 (prepared in session 26): issue 15's target 3 with fast start on the row loops of run63's pick
# (mobilenet.FastestDepthwise since session 25; run64's try was cut by the call's time). As run57: every rung at
# batch 128 twice, "fill" compiling into an empty executable cache, "hit" loading it (the warm first call a
# notebook cell sees: target median ≤ 8 s), then a cold first call of 12@512 in fast start (target ≤ 60 s).
RUN=66 LIMIT=${LIMIT:-420}
. "$(dirname "$0")/../lib.sh"
export TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe66
ALL="-steps all -batches 128 -warmup 5 -timed 40"
one fast-fill on 220 $ALL
one fast-hit on 90 $ALL
TRAINOPT_EXECUTABLE_CACHE=off TRAINOPT_AUTOTUNE_CACHE=/tmp/cold66.pb one cold-512-fast on 90 -steps 12 -batches 512 -warmup 5 -timed 30
log "end"
