#!/bin/bash
# Device call run12 (session 3): Go beside PyTorch in one call. Go steps 10-13 at batch 256 and steps 12, 13 at 128
# and 512 (autotune cache of run11b), a profile of step 13 at 512, then PyTorch's step 10 at 128, 256, 512.
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
W=/tmp/w; mkdir -p $W/go256 $W/go $W/profiles $W/torch /tmp/trainopt-cache
cp gpu/cache/* /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; ls -la /tmp/trainopt-cache >> $W/rc.txt; tar czf $OUT/run12.tgz -C $W .; }
trap finish EXIT
echo "start $(date -u +%FT%TZ)" >> $W/rc.txt
timeout 130 gpu/trainopt ladder -steps 10,11,12,13 -batches 256 -timed 60 -out $W/go256 > $W/go256/ladder.log 2>&1
echo "go256 rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout 110 gpu/trainopt ladder -steps 12,13 -batches 128,512 -timed 60 -out $W/go > $W/go/ladder.log 2>&1
echo "go rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout 50 gpu/trainopt profile -step 13@512 -batches 512 -capture 10 -out $W/profiles > $W/profiles/profile.log 2>&1
echo "profile rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout $((590 - SECONDS)) python3 -u gpu/torch_ladder.py --only 10 --step10-batches 128,256,512 --cudnn-benchmark > $W/torch/torch.jsonl 2> $W/torch/torch.err
echo "torch rc=$? at ${SECONDS}s" >> $W/rc.txt
