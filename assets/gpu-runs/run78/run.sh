#!/bin/bash
# Device call run78 (prepared in sessions 30–31, not yet run): binaries trainopt and the mobilenet test binary of
# the same commit (README: how to build; with both the tree is ~45 MB of the 64 MiB a call carries). Five blocks,
# each skipped when the call's time runs short; on an H200 the blocks that close issue 15 come first, so that one
# call can measure all four targets there (sessions 26–31 got only H100s, or nothing).
#  claims  issue 15's targets 1, 2 and 4: N (fast start's model with run58's options) at 512/256/128 and PyTorch's
#          step 11 in the same call (run76 on an H100: 1.50× / 1.59× / 1.58×, memory below PyTorch's).
#  first   target 3 on today's fast start (run66 measured it before the projection prologue and session 30's tiles):
#          every rung at 128 compiled into an empty executable cache ("fill"), then loaded from it ("hit": the warm
#          first call a notebook cell sees), then a cold 12@512 (empty autotune and executable caches).
#  levers  the GPU tests of two untimed levers — the Gram sums (bn-sums=gram; passed in run77) and the projection's
#          forward kernel summing its output for the batch norm after it (project-sums=kernel, session 30, in
#          TestProjectionMatchesAutodiff) — then S = N + project-sums=kernel against N at 512 and 128, alternating.
#  profiles kernel profiles at 128: N, S, and N with project-programs=1024 (run75's best for the 112×112 layer's
#          weight gradient, tried there without num_stages 3).
#  gram    G = N + bn-sums=gram at 512 (its compile autotunes new GEMMs: run77 ran past 60 s), then N again.
# On an H200: claims first levers profiles gram. Elsewhere (an H100 has run76's claims): levers profiles gram first.
RUN=78 LIMIT=${LIMIT:-570}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
export TO=120
claims() { v n-512 512 "$F"; v n-256 256 "$F"; v n-128 128 "$F"; torch11 128,256,512; }
first() {
  local ALL="-steps all -batches 128 -warmup 5 -timed 40"
  TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe78 one fast-fill on 220 $ALL
  TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe78 one fast-hit on 90 $ALL
  TRAINOPT_EXECUTABLE_CACHE=off TRAINOPT_AUTOTUNE_CACHE=/tmp/cold78.pb one cold-512-fast on 120 -steps 12 -batches 512 -warmup 5 -timed 30
}
S=; G=
levers() {
  [ $(( LIMIT - SECONDS )) -gt 120 ] || { log "levers skipped (time)"; return; }
  (cd tutorial/mobilenet && timeout 90 /tmp/mobilenet.test -test.run 'TestGramSums|TestProjectionMatchesAutodiff' -test.v > $W/test/levers.log 2>&1)
  log "levers test rc=$? $(grep -c -- '--- PASS' $W/test/levers.log) passed, $(grep -c -- '--- FAIL' $W/test/levers.log) failed"
  grep -q "^--- PASS: TestProjectionMatchesAutodiff " $W/test/levers.log && S="$F,project-sums=kernel"
  grep -q "^--- PASS: TestGramSums " $W/test/levers.log && G="$F,bn-sums=gram"
  [ -n "$S" ] && { v s-512 512 "$S"; v n2-512 512 "$F"; v n2-128 128 "$F"; v s-128 128 "$S"; }
}
profiles() { profkeep n "$F"; [ -n "$S" ] && profkeep s "$S"; profkeep programs-1024 "$F,project-programs=1024"; }
gram() { [ -n "$G" ] && { TO=240 v g-512 512 "$G"; v n3-512 512 "$F"; }; }
case "$GPU" in
  *H200*) claims; first; levers; profiles; gram ;;
  *) levers; profiles; gram; first ;;
esac
log "end"
