#!/bin/bash
# Device call run65 (prepared in session 25): is dK made in the dx kernel (dw-kernel-grad=in-dx) worth adopting on
# top of run63's pick (mobilenet.FastestDepthwise's loop)? run63 (on the loop without per-layer tiles) had it −0.7%,
# run64 (with them) +1.8%, one profile each. Here: profiles of pick, pick + in-dx, pick again (the spread of one
# profile), then both as ladder configurations at 512, 128 and 256 (400 timed steps), then PyTorch's step 11 at
# 128, 256 and 512 when 240 s are left — all in one call, an H200 wanted (the row kernels never ran on one).
RUN=65 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
U=",dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer"
DK=",dw-kernel-grad=in-dx"
profkeep pick "$B$U"
profkeep pickdk "$B$U$DK"
profkeep pick2 "$B$U"
v pick-512 512 "$B$U"; v dk-512 512 "$B$U$DK"
v dk-128 128 "$B$U$DK"; v pick-128 128 "$B$U"
v pick-256 256 "$B$U"; v dk-256 256 "$B$U$DK"
[ $(( LIMIT - SECONDS )) -ge 240 ] && torch11 128,256,512 || log "torch skipped (time)"
log "end"
