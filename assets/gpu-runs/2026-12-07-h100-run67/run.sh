#!/bin/bash
# Device call run67 (session 26, right after run66 on the same warm machine): FastestDepthwise now makes dK in the
# dx kernel (run65). A kernel profile of it at 512, where target 2 is measured, and a second ladder pair at 512
# in the other order (run65 ran the pick first).
RUN=67 LIMIT=${LIMIT:-200}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
U=",dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer"
DK=",dw-kernel-grad=in-dx"
PB=512 profkeep pickdk512 "$B$U$DK"
v dk-512 512 "$B$U$DK"; v pick-512 512 "$B$U"
log "end"
