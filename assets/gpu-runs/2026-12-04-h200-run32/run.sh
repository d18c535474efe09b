#!/bin/bash
# Device call run32 (session 9): the batch-freeing fix (train.Loop frees each batch's device buffers after its
# step). run29's main job showed rung 6 peaking at 5.00 GB against a 3.53 GB plan, and 12@512 after it at 15.39 GB
# against 14.15 GB in a process of its own (run30). Here rungs 6 and 12@512 in one process with the fix.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w32; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run32.tgz -C $W .; }
trap finish EXIT
timeout 150 /tmp/trainopt ladder -steps 6,12@512 -out $W/go > $W/go/ladder.log 2>&1
echo "rc=$?" > $W/rc.txt
grep -E "^\| (6|12@512) " $W/go/ladder.log | cut -d'|' -f2,5,13 | tee -a $W/rc.txt
