#!/bin/bash
# Device call run36 (session 10): issue 15's target 1 measured in one call. Go rung 12 as the ladder defines it,
# and 12 with this session's options (`-k 50 -model reduction-row=256,stem=patches`: K = 50 steps per Execute,
# batch-norm rows of 256, the stem as a matrix product over patches), at 128, 256 and 512, every configuration in a
# process of its own; then PyTorch's strongest, step 11 (CUDA graphs + fused SGD, --cudnn-benchmark), at the same
# three batches. Warm autotune cache (run26's); no executable cache from an earlier call (a fresh machine).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w36; mkdir -p $W/go $W/torch /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe PYTHONUNBUFFERED=1
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { gzip -f $W/go/*.log; tar czf $OUT/run36.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ)"
for b in 128 256 512; do
  timeout 60 /tmp/trainopt ladder -steps 12 -batches $b -warmup 5 -timed 100 -out $W/go > $W/go/12-$b.log 2>&1
  log "12@$b rc=$? $(sps $W/go/12-$b.log)"
  timeout 60 /tmp/trainopt ladder -steps 12 -batches $b -warmup 5 -timed 100 -k 50 -model reduction-row=256,stem=patches -out $W/go \
    > $W/go/12opt-$b.log 2>&1
  log "12opt@$b rc=$? $(sps $W/go/12opt-$b.log)"
done
timeout $((585 - SECONDS)) python3 -u anchors/torch_ladder.py --only 11 --step10-batches 128,512,256 --cudnn-benchmark \
  --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
