#!/bin/bash
# Device call run72 (prepared in session 27): run69's uniform tiles reached the forward kernels too, and
# `merged_tiles.py --forward` on its profiles (../2026-12-07-h100-run69/forward-tiles.txt) finds, on FastestDepthwise's
# loop (two rows an iteration, carried sums, the stats kernel), a tile 4–17% faster than rowTileTable's forward
# entry (chosen by run61 without that loop) on six layers: 81 µs a step at 128. forward-tiles.patch makes those the
# table's forward entries. gpu/trainopt.xz = HEAD + the patch, gpu/trainopt-old.xz = HEAD (README: how to build).
# Then a second sweep round for the merged and forward kernels, combining run69's winners (16 rows, 8 columns,
# two values a thread, 64 channels). PyTorch's step 11 after the ladder pairs if 300 s are left (session 28: the claims
# before the sweep), then a profile of run73's epilogue, which lost without one. Session 29 added Go at 256 (target 1
# at every batch from one call), moved the profiles after PyTorch, and ADOPT: the -model keys run74 adopts, so that
# the claims are measured on the best configuration (run74 first).
RUN=72 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
L=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2"
F="$L,dw-row-tiles=per-layer${ADOPT:-}" # = mobilenet.FastestDepthwise (+ what run74 adopted: ADOPT=",bn-sums=gram,…")
OLD=/tmp/trainopt-old
BIN=$OLD v old-512 512 "$F"; v new-512 512 "$F"
v new-128 128 "$F"; BIN=$OLD v old-128 128 "$F"
v new-256 256 "$F" # target 1 at every batch in one call
[ $(( LIMIT - SECONDS )) -ge 300 ] && torch11 128,256,512 || log "torch skipped (time)" # run73's took 278 s
profkeep new "$F"
BIN=$OLD profkeep old "$F"
profkeep r16w8 "$L,dw-row-rows=16,dw-row-width=8"
profkeep r16pt2 "$L,dw-row-rows=16,dw-row-per-thread=2"
profkeep r16c64 "$L,dw-row-rows=16,dw-row-channels=64"
profkeep epi "$F,dw-epilogue=bn-relu6-backward" # why run73's epilogue lost: the merged kernel's time beside prof-new's
profkeep r16c16pt2 "$L,dw-row-rows=16,dw-row-channels=16,dw-row-per-thread=2"
profkeep w8pt2 "$L,dw-row-width=8,dw-row-per-thread=2"
profkeep r16w8pt2 "$L,dw-row-rows=16,dw-row-width=8,dw-row-per-thread=2"
profkeep r32 "$L,dw-row-rows=32"
profkeep c64pt2 "$L,dw-row-channels=64,dw-row-per-thread=2"
log "end"
