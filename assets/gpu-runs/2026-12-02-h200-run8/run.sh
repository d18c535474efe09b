#!/bin/bash
# Device call 3: a profile of the best step (10@512), the max-batch prediction checked against the allocator's
# real boundary (allocator capped with memory_fraction), and ladder steps 9@128 and 8.
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
W=/tmp/w; mkdir -p $W/profiles $W/ladder9 $W/ladder8 /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/ && ls -la /tmp/trainopt-cache > $W/rc.txt
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run8.tgz -C $W .; }
trap finish EXIT
echo "start $(date -u +%FT%TZ)" >> $W/rc.txt
timeout 100 gpu/trainopt profile -step 10@512 -batches 512 -capture 10 -out $W/profiles > $W/profiles/profile.log 2>&1
echo "profile rc=$? at ${SECONDS}s" >> $W/rc.txt
GOMLX_BACKEND="$GOMLX_BACKEND,memory_fraction=0.06" timeout 330 gpu/trainopt memory -step 10 -batches 128,256 -out $W/profiles > $W/profiles/memory.log 2>&1
echo "memory rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout 60 gpu/trainopt ladder -steps 9 -batches 128 -timed 60 -out $W/ladder9 > $W/ladder9/ladder.log 2>&1
echo "ladder 9 rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout $((585 - SECONDS)) gpu/trainopt ladder -steps 8 -timed 60 -out $W/ladder8 > $W/ladder8/ladder.log 2>&1
echo "ladder 8 rc=$? at ${SECONDS}s" >> $W/rc.txt
