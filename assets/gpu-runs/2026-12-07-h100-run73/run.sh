#!/bin/bash
# Device call run73 (prepared in session 27): dy made where dx is made (-model …,dw-epilogue=bn-relu6-backward,
# depthwise_bn_out.go). The pass after each depthwise layer — batch norm's and ReLU6's backward, which reads the
# layer's output y and the projection's input gradient gp and writes dy — leaves the step: the merged dx + dK kernel
# (dwRowsInputKernelGradOut) loads y and gp and makes dy in registers. run67's profile of 12@512 has those passes
# (loop_add_fusion) at 3208 µs a step; issue 15's target 2 needs 1.3% more at 512 (run71).
# First its float32 GPU test against autodiff (and the prologue's, beside it); only if it passes: ladder pairs at 512
# and 128 (400 timed steps, alternating order), PyTorch's step 11 in the same call if 240 s are left, kernel profiles
# of FastestDepthwise with and without it at 128, then the pair at 256 (session 28 put the claims before the
# profiles: the pool's refusals had left less device time than the call was written for).
# One binary: the option is a -model key.
RUN=73 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer" # = mobilenet.FastestDepthwise
E=",dw-epilogue=bn-relu6-backward"
(cd tutorial/mobilenet && timeout 150 /tmp/mobilenet.test -test.run 'TestBNOutBackwardMatchesAutodiff|TestBNBackwardMatchesAutodiff|TestGateKernelBuffersMatchItsGrid' -test.v > $W/test/bnout.log 2>&1)
log "bn-out test rc=$? $(grep -c '^    --- PASS' $W/test/bnout.log) passed, $(grep -c -- '--- FAIL' $W/test/bnout.log) failed"
if grep -q '^--- PASS: TestBNOutBackwardMatchesAutodiff' $W/test/bnout.log; then
  v fast-512 512 "$F"; v epi-512 512 "$F$E"
  v epi-128 128 "$F$E"; v fast-128 128 "$F"
  [ $(( LIMIT - SECONDS )) -ge 240 ] && torch11 128,256,512 || log "torch skipped (time)"
  profkeep epi "$F$E"
  profkeep fastest "$F"
  v fast-256 256 "$F"; v epi-256 256 "$F$E"
else
  log "the GPU test did not pass: nothing timed"
fi
log "end"
