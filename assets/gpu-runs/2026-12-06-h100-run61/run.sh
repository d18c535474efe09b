#!/bin/bash
# Device call run61 (prepared in session 19, extended and run in session 20): the row kernels' tile (-model dw-row-…, new in this commit) swept at 12@128 with
# kernel profiles: run58's profile had the row kernels at 0.9–1.7 TB/s, 25–31% occupancy. One profile per tile,
# the default first and last; per-kernel times compared afterwards (rowtile.py).
RUN=61 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
# Only the reports come back (the call returns at most 16 MiB a file): drop each profile's trace files.
declare -A TILE
# RESERVE: seconds kept for the confirmation below (none on an H200, whose call starts with target 1).
p() { [ $SECONDS -lt $(( LIMIT - RESERVE )) ] || { log "profile-$1 skipped (reserve)"; return; }
  TILE[$1]=$2; prof "$@"; find $W/prof-$1 -type f ! -name report.json ! -name report.md -delete 2>/dev/null; }
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
# Session 20: on an H200 (never measured with these options) target 1 first — the best options at 128, 256 and 512
# beside PyTorch's step 11 in this call, as run60 did on an H100 — and then as much of the sweep as time leaves.
RESERVE=$(( LIMIT / 2 < 220 ? LIMIT / 2 : 220 ))
if [[ "$GPU" == *H200* && $LIMIT -ge 450 ]]; then
  RESERVE=0; v best-128 128 "$T"; v best-256 256 "$T"; v best-512 512 "$T"; torch11 128,256,512
fi
p default "$T"
# Session 20: batch norm's forward sums by a Triton kernel of their own (-model bn-sums=triton, new), and the
# depthwise outputs' sums from the row kernel (dw-forward=triton-stats, never measured with dw-tiling=rows)
S=${T/dw-forward=triton,/dw-forward=triton-stats,}
p bnsums "$T,bn-sums=triton"
p stats "$S"
p stats-bnsums "$S,bn-sums=triton"
p pt2 "$T,dw-row-per-thread=2"
p c64 "$T,dw-row-channels=64"
p c16 "$T,dw-row-channels=16"
p pt8 "$T,dw-row-per-thread=8"
p c64pt8 "$T,dw-row-channels=64,dw-row-per-thread=8"
p w8 "$T,dw-row-width=8"
p w32 "$T,dw-row-width=32"
p r4 "$T,dw-row-rows=4"
p r16 "$T,dw-row-rows=16"
p c16pt2 "$T,dw-row-channels=16,dw-row-per-thread=2"
p pt1 "$T,dw-row-per-thread=1"
p c64pt2 "$T,dw-row-channels=64,dw-row-per-thread=2"
p w16 "$T,dw-row-width=16"
p default2 "$T"
# Session 20: in the same call, the tile whose profile ran fastest (50 timed steps) against the default as ladder
# runs (400 timed steps) at 128 and 512, alternated.
best=$(for f in $W/go/profile-*.log; do n=${f##*/profile-}; n=${n%.log}
  s=$(grep -o '[0-9]* samples/s' $f | tail -1 | cut -d' ' -f1); [ -n "$s" ] && echo "$s $n"; done | sort -n | tail -1 | cut -d' ' -f2)
log "fastest profile: $best (${TILE[$best]})"
case "$best" in default|default2|"") ;; *)
  v best-128a 128 "${TILE[$best]}"; v default-128a 128 "$T"; v best-128b 128 "${TILE[$best]}"; v default-128b 128 "$T"
  v best-512 512 "${TILE[$best]}"; v default-512 512 "$T" ;; esac
