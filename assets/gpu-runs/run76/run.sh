#!/bin/bash
# Device call run76 (prepared in session 30). run75's sweep (../2026-12-07-h100-run75/proj-tiles.txt) gave the
# projection kernels new defaults: the narrow layers' forward kernel on 128 pixels a tile, the weight-gradient loop
# with Triton's num_stages 3 (profiles: 712 → ~600 µs a step at 128). And it found why the Gram sums' GPU test
# failed: the test's reference, whose bfloat16 rounding XLA dropped (SimplifyFPConversions); the test now rounds on
# the host. So, one binary (the options are -model keys):
#   1. TestGramSums on the GPU; if it passes, G = bn-sums=gram is timed below;
#   2. ladder configurations of 400 timed steps: NEW (FP, the new default tiles) against OLD (FP with
#      project-pixels=64,project-stages=1: run74's tile) and G (NEW + bn-sums=gram) at 512, then in reverse at 128;
#   3. NEW at 256 and PyTorch's step 11 at 128/256/512: issue 15's targets 1 and 2 from this call;
#   4. kernel profiles at 128: NEW, and NEW with the 112×112 layer's best from run75 (programs 1024) everywhere,
#      warps 2 (the forward kernels' other winner), num_stages 4.
RUN=76 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
OLD="$F,project-pixels=64,project-stages=1"
(cd tutorial/mobilenet && timeout 120 /tmp/mobilenet.test -test.run 'TestGramSums' -test.v > $W/test/gram.log 2>&1)
log "gram test rc=$? $(grep -c -- '--- PASS' $W/test/gram.log) passed, $(grep -c -- '--- FAIL' $W/test/gram.log) failed"
G=; grep -q "^--- PASS: TestGramSums " $W/test/gram.log && G="$F,bn-sums=gram"
export TO=120
v new-512 512 "$F"; v old-512 512 "$OLD"; [ -n "$G" ] && v g-512 512 "$G"
[ -n "$G" ] && v g-128 128 "$G"; v old-128 128 "$OLD"; v new-128 128 "$F"
v new-256 256 "$F"
[ $(( LIMIT - SECONDS )) -ge 230 ] && torch11 128,256,512 || log "torch skipped (time)"
profkeep new "$F"; profkeep old "$OLD"
profkeep programs-1024 "$F,project-programs=1024"
profkeep warps-2 "$F,project-warps=2"
profkeep stages-4 "$F,project-stages=4"
[ -n "$G" ] && profkeep g "$G"
log "end"
