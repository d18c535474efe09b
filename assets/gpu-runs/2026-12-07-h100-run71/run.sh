#!/bin/bash
# Device call run71 (session 27): run70 again with the merged kernel's buffers fixed. In run70 every process of
# the new binary went to NaN: makeGate sized the merged dx + dK kernel's per-program sums by the dx kernel's grid,
# and with rowTileTable's own tiles for the merged kernel (run69's sweep) the two grids differ on six layers. Here
# gpu/trainopt.xz has the fix (gateKernel sizes them by the kernel that runs; TestGateKernelBuffersMatchItsGrid),
# gpu/trainopt-old.xz is commit 074eeee as in run70. A profile of the new binary at 128, ladder pairs at 512 and 128
# in alternating order (400 timed steps), PyTorch's step 11 at 128, 256 and 512, then the pair at 256 if time is left.
RUN=71 LIMIT=${LIMIT:-470}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer" # = mobilenet.FastestDepthwise
OLD=/tmp/trainopt-old
profkeep new "$F"
BIN=$OLD v old-512 512 "$F"; v new-512 512 "$F"
v new-128 128 "$F"; BIN=$OLD v old-128 128 "$F"
[ $(( LIMIT - SECONDS )) -ge 240 ] && torch11 128,256,512 || log "torch skipped (time)"
BIN=$OLD v old-256 256 "$F"; v new-256 256 "$F"
log "end"
