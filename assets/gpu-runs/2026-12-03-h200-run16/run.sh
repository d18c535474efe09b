#!/bin/bash
# Device call run16 (session 4): the ladder's new step 14 (8-channel stem) beside steps 12 and 13 at 512, 256, 128
# in one process, autotune cache of run14; a profile of 14@512 with what time is left.
cd "$(dirname "$0")/.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w16; mkdir -p $W/go $W/profile /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run16.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
timeout 250 gpu/trainopt ladder -steps 12,13,14 -batches 512,256,128 -timed 60 -out $W/go > $W/go/ladder.log 2>&1
log "go rc=$? $(grep -h 'samples/s, step' $W/go/ladder.log | sed 's/^ *//' | cut -c1-40 | tr '\n' ';')"
left=$((300 - SECONDS))
if [ $left -gt 35 ]; then
  timeout $left gpu/trainopt profile -step 14@512 -batches 512 -capture 10 -out $W/profile > $W/profile/profile.log 2>&1
  log "profile rc=$?"
fi
