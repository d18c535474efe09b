#!/bin/bash
# Device call run25 (session 8): issue 14's canonical measurement — the whole ladder in one process, rungs 1-8 at
# their batch and 9-14 at 128, 256 and 512 (warm autotune cache: run22's; warm-up 3, 40 timed steps per rung).
# The executable cache it fills comes back (exe-*.part) so the next calls' first calls skip the compile.
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w25; E=/tmp/trainopt-exe; mkdir -p $W/go /tmp/trainopt-cache $E
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=$E
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() {
  cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; ls -la $E > $W/exe-cache-ls.txt 2>&1
  gzip -f $W/go/*.log; tar czf $OUT/run25.tgz -C $W .
  tar cf - -C /tmp trainopt-exe | gzip -1 | split -b 15m -d - $OUT/exe-part
}
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
timeout $((575 - SECONDS)) gpu/trainopt ladder -steps all -batches 128,256,512 -warmup 3 -timed 40 -out $W/go > $W/go/ladder.log 2>&1
log "ladder rc=$? $(grep -o 'step [0-9a-z@]*: [0-9]* samples/s' $W/go/ladder.log | sed 's/step //; s/ samples.s//' | tr '\n' ';')"
