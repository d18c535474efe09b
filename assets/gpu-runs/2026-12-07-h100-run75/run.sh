#!/bin/bash
# Device call run75 (prepared in session 30). The best configuration after run74 is FP = mobilenet.FastestDepthwise
# + run72's forward tiles + run74's projection prologue (ladder fast start's model). run74's profiles put its 20
# projection kernels (project_*) at 711 µs a step at 128 — 1.1–2.5 TB/s, ~390 µs if they read y and dout at 3 TB/s
# (../2026-12-07-h100-run74/families.txt) — on one default tile. So:
#   1. on an H200 only: issue 15's targets 1 and 2 — FP at 512/256/128 and PyTorch's step 11 in the same call;
#   2. the fixed Gram sums' GPU test (session 29 replaced its K×C float32 dots, TF32 on the GPU, by products and
#      sums); if it passes, G = bn-sums=gram against FP at 512 and 128;
#   3. a sweep of the projection kernels' tile (-model project-pixels, -channels, -programs, -warps, -stages,
#      new in session 30) as kernel profiles of 12@128, each kernel's time per setting read by proj_tiles.py.
RUN=75 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
export TO=120
case "$GPU" in *H200*)
  v f-512 512 "$F"; v f-256 256 "$F"; v f-128 128 "$F"
  torch11 128,256,512 ;;
esac
(cd tutorial/mobilenet && timeout 120 /tmp/mobilenet.test -test.run 'TestGramSums' -test.v > $W/test/gram.log 2>&1)
log "gram test rc=$? $(grep -c -- '--- PASS' $W/test/gram.log) passed, $(grep -c -- '--- FAIL' $W/test/gram.log) failed"
profkeep base "$F"
for t in programs=1024 programs=4096 programs=64 pixels=128 pixels=32 warps=8 warps=2 channels=32 channels=16 \
  stages=2 stages=3 pixels=128,project-warps=8 pixels=128,project-programs=1024; do
  profkeep "${t//[=,]/-}" "$F,project-$t"
done
profkeep base2 "$F"
grep -q "^--- PASS: TestGramSums " $W/test/gram.log && { v g-512 512 "$F,bn-sums=gram"; v f-512 512 "$F"; v f-128 128 "$F"; v g-128 128 "$F,bn-sums=gram"; }
log "end"
