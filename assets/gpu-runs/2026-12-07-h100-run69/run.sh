#!/bin/bash
# Device call run69 (prepared in session 26): the merged dx + dK row kernel (dw-kernel-grad=in-dx, in
# mobilenet.FastestDepthwise since session 26) runs with the tiles run61 chose for the dx kernel alone, and six of
# its ten geometries sit at 157–168 registers a thread and 12–19% occupancy (run65's indx.txt). A sweep of uniform
# tiles (kernel profiles of 12@128 on FastestDepthwise's loop, per-layer tiles off) gives each merged kernel its
# own fastest tile, as run61's sweep did for the others; merged_tiles.py reads the profiles.
# On an H200 (never lent for the row kernels so far) issue 15's target 1 goes first: FastestDepthwise's
# configuration at 128, 256 and 512 beside PyTorch's step 11 in the same call; then as much of the sweep as is left.
RUN=69 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
L=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2"
F="$L,dw-row-tiles=per-layer" # = mobilenet.FastestDepthwise
if [[ "$GPU" == *H200* && $LIMIT -ge 450 ]]; then
  v fast-128 128 "$F"; v fast-256 256 "$F"; v fast-512 512 "$F"; torch11 128,256,512
fi
profkeep fastest "$F"
profkeep default "$L"
profkeep c16 "$L,dw-row-channels=16"
profkeep c64 "$L,dw-row-channels=64"
profkeep pt2 "$L,dw-row-per-thread=2"
profkeep pt8 "$L,dw-row-per-thread=8"
profkeep r4 "$L,dw-row-rows=4"
profkeep r16 "$L,dw-row-rows=16"
profkeep c16pt2 "$L,dw-row-channels=16,dw-row-per-thread=2"
profkeep c64pt8 "$L,dw-row-channels=64,dw-row-per-thread=8"
profkeep w8 "$L,dw-row-width=8"
profkeep w32 "$L,dw-row-width=32"
profkeep pt1 "$L,dw-row-per-thread=1"
profkeep fastest2 "$F"
log "end"
