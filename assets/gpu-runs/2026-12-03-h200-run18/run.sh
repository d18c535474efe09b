#!/bin/bash
# Device call run18 (session 5): run17 found ~11 s of each warm first call in cuDNN building execution plans for
# the depthwise convolutions (engines 5, 16, 19, runtime-compiled with NVRTC, 0.15-0.38 s each, 51 per step).
# Does excluding those engines (CUDNN_ERRATA_JSON_FILE) cut the first call, and what does it cost per step?
# P0: normal cache, 12@128 and 12@512 (control). P1: errata + cache without algos 5/16/19 (XLA tunes those convs
# again). P2: errata + P1's cache, warm. Same call, one process each.
cd "$(dirname "$0")/.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w18; mkdir -p $W /tmp/c0 /tmp/c1
cp gpu/cache/xla-autotune.pb /tmp/c0/
gpu/trainopt autotune -drop-cudnn-algos 5,16,19 -o /tmp/c1/xla-autotune.pb gpu/cache/xla-autotune.pb > $W/drop.txt 2>&1
cat > $W/errata.json <<'J'
{ "version": 1, "rules": [
  { "rule_id": "ConvFwd_eng5", "operation": "ConvFwd", "engine": 5, "knob": [], "cudnn_version_start": 8000, "cudnn_version_end": -1 },
  { "rule_id": "ConvBwdFilter_eng16", "operation": "ConvBwdFilter", "engine": 16, "knob": [], "cudnn_version_start": 8000, "cudnn_version_end": -1 },
  { "rule_id": "ConvBwdFilter_eng19", "operation": "ConvBwdFilter", "engine": 19, "knob": [], "cudnn_version_start": 8000, "cudnn_version_end": -1 }
]}
J
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/c1/xla-autotune.pb $W/errata-autotune.pb 2>/dev/null; gzip -f $W/*/*.log 2>/dev/null; tar czf $OUT/run18.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sum() { grep -h 'first call\|samples/s, step' $1 | sed 's/^ *//' | cut -c1-90 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ)"
p() { # p NAME CACHE TIMEOUT [errata]
  mkdir -p $W/$1
  env TRAINOPT_AUTOTUNE_CACHE=$2 ${4:+CUDNN_ERRATA_JSON_FILE=$W/errata.json} \
    timeout $3 gpu/trainopt ladder -steps 12 -batches 128,512 -warmup 5 -timed 50 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$? $(sum $W/$1/ladder.log)"
}
p p0 /tmp/c0/xla-autotune.pb 100
p p1 /tmp/c1/xla-autotune.pb 300 errata
p p2 /tmp/c1/xla-autotune.pb 100 errata
left=$((560 - SECONDS))
if [ $left -gt 60 ]; then
  mkdir -p $W/p3
  TRAINOPT_AUTOTUNE_CACHE=/tmp/c0/xla-autotune.pb timeout $left gpu/trainopt ladder -steps 13,14 -batches 512 -warmup 5 -timed 50 -out $W/p3 > $W/p3/ladder.log 2>&1
  log "p3 rc=$? $(sum $W/p3/ladder.log)"
fi
