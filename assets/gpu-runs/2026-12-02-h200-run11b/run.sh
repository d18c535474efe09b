#!/bin/bash
# Device call run11b (session 3): the whole Go ladder, steps 1-13 at batches 128 and 512, in one process, with the
# autotune cache of run10 (warm for steps 8-11; steps 1-7 and 12-13 autotune) kernel cache off (it crashed run11 in step 2).
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
W=/tmp/w; mkdir -p $W/ladder /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; ls -la /tmp/trainopt-cache >> $W/rc.txt; tar czf $OUT/run11b.tgz -C $W .; }
trap finish EXIT
echo "start $(date -u +%FT%TZ)" >> $W/rc.txt
timeout 570 gpu/trainopt ladder -steps all -batches 128,512 -warmup 5 -timed 50 -out $W/ladder > $W/ladder/ladder.log 2>&1
echo "ladder rc=$? at ${SECONDS}s" >> $W/rc.txt
