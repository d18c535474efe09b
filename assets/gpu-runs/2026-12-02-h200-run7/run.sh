#!/bin/bash
# Device call 2: Go step 10 at 128/256 with the autotune cache of call 1 (first call after), Go 10@512 (cold),
# then PyTorch step 10 at 256 and 512 in the same call. Everything goes into one tarball (few files come back).
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
W=/tmp/w; mkdir -p $W/go-warm $W/go-512 $W/torch /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/ && ls -la /tmp/trainopt-cache > $W/rc.txt
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run7.tgz -C $W .; }
trap finish EXIT
echo "start $(date -u +%FT%TZ)" >> $W/rc.txt
timeout 100 gpu/trainopt ladder -steps 10 -batches 128,256 -timed 60 -out $W/go-warm > $W/go-warm/ladder.log 2>&1
echo "go warm rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout 200 gpu/trainopt ladder -steps 10 -batches 512 -timed 60 -out $W/go-512 > $W/go-512/ladder.log 2>&1
echo "go 512 rc=$? at ${SECONDS}s" >> $W/rc.txt
timeout $((585 - SECONDS)) python3 -u gpu/torch_ladder.py --only 10 --step10-batches 256,512 --cudnn-benchmark > $W/torch/torch.jsonl 2> $W/torch/torch.err
echo "torch rc=$? at ${SECONDS}s" >> $W/rc.txt
