#!/bin/bash
# Device call run29 (session 9): issue 14's PyTorch steps 10-11 beside Go in one call, and issue 15's peak memory
# per batch. Go: the README's main job as a newcomer types it (`trainopt ladder`, now the seed rungs 1-6 and the best
# rung 12@512, with its time estimate printed first), then 12@128 and 12@256 each in a process of its own (so each
# allocator peak is that batch's). PyTorch: step 10 at 128/256/512 and step 11 (CUDA graphs + fused SGD, its
# strongest) at 512, then 128 and 256 in the time left (--cudnn-benchmark, as run27). Warm autotune cache (run26's).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w29; mkdir -p $W/go $W/torch /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe PYTHONUNBUFFERED=1
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { gzip -f $W/go/*.log; tar czf $OUT/run29.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@]*: [0-9]* samples/s' $1 | sed 's/step //; s/ samples.s//' | tr '\n' ';'; }
log "start $(date -u +%FT%TZ)"
timeout 200 /tmp/trainopt ladder -out $W/go > $W/go/main-job.log 2>&1
log "main job rc=$? $(sps $W/go/main-job.log)"
for b in 128 256; do
  timeout 60 /tmp/trainopt ladder -steps 12 -batches $b -out $W/go > $W/go/12-$b.log 2>&1
  log "12@$b rc=$? $(sps $W/go/12-$b.log)"
done
timeout 200 python3 -u anchors/torch_ladder.py --only 10 --step10-batches 128,256,512 --cudnn-benchmark --steps 40 > $W/torch/step10.jsonl 2> $W/torch/step10.err
log "torch 10 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step10.jsonl | tr '\n' ' ')"
timeout $((575 - SECONDS)) python3 -u anchors/torch_ladder.py --only 11 --step10-batches 512,128,256 --cudnn-benchmark --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
