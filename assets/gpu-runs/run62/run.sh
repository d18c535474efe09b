#!/bin/bash
# Device call run62 (prepared in sessions 20–21): the row kernels unrolled (-model dw-row-unroll=N: N output rows a
# loop iteration, all their loads — dx's z too — issued before any product or store; the stride-1 kernels read 0.9–1.2
# TB/s on the 56×56 and 28×28 layers in run61, which Little's law puts down to one new row of loads in flight a warp)
# as kernel profiles of 12@128 (N = 1: only the loads moved first); then issue 15's target 1 on the card the pool
# lends (an H200 wanted: the row kernels have never run on one) with the best options as of run61 (the row kernels
# with dw-forward=triton-stats), and with the fastest unroll if one beat them, beside PyTorch's step 11 at 128, 256
# and 512 in one call; then bn-sums=triton with whole-row tiles for C = 144 and 160, and an HLO dump that names the
# loop_convert_fusions, if time is left.
RUN=62 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
profkeep best "$B"
for u in 1 2 4 3; do profkeep u$u "$B,dw-row-unroll=$u"; done
profkeep best2 "$B"
# The fastest unroll by its profile's samples/s, kept if it beats the better of the two controls by more than 1%.
rate() { sps $W/go/profile-$1.log | grep -o '[0-9]* samples' | grep -o '[0-9]*'; }
base=$(printf '%s\n' "$(rate best)" "$(rate best2)" | sort -n | tail -1); U=""; top=$base
for u in 1 2 4 3; do r=$(rate u$u); [ -n "$r" ] && [ $(( r * 100 )) -gt $(( top * 101 )) ] && { U=",dw-row-unroll=$u"; top=$r; }; done
log "controls $(rate best) $(rate best2); unroll picked: '${U}' ($top)"
v best-128 128 "$B"; [ -n "$U" ] && v unroll-128 128 "$B$U"
v best-512 512 "$B"; [ -n "$U" ] && v unroll-512 512 "$B$U"
v best-256 256 "$B"; [ -n "$U" ] && v unroll-256 256 "$B$U"
[ $(( LIMIT - SECONDS )) -ge 240 ] && torch11 128,256,512 || log "torch skipped (time)"
[ -n "$U" ] && { v unroll-128b 128 "$B$U"; v best-128b 128 "$B"; }
profkeep bnsums "$B$U,bn-sums=triton"
# The optimized HLO of the best options at 128 (a compile of its own: another executable cache), for the names
# and shapes of the loop_convert_fusions (0.8 ms a step in run61's profiles).
if [ $SECONDS -lt $(( LIMIT - 60 )) ]; then
  TRAINOPT_EXECUTABLE_CACHE=/tmp/exe-dump XLA_FLAGS="$XLA_FLAGS --xla_dump_to=/tmp/dump --xla_dump_hlo_as_text" timeout $(( LIMIT - SECONDS - 10 )) \
    /tmp/trainopt ladder -steps 12 -batches 128 -warmup 2 -timed 2 -k 50 -model $P$B -out $W/go/dump > $W/go/dump.log 2>&1
  log "dump rc=$? $(ls /tmp/dump | wc -l) files"
  mkdir -p $W/hlo; for f in $(ls -S /tmp/dump/*after_optimizations.txt | head -2); do gzip -c $f > $W/hlo/$(basename $f).gz; done
fi
log "end"
