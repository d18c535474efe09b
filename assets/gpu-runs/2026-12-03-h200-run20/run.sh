#!/bin/bash
# Device call run20 (session 6): Go beside PyTorch in one call with the current binary — Go steps 12 and 14 at
# 512, 256, 128 in one process (warm autotune cache; first calls split into compile + first execution), then
# PyTorch's best (torch_ladder.py step 10, cudnn.benchmark) at 128, 256, 512.
cd "$(dirname "$0")/.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w20; mkdir -p $W/go $W/torch /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { gzip -f $W/go/ladder.log; tar czf $OUT/run20.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
timeout 300 gpu/trainopt ladder -steps 12,14 -batches 512,256,128 -timed 60 -out $W/go > $W/go/ladder.log 2>&1
log "go rc=$? $(grep -h 'first call\|samples/s, step' $W/go/ladder.log | sed 's/^ *//' | cut -c1-60 | tr '\n' ';')"
timeout $((585 - SECONDS)) python3 -u gpu/torch_ladder.py --only 10 --step10-batches 128,256,512 --cudnn-benchmark > $W/torch/torch.jsonl 2> $W/torch/torch.err
log "torch rc=$? $(grep -o '"batch": [0-9]*, "step_ms": [0-9.]*, "samples_per_s": [0-9.]*' $W/torch/torch.jsonl | tr '\n' ';')"
