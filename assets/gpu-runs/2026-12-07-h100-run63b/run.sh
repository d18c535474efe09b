#!/bin/bash
# Device call run63b (session 25), right after run63 on the same warm machine: run63 ran out of time before PyTorch's
# step 11 at 512. Here PyTorch's step 11 at 512 first, then Go's control and run63's pick (carried sums, unroll 2,
# per-layer tiles) at 512 and 128 in the same call, so the 512 ratio compares figures of one call.
RUN=63b LIMIT=${LIMIT:-400}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
U=",dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer"
torch11 512
v pick-512 512 "$B$U"; v best-512 512 "$B"
v pick-128 128 "$B$U"
log "end"
