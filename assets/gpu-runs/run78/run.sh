#!/bin/bash
# Device call run78 (prepared in session 30, not yet run): binaries trainopt and the mobilenet test binary of the
# same commit (README: how to build; with both the tree is ~59 MB of the 64 MiB a call carries).
#  1. On an H200 only: issue 15's targets 1 and 2 — N (fast start's model) at 512/256/128 and PyTorch's step 11
#     in the same call (sessions 26–30 got only H100s; run76 measured them there: 1.50× / 1.59× / 1.58×).
#  2. The Gram sums (bn-sums=gram): their GPU test (passed in run77), then G = N + bn-sums=gram against N at 512
#     and 128 in alternating order. G's compile autotunes new GEMMs (run77: past 60 s at both batches), so each G
#     process gets 240 s, and a profile of G at 128 beside N's.
RUN=78 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
export TO=120
case "$GPU" in *H200*)
  v n-512 512 "$F"; v n-256 256 "$F"; v n-128 128 "$F"
  torch11 128,256,512 ;;
esac
(cd tutorial/mobilenet && timeout 60 /tmp/mobilenet.test -test.run 'TestGramSums' -test.v > $W/test/gram.log 2>&1)
log "gram test rc=$? $(grep -c -- '--- PASS' $W/test/gram.log) passed, $(grep -c -- '--- FAIL' $W/test/gram.log) failed"
if grep -q "^--- PASS: TestGramSums " $W/test/gram.log; then
  TO=240 v g-512 512 "$F,bn-sums=gram"; v n2-512 512 "$F"; v n2-128 128 "$F"; TO=240 v g-128 128 "$F,bn-sums=gram"
  profkeep n "$F"; profkeep g "$F,bn-sums=gram"
fi
log "end"
