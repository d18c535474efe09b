#!/bin/bash
# Device call run70 (session 27): run69's sweep gave the merged dx + dK row kernel (dw-kernel-grad=in-dx) tiles of
# its own on six of its ten layers (rowTileTable's rowsInputKernelGrad entries; 148 µs a step at 128 by the sweep's
# kernel times). Is mobilenet.FastestDepthwise with them (gpu/trainopt.xz) faster than without (gpu/trainopt-old.xz,
# commit 074eeee)? One profile of each at 128, then ladder pairs at 512, 128 and 256 in alternating order (400
# timed steps), then PyTorch's step 11 at 128, 256 and 512 in the same call when 240 s are left (issue 15's targets
# 1 and 2; on an H200 for the first time if one is lent).
RUN=70 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer" # = mobilenet.FastestDepthwise
OLD=/tmp/trainopt-old
BIN=$OLD profkeep old "$F"
profkeep new "$F"
BIN=$OLD v old-512 512 "$F"; v new-512 512 "$F"
v new-128 128 "$F"; BIN=$OLD v old-128 128 "$F"
BIN=$OLD v old-256 256 "$F"; v new-256 256 "$F"
[ $(( LIMIT - SECONDS )) -ge 240 ] && torch11 128,256,512 || log "torch skipped (time)"
v new-512b 512 "$F"; BIN=$OLD v old-512b 512 "$F"
log "end"
