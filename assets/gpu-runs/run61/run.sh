#!/bin/bash
# Device call run61 (session 19): the row kernels' tile (-model dw-row-…, new in this commit) swept at 12@128 with
# kernel profiles: run58's profile had the row kernels at 0.9–1.7 TB/s, 25–31% occupancy. One profile per tile,
# the default first and last; per-kernel times compared afterwards (rowtile.py).
RUN=61 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
# Only the reports come back (the call returns at most 16 MiB a file): drop each profile's trace files.
p() { prof "$@"; find $W/prof-$1 -type f ! -name report.json ! -name report.md -delete 2>/dev/null; }
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
p default "$T"
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
