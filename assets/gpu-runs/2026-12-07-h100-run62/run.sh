#!/bin/bash
# Device call run62 (prepared in sessions 20–22): two changes to the row kernels' loop, as kernel profiles of 12@128
# — unrolled (-model dw-row-unroll=N: N output rows an iteration, all their loads — dx's z too — issued before any
# product or store; N = 1 only moves the loads) and partial sums carried instead of source rows (dw-row-carry=sums:
# fewer registers) — because the stride-1 kernels read 0.9–1.2 TB/s on the 56×56 and 28×28 layers in run61, which
# Little's law puts down to too few bytes in flight a warp at 25–31% occupancy; then issue 15's target 1 on the card
# the pool lends (an H200 wanted: the row kernels have never run on one) with the best options as of run61 (the row
# kernels with dw-forward=triton-stats), and with the fastest candidate if one beat them, beside PyTorch's step 11
# at 128, 256 and 512 in one call; then bn-sums=triton with whole-row tiles for C = 144 and 160 and a profile at 512,
# if time is left. Session 23 put per-layer tiles first among the candidates and the HLO dump in the first profile.
RUN=62 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
# Session 23: the fused expansion backward pass (expand-grad=fused, new: one Triton kernel with two tt.dot, never
# run on a GPU) against autodiff in float32 first, so that its profile below is read knowing whether it is right.
(cd tutorial/mobilenet && timeout 120 /tmp/mobilenet.test -test.run 'TestExpandGradMatchesAutodiff|TestBNBackwardMatchesAutodiff' -test.v > $W/test/expand.log 2>&1)
log "expand-grad test rc=$? $(grep -c '^    --- PASS' $W/test/expand.log) passed, $(grep -c -- '--- FAIL' $W/test/expand.log) failed"
# Session 23: the first profile compiles on an empty executable cache, so it also dumps the optimized HLO (the
# names and shapes of the loop_convert_fusions: 1.35 ms of run61's 11.15 ms of kernels a step at 128, full passes
# over the largest activations) at the cost of writing the files, not of another compile.
XLA_FLAGS="$XLA_FLAGS --xla_dump_to=/tmp/dump --xla_dump_hlo_as_text" profkeep best "$B"
mkdir -p $W/hlo; for f in $(ls -S /tmp/dump/*after_optimizations.txt 2>/dev/null | head -2); do gzip -c $f > $W/hlo/$(basename $f).gz; done
log "hlo: $(ls /tmp/dump 2>/dev/null | wc -l) files dumped, kept $(ls $W/hlo | tr '\n' ' ')"
# Candidates: unroll N (dw-row-unroll=N), and the partial sums carried instead of the source rows (dw-row-carry=sums,
# session 22: two tiles carried in place of six on the stride-1 layers), alone and with unroll 2.
# With two values a thread (dw-row-per-thread=2) the kernels used half the registers at twice the occupancy and
# ran about as fast as the default (run61): the same bytes in flight an SM. Unroll or carried sums on top of it may
# add to them (u2p2, csp2).
declare -A OPT=([u1]=",dw-row-unroll=1" [cs]=",dw-row-carry=sums" [u2]=",dw-row-unroll=2" [cs2]=",dw-row-carry=sums,dw-row-unroll=2"
  [u2p2]=",dw-row-unroll=2,dw-row-per-thread=2" [csp2]=",dw-row-carry=sums,dw-row-per-thread=2" [u4]=",dw-row-unroll=4"
  [u3]=",dw-row-unroll=3" [pl]=",dw-row-tiles=per-layer" [eg]=",expand-grad=fused")
# Session 23: each kernel on the tile run61's sweep found fastest for it (dw-row-tiles=per-layer): by run61's
# per-kernel times it saves about 0.29 ms a step at 128. Then the loop changes, likeliest first.
# And the expansions' backward pass fused (expand-grad=fused): dz never written, 1.35 ms of dz passes a step at 128 in
# run61 (step-parts.txt), of which the kernel takes the 112×112, 56×56 and 28×28 expansions' 0.63 ms.
CANDS="eg pl u2 cs cs2 u2p2 csp2 u1 u4 u3"
for c in $CANDS; do profkeep $c "$B${OPT[$c]}"; done
profkeep best2 "$B"
# The fastest candidate by its profile's samples/s, kept if it beats the better of the two controls by more than 1%.
rate() { sps $W/go/profile-$1.log 2>/dev/null | grep -o '[0-9]* samples' | grep -o '[0-9]*'; }
base=$(printf '%s\n' "$(rate best)" "$(rate best2)" | sort -n | tail -1); U=""; top=$base
egok=$(grep -q '^--- PASS: TestExpandGradMatchesAutodiff' $W/test/expand.log 2>/dev/null && echo 1)
for c in $CANDS; do [ $c = eg ] && [ -z "$egok" ] && continue  # not picked unless its test passed on this GPU
  r=$(rate $c); [ -n "$r" ] && [ -n "$top" ] && [ $(( r * 100 )) -gt $(( top * 101 )) ] && { U=${OPT[$c]}; top=$r; }; done
log "controls $(rate best) $(rate best2); picked: '${U}' ($top)"
v best-128 128 "$B"; [ -n "$U" ] && v pick-128 128 "$B$U"
v best-512 512 "$B"; [ -n "$U" ] && v pick-512 512 "$B$U"
v best-256 256 "$B"; [ -n "$U" ] && v pick-256 256 "$B$U"
[ $(( LIMIT - SECONDS )) -ge 240 ] && torch11 128,256,512 || log "torch skipped (time)"
[ -n "$U" ] && { v pick-128b 128 "$B$U"; v best-128b 128 "$B"; }
profkeep bnsums "$B$U,bn-sums=triton"
# Where a step's time goes at 512 (target 2; no profile of the row kernels at 512 so far), with the pick.
PB=512 profkeep best512 "$B$U"
log "end"
