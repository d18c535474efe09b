#!/bin/bash
# Device call run74 (prepared in session 29): two graph-level levers on the expansion's batch norm, each aimed at a
# pass over the expansion's output z (E, the block's largest tensor), on top of mobilenet.FastestDepthwise:
#   G  bn-sums=gram: batch norm's forward sums of z from x's Gram matrix and column sums (a GEMM over x, a sixth of
#      z) instead of a reduction over z (run67's 12@512: about 1.5 ms of such reductions a step, at 1.9–2.7 TB/s);
#   D  expand-grad=distributed: the expansion's dx and dW as products over g and z, so dz is never written (four
#      passes of E where XLA's way makes five; run67: 5320 µs of dz passes a step at 512);
#   B  both.
# First their float32 GPU tests (nothing is timed unless they pass), then ladder configurations of 400 timed steps:
# F, G, D, B at 512 and in the reverse order at 128, F once more at 512 (the spread of one configuration within the
# call), kernel profiles at 128 of F and B (then G and D, time permitting). One binary: the options are -model keys.
# No PyTorch: the claims come from run72 with whatever this call adopts (run72's README says how).
RUN=74 LIMIT=${LIMIT:-450}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer" # = mobilenet.FastestDepthwise
G="$F,bn-sums=gram" D="$F,expand-grad=distributed" B="$F,bn-sums=gram,expand-grad=distributed"
(cd tutorial/mobilenet && timeout 150 /tmp/mobilenet.test -test.run 'TestExpandGradMatchesAutodiff|TestGramSums' -test.v > $W/test/levers.log 2>&1)
log "levers test rc=$? $(grep -c '^    --- PASS' $W/test/levers.log) passed, $(grep -c -- '--- FAIL' $W/test/levers.log) failed"
if grep -q '^--- PASS: TestExpandGradMatchesAutodiff' $W/test/levers.log && grep -q '^--- PASS: TestGramSums ' $W/test/levers.log; then
  export TO=120 # the new configurations' GEMMs are autotuned while they compile
  v f-512 512 "$F"; v g-512 512 "$G"; v d-512 512 "$D"; v b-512 512 "$B"
  v b-128 128 "$B"; v d-128 128 "$D"; v g-128 128 "$G"; v f-128 128 "$F"
  v f2-512 512 "$F"
  profkeep f "$F"; profkeep b "$B"; profkeep g "$G"; profkeep d "$D"
else
  log "a GPU test did not pass: nothing timed"
fi
log "end"
