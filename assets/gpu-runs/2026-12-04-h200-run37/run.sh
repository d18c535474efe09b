#!/bin/bash
# Device call run37 (session 10): issue 15, target 4 with the stem as patches. run36 measured `-model
# reduction-row=256,stem=patches` at a peak of 3.84 GB at batch 128, above PyTorch step 11's 3.82 GB: GoMLX's
# gradient of the product kept the patches (103 MB) for the backward pass. The stem now has a VJP of its own that
# rebuilds them from the image behind an optimization barrier (tutorial/mobilenet/stem.go). Its peak and speed at
# 128 (twice) and 512, beside the same options without the patches, every configuration in a process of its own.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w37; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run37.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
v() { # name, batch, -model value
  timeout 60 /tmp/trainopt ladder -steps 12 -batches $2 -warmup 5 -timed 100 -k 50 -model $3 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [$3] rc=$? $(sps $W/go/$1.log) $(grep -o 'peak [0-9.]* GB' $W/go/$1.log | head -1)"
}
log "start $(date -u +%FT%TZ)"
v p128 128 reduction-row=256,stem=patches
v c128 128 reduction-row=256
v p128b 128 reduction-row=256,stem=patches
v p512 512 reduction-row=256,stem=patches
