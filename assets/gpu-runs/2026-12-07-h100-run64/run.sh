#!/bin/bash
# Device call run64 (session 25): fast start now runs the row loops of run63's pick (mobilenet.FastestDepthwise:
# carried sums, unroll 2, per-layer tiles). As run57 did for its kernels: every rung at batch 128 twice, "fill"
# compiling into an empty executable cache, "hit" loading it (the warm first call a notebook cell sees), then a cold
# first call of 12@512 in fast start. Then the kernel profiles run63 lost to a file name too long: the pick at 128,
# the pick with dK made in the dx kernel (dw-kernel-grad=in-dx), the fused expansion backward pass on the pick with
# its tile's two new levers (run63: 206–255 registers a thread, 12.5% occupancy with [64, 64] tiles on 4 warps):
# 32 pixels a tile, 8 warps, both — and the pick at 512 (where target 2 is measured).
RUN=64 LIMIT=${LIMIT:-450}
. "$(dirname "$0")/../lib.sh"
export TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe64
one() { # name, fast start, cap s, ladder args...
  local name=$1 fast=$2 cap=$3; shift 3
  local left=$(( LIMIT - SECONDS )); [ $left -lt 30 ] && { log "$name skipped (time)"; return; }
  mkdir -p $W/go/$name
  TRAINOPT_FAST_START=$fast timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder "$@" -out $W/go/$name > $W/go/$name.log 2>&1
  log "$name rc=$? $(grep -o 'step [0-9a-z@]*: first call [0-9.]*s\|step [0-9a-z@]*: [0-9]* samples/s' $W/go/$name.log | sed 's/step //' | tr '\n' ';')"
}
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
U=",dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer"
# most wanted first: the device budget left for this call may cut the list short
profkeep pick "$B$U"
profkeep egp32 "$B$U,expand-grad=fused,expand-grad-pixels=32"
profkeep egw8 "$B$U,expand-grad=fused,expand-grad-warps=8"
profkeep eg "$B$U,expand-grad=fused"
profkeep egp32w8 "$B$U,expand-grad=fused,expand-grad-pixels=32,expand-grad-warps=8"
profkeep pickdk "$B$U,dw-kernel-grad=in-dx"
PB=512 profkeep pick512 "$B$U"
ALL="-steps all -batches 128 -warmup 5 -timed 40"
one fast-fill on 220 $ALL
one fast-hit on 90 $ALL
TRAINOPT_EXECUTABLE_CACHE=off TRAINOPT_AUTOTUNE_CACHE=/tmp/cold64.pb one cold-512-fast on 90 -steps 12 -batches 512 -warmup 5 -timed 30
log "end"
