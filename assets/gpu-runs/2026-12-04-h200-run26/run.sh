#!/bin/bash
# Device call run26 (session 8): issue 14's canonical measurement, again — run25 ran out of its 10 minutes before
# 13@512 and 14@512. The whole ladder in one process (rungs 1-8 at their batch, 9-14 at 128, 256 and 512), now
# loading run25's executable cache (the compile is skipped; the first execution's cuDNN plans are not) and
# profiling every rung after its timed window (ladder -profile: 3 steps, or one call of K=10 steps, per capture).
# Autotune cache: run25's. Warm-up 2, 30 timed steps per rung.
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w26; E=/tmp/trainopt-exe; mkdir -p $W/go $W/profiles /tmp/trainopt-cache
cat gpu/exe/exe-part* | tar xzf - -C /tmp
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=$E
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() {
  cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; ls -la $E > $W/exe-cache-ls.txt 2>&1
  gzip -f $W/go/*.log; rm -rf $W/profiles/*-256/plugins $W/profiles/*-512/plugins  # raw XSpace: rungs at 128 only
  du -sh $W/profiles/* > $W/profiles-du.txt 2>&1
  tar czf $OUT/run26.tgz -C $W --exclude profiles . ; tar cf - -C $W profiles | gzip | split -b 15m -d - $OUT/profiles-part
}
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ); executable cache: $(ls $E | wc -l) files"
timeout $((570 - SECONDS)) gpu/trainopt ladder -steps all -batches 128,256,512 -warmup 2 -timed 30 -out $W/go \
  -profile $W/profiles -capture 3 > $W/go/ladder.log 2>&1
log "ladder rc=$? $(grep -o 'step [0-9a-z@]*: [0-9]* samples/s' $W/go/ladder.log | sed 's/step //; s/ samples.s//' | tr '\n' ';')"
