#!/bin/bash
# Device call run41 (session 11): issue 15. (1) The train package's test binary on the GPU: the flat state
# (-model state=flat) trains exactly as the per-tensor state (run40's binary lacked the XLA backend). (2) Go's rung
# 12 with run36's options and K = 200 (run39: +0.9-1.6% over K = 50 at 128) at 128, 256 and 512, with K = 50 at
# 128 as the control; then PyTorch's step 11 (CUDA graphs + fused SGD, --cudnn-benchmark) at the same batches,
# so that the ratios come from one call. Warm autotune cache (run26's).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/train.test.gz > /tmp/train.test; chmod +x /tmp/trainopt /tmp/train.test
. gpu/jax-cuda-env.sh
W=/tmp/w41; mkdir -p $W/go $W/test $W/torch /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe PYTHONUNBUFFERED=1
finish() { gzip -f $W/go/*.log; tar czf $OUT/run41.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ)"
(cd tutorial/train && timeout 100 /tmp/train.test -test.run 'TestFlatStateMatchesTensors' -test.v > $W/test/flat.log 2>&1)
log "test rc=$? $(grep -E '^(--- |ok|FAIL|PASS)|losses' $W/test/flat.log | tr '\n' ';')"
P=reduction-row=256,stem=patches
v() { # name, batch, K
  timeout 70 /tmp/trainopt ladder -steps 12 -batches $2 -warmup $3 -timed 400 -k $3 -model $P -out $W/go > $W/go/$1.log 2>&1
  log "$1 [b=$2 k=$3 $P] rc=$? $(sps $W/go/$1.log)"
}
v k200-128 128 200
v k50-128 128 50
v k200-256 256 200
v k200-512 512 200
timeout $((590 - SECONDS)) python3 -u anchors/torch_ladder.py --only 11 --step10-batches 128,512,256 --cudnn-benchmark \
  --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
