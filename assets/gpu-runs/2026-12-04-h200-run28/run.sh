#!/bin/bash
# Device call run28 (session 9): issue 14's "the notebooks' code runs on a GPU". cellrun (notebooks/cellrun, the
# notebooks' code cells generated into one Go program, built on the Debian machine) runs every cell of 00-08 on the
# H200, each in a process of its own as GoNB does; -compare sets what the cells measured beside the canonical file
# (run26). Like run26: warm autotune cache (run26's), 2 warm-up + 30 timed steps, and fast start off so the figures
# compare with run26's (the notebooks' own default is fast start). Then, in the time left, PyTorch's steps 7-9
# (torch_ladder.py) beside the Go rungs 7-9 the cells measured in this call.
cd "$(dirname "$0")/../../.."
for b in trainopt cellrun; do gunzip -c gpu/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
. gpu/jax-cuda-env.sh
W=/tmp/w28; mkdir -p $W/nb $W/torch /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe \
  TRAINOPT_NB_RUNS=$W/nb TRAINOPT_NB_WARMUP=2 TRAINOPT_NB_TIMED=30 TRAINOPT_FAST_START=off TRAINOPT_NO_DOWNLOAD=1 \
  PYTHONUNBUFFERED=1
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() {
  /tmp/cellrun -compare $W/nb/*.json > $W/compare.md 2>&1
  gzip -f $W/cells.log; tar czf $OUT/run28.tgz -C $W .
}
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
log "start $(date -u +%FT%TZ)"
# The XLA GPU flags this plugin knows (for issue 15's levers).
python3 -c "import re,sys; d=open(sys.argv[1],'rb').read(); print('\n'.join(sorted(set(m.decode() for m in re.findall(rb'xla_gpu_[a-z0-9_]+', d)))))" \
  "${GOMLX_BACKEND#xla:}" > $W/plugin-xla-gpu-flags.txt 2>&1
timeout $((470 - SECONDS)) /tmp/cellrun > $W/cells.log 2>&1
log "cells rc=$? $(grep -c ' ok$' $W/cells.log) ok, $(grep -c 'FAILED' $W/cells.log) failed"
timeout $((575 - SECONDS)) python3 -u anchors/torch_ladder.py --only 7,8,9 --steps 40 --warmup 5 > $W/torch/steps7-9.jsonl 2> $W/torch/steps7-9.err
log "torch 7-9 rc=$? $(grep -o '"step": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/steps7-9.jsonl | tr '\n' ' ')"
