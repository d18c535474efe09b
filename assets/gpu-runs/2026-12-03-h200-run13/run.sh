#!/bin/bash
# Device call run13 (session 4): the new formulations at batch 512 with the autotune cache of run11b.
# 1. mobilenet's test binary on XLA: every depthwise formulation against central differences.
# 2. steps 12-15 at 512 in one process; then experiments on top of step 15 (shifted forward, shifted dK, both)
#    and step 15 without step 13's float32 batch norm; each its own process.
# 3. a profile (with an HLO dump) of the fastest of them.
cd "$(dirname "$0")/.."
for f in gpu/*.gz; do gunzip -f "$f"; done
chmod +x gpu/trainopt gpu/mobilenet.test
. gpu/jax-cuda-env.sh
BASE="$XLA_FLAGS"
W=/tmp/w; mkdir -p $W /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() {
  cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null
  find $W -name '*.txt' -path '*dump*' ! -name '*after_optimizations.txt' -delete 2>/dev/null
  find $W -path '*dump*' -type f ! -name '*.txt' -delete 2>/dev/null
  tar czf $OUT/run13.tgz -C $W .
}
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
mkdir -p $W/test
(cd tutorial/mobilenet && timeout 150 ../../gpu/mobilenet.test -test.run 'TestDepthwiseGradients' -test.v > $W/test/depthwise.log 2>&1)
log "test rc=$? $(grep -c -- '--- PASS' $W/test/depthwise.log) pass $(grep -c -- '--- FAIL' $W/test/depthwise.log) fail"
L() { # L NAME TIMEOUT ARGS...: one ladder process
  n=$1; t=$2; shift 2; mkdir -p $W/$n
  timeout $t gpu/trainopt ladder -batches 512 -timed 60 -out $W/$n "$@" > $W/$n/ladder.log 2>&1
  log "$n rc=$? $(grep -h 'samples/s, step' $W/$n/ladder.log | sed 's/^ *//' | tr '\n' ';')"
}
L a 150 -steps 12,13,14,15
L fwd 70 -steps 15 -model dw-forward=shifted
L dk 70 -steps 15 -model dw-kernel-grad=shifted
L fwddk 70 -steps 15 -model dw-forward=shifted,dw-kernel-grad=shifted
L nobn32 70 -steps 12 -model dw-input-grad=shifted,stem-channels=8
best=$(python3 - $W <<'PY'
import json,glob,sys
best=(0,None,None)
for f in glob.glob(sys.argv[1]+'/*/h200-*.json'):
    d=json.load(open(f))
    for r in d.get('results',d.get('Results',[])):
        sps=r.get('samples_per_sec',0)
        if sps>best[0]: best=(sps,r.get('ID') or r.get('id'),r.get('formulation',''))
print(best[1], best[2])
PY
)
log "best: $best"
set -- $best
mkdir -p $W/profile
XLA_FLAGS="$BASE --xla_dump_to=$W/profile/dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=.*train_step.*" \
  timeout $((590 - SECONDS)) gpu/trainopt profile -step "$1" -batches 512 -capture 10 -out $W/profile \
  ${2:+-model "$2"} > $W/profile/profile.log 2>&1
log "profile rc=$?"
