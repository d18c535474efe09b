#!/bin/bash
# Device call run79 (prepared in session 31): what fast start costs or gains today, in one call. Fast start
# (TRAINOPT_FAST_START=on, which the notebooks use) runs rung 12 with FastestDepthwise and the projections'
# prologue; the ladder's timed figures run the default mode (cuDNN's depthwise convolutions). The CLI's help and
# notebook 07 still say "a step up to 4% slower", run48's figure for the first Triton kernels (gather tiling) on an
# H200; since then no call has timed both modes side by side (run56's default-mode control was autotuned with
# inaccurate timings). Here: 12@128 and 12@512, 400 timed steps after 50, each process alone, alternating; the
# first default-mode process at each batch autotunes the cuDNN depthwise convolutions (the copied cache lacks
# them), so each mode is timed twice at 128.
RUN=79 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
mode() { # name, fast start (on/off), batch, cap s
  local left=$(( LIMIT - SECONDS )); [ $left -lt 40 ] && { log "$1 skipped (time)"; return; }
  TRAINOPT_FAST_START=$2 timeout $(( $4 < left ? $4 : left )) /tmp/trainopt ladder -steps 12 -batches $3 -warmup 50 \
    -timed 400 -k 50 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [fast start $2, b=$3] rc=$? $(sps $W/go/$1.log) $(grep -o 'first call [0-9.]*s' $W/go/$1.log | head -1) $(grep -o 'FAILED.*\|panic.*\|rror.*' $W/go/$1.log | head -1 | cut -c1-400)"
}
mode default-128a off 128 240; mode fast-128a on 128 90; mode default-128b off 128 90; mode fast-128b on 128 90
mode default-512a off 512 240; mode fast-512a on 512 90; mode default-512b off 512 90
log "end"
