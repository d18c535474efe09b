#!/bin/bash
# Device call run14 (session 4): Go steps 12-15 at 512, 256, 128 in one process (autotune cache of run13), then
# PyTorch's best (step 10, cudnn.benchmark) at 128, 256, 512 in the same call; a profile of 15@512 with what time
# is left. First, mobilenet's test binary on XLA (every depthwise formulation against central differences).
cd "$(dirname "$0")/.."
for f in gpu/*.gz; do gunzip -f "$f"; done
chmod +x gpu/trainopt gpu/mobilenet.test
. gpu/jax-cuda-env.sh
W=/tmp/w14; mkdir -p $W/go $W/torch $W/profile $W/test /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run14.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
(cd tutorial/mobilenet && timeout 60 ../../gpu/mobilenet.test -test.run 'TestDepthwiseGradients' -test.v > $W/test/depthwise.log 2>&1)
log "test rc=$? $(grep -c -- '--- PASS' $W/test/depthwise.log) pass $(grep -c -- '--- FAIL' $W/test/depthwise.log) fail"
timeout 330 gpu/trainopt ladder -steps 12,13,14,15 -batches 512,256,128 -timed 60 -out $W/go > $W/go/ladder.log 2>&1
log "go rc=$? $(grep -h 'samples/s, step' $W/go/ladder.log | sed 's/^ *//' | cut -c1-40 | tr '\n' ';')"
timeout $((580 - SECONDS)) python3 -u gpu/torch_ladder.py --only 10 --step10-batches 128,256,512 --cudnn-benchmark > $W/torch/torch.jsonl 2> $W/torch/torch.err
log "torch rc=$? $(grep -o '"batch": [0-9]*, "step_ms": [0-9.]*, "samples_per_s": [0-9.]*' $W/torch/torch.jsonl | tr '\n' ';')"
left=$((592 - SECONDS))
if [ $left -gt 40 ]; then
  timeout $left gpu/trainopt profile -step 15@512 -batches 512 -capture 10 -out $W/profile > $W/profile/profile.log 2>&1
  log "profile rc=$?"
fi
