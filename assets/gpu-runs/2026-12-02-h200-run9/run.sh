#!/bin/bash
# Device call 4: the max-batch prediction of step 10 checked against the real boundary, with the allocator capped
# to one preallocated arena (memory_fraction=0.15 of the H200).
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
W=/tmp/w; mkdir -p $W/profiles /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/ && ls -la /tmp/trainopt-cache > $W/rc.txt
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run9.tgz -C $W .; }
trap finish EXIT
echo "start $(date -u +%FT%TZ)" >> $W/rc.txt
GOMLX_BACKEND="$GOMLX_BACKEND,preallocate=true,memory_fraction=0.15" timeout 480 gpu/trainopt memory -step 10 -batches 256,512 -out $W/profiles > $W/profiles/memory.log 2>&1
echo "memory rc=$? at ${SECONDS}s" >> $W/rc.txt
