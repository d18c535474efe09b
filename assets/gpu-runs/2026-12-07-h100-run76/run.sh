#!/bin/bash
# Device call run76 (prepared in session 30): two tile changes from kernel profiles, timed as ladder configurations
# of 400 steps, and the claims with them.
#  - The projection kernels' new defaults from run75's sweep (../2026-12-07-h100-run75/proj-tiles.txt): the narrow
#    layers' forward kernel on 128 pixels a tile, the weight-gradient loop with Triton's num_stages 3 (projection
#    kernels 712 → ~600 µs a step at 128). Their old tile is -model project-pixels=64,project-stages=1.
#  - run72's second round of row-kernel tiles, read in session 30 (`merged_tiles.py` on run72's profiles →
#    ../2026-12-07-h100-run72/merged-tiles-2.txt, forward-tiles-2.txt): 169 µs a step at 128 for the merged dx + dK
#    kernel, 36 for the forward kernel, now in rowTileTable. gpu/trainopt-old.xz is commit 7331c6f (the projection
#    defaults, run72's first-round table); gpu/trainopt.xz adds the new table.
# Configurations: N = the new binary's fast-start model (FP), R = the old binary's (the row tiles before), O = the new
# binary with the old projection tile; at 512 N R O, at 128 O R N; N at 256, then PyTorch's step 11 (targets 1 and
# 2), then kernel profiles of N, R and O at 128. No Gram test: the call's tree has room for two binaries, not three.
RUN=76 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
O="$F,project-pixels=64,project-stages=1"
OLD=/tmp/trainopt-old
export TO=120
v n-512 512 "$F"; BIN=$OLD v r-512 512 "$F"; v o-512 512 "$O"
v o-128 128 "$O"; BIN=$OLD v r-128 128 "$F"; v n-128 128 "$F"
v n-256 256 "$F"
[ $(( LIMIT - SECONDS )) -ge 230 ] && torch11 128,256,512 || log "torch skipped (time)"
profkeep n "$F"; BIN=$OLD profkeep r "$F"; profkeep o "$O"
log "end"
