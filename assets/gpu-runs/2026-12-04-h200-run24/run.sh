#!/bin/bash
# Device call run24 (session 7): the merged code on the H200 — issue 13's ladder.Config / train.Loop /
# artifact schemas, issue 16's validation and results naming, the profile split — checked on the GPU:
# the ladder (rungs 1, 4, 12 at batch 128), trainopt train with -json, trainopt profile of rung 12, and, in
# the same call, PyTorch's strongest configuration (torch_ladder.py step 11: CUDA graphs + fused SGD) at 128.
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w24; mkdir -p $W/go $W/torch /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe24
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { for f in $W/go/*.log; do gzip -f $f; done; tar czf $OUT/run24.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
timeout 200 gpu/trainopt ladder -steps 1,4,12 -batches 128 -timed 60 -out $W/go > $W/go/ladder.log 2>&1
log "ladder rc=$? $(grep -o 'step [0-9a-z@]*: [0-9]* samples/s, step [0-9.]* ms\|first call [0-9.]*s' $W/go/ladder.log | tr '\n' ';')"
timeout 100 gpu/trainopt train -steps 100 -json $W/go/train-bf16-b128.json > $W/go/train.log 2>&1
log "train rc=$? $(grep -o 'throughput: [0-9]* samples/s' $W/go/train.log)"
timeout 120 gpu/trainopt profile -step 12 -out $W/go/profiles > $W/go/profile.log 2>&1
log "profile rc=$? $(tail -1 $W/go/profile.log)"
timeout $((570 - SECONDS)) python3 -u gpu/torch_ladder.py --only 11 --step10-batches 128 --cudnn-benchmark > $W/torch/torch.jsonl 2> $W/torch/torch.err
log "torch rc=$? $(grep -o '"batch": [0-9]*, "step_ms": [0-9.]*, "samples_per_s": [0-9.]*' $W/torch/torch.jsonl | tr '\n' ';')"
