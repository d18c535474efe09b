#!/bin/bash
# Device call run55 (session 16): issue 15, run54's winner — rows with dK at one image per program
# (TRAINOPT_DW_DK_IMAGES=1, since made the default) — at 128, 256 and 512, one process each, then PyTorch's step 11
# at the same batches in the same call, for target 1's ratio.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-340}
W=/tmp/w55; mkdir -p $W/go $W/torch /tmp/trainopt-cache
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)
case "$GPU" in *H100*) cp assets/gpu-runs/2026-12-05-h100-run50/xla-autotune.pb /tmp/trainopt-cache/ ;;
  *) cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/ ;; esac
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe PYTHONUNBUFFERED=1
export TRAINOPT_DW_DK_IMAGES=1
finish() { gzip -f $W/go/*.log; nvidia-smi > $W/nvidia-smi.txt 2>&1; tar czf $OUT/run55.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | sed 's/^step [^:]*:/:/' | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $GPU"
M=reduction-row=256,stem=patches,dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows
for b in 128 256 512; do
  timeout 70 /tmp/trainopt ladder -steps 12 -batches $b -warmup 50 -timed 400 -k 50 -model $M -out $W/go/best-$b > $W/go/best-$b.log 2>&1
  log "best-$b [$M dkimages=1] rc=$? $(sps $W/go/best-$b.log)"
done
timeout $(( LIMIT - SECONDS )) python3 -u anchors/torch_ladder.py --only 11 --step10-batches 128,512,256 --cudnn-benchmark \
  --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
