#!/bin/bash
# Device call 1: Go step 10 at 128/256/512 with a cold autotune cache (which it fills), then PyTorch step 10 at the
# same batches, in the same call.
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
mkdir -p $OUT/go $OUT/torch
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
date -u +%FT%TZ > $OUT/start.txt
timeout 285 gpu/trainopt ladder -steps 10 -batches 128,256,512 -timed 60 -out $OUT/go > $OUT/go/ladder.log 2>&1
rc=$?; echo "go rc=$rc at ${SECONDS}s" >> $OUT/rc.txt
if [ $rc -ne 0 ] && [ $SECONDS -lt 90 ]; then   # the autotune flags refused? run once without them
  mv $OUT/go/ladder.log $OUT/go/ladder-failed.log
  TRAINOPT_AUTOTUNE_CACHE=off timeout $((300 - SECONDS)) gpu/trainopt ladder -steps 10 -batches 128,256,512 -timed 60 -out $OUT/go > $OUT/go/ladder.log 2>&1
  echo "go (no cache) rc=$? at ${SECONDS}s" >> $OUT/rc.txt
fi
ls -la /tmp/trainopt-cache >> $OUT/rc.txt 2>&1
cp /tmp/trainopt-cache/xla-autotune.pb $OUT/go/ 2>/dev/null
date -u +%FT%TZ >> $OUT/start.txt
timeout $((590 - SECONDS)) python3 -u gpu/torch_ladder.py --only 10 --step10-batches 128,256,512 --cudnn-benchmark > $OUT/torch/torch.jsonl 2> $OUT/torch/torch.err
echo "torch rc=$? at ${SECONDS}s" >> $OUT/rc.txt
