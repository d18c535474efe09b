#!/bin/bash
# Device call run78 (prepared in session 30, not yet run): binaries trainopt and the mobilenet test binary of the
# same commit (README: how to build; with both the tree is ~59 MB of the 64 MiB a call carries).
#  1. On an H200 only: issue 15's targets 1 and 2 — N (fast start's model) at 512/256/128 and PyTorch's step 11
#     in the same call (sessions 26–30 got only H100s; run76 measured them there: 1.50× / 1.59× / 1.58×).
#  2. GPU tests of two untimed levers: the Gram sums (bn-sums=gram; passed in run77) and the projection's forward
#     kernel summing its output for the batch norm after it (project-sums=kernel, session 30; in
#     TestProjectionMatchesAutodiff). A lever whose test fails is not timed.
#  3. S = N + project-sums=kernel against N at 512 and 128, alternating.
#  4. Kernel profiles at 128: N, S, and N with project-programs=1024 (run75's best for the 112×112 layer's
#     weight gradient, tried there without num_stages 3).
#  5. G = N + bn-sums=gram at 512 with what time is left (its compile autotunes new GEMMs), then N again.
RUN=78 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
export TO=120
case "$GPU" in *H200*)
  v n-512 512 "$F"; v n-256 256 "$F"; v n-128 128 "$F"
  torch11 128,256,512 ;;
esac
(cd tutorial/mobilenet && timeout 90 /tmp/mobilenet.test -test.run 'TestGramSums|TestProjectionMatchesAutodiff' -test.v > $W/test/levers.log 2>&1)
log "levers test rc=$? $(grep -c -- '--- PASS' $W/test/levers.log) passed, $(grep -c -- '--- FAIL' $W/test/levers.log) failed"
passed() { grep -q "^--- PASS: $1 " $W/test/levers.log; }
S=; passed TestProjectionMatchesAutodiff && S="$F,project-sums=kernel"
G=; passed TestGramSums && G="$F,bn-sums=gram"
[ -n "$S" ] && { v s-512 512 "$S"; v n2-512 512 "$F"; v n2-128 128 "$F"; v s-128 128 "$S"; }
profkeep n "$F"; [ -n "$S" ] && profkeep s "$S"
profkeep programs-1024 "$F,project-programs=1024"
# G last: its compile autotunes new GEMMs (run77: past 60 s), so it gets what time is left, up to 240 s.
[ -n "$G" ] && { TO=240 v g-512 512 "$G"; v n3-512 512 "$F"; }
log "end"
