#!/bin/bash
# Device call run46 (session 12): issue 15. run45 ran each configuration once: at 128 dx by Triton on strided layers
# was 1.7% above the control, and all three Triton kernels cut the first call 27.5 -> 10.5 s (no cuDNN plans to
# build in the first execution). This call runs the control and all-Triton at 128 twice each, interleaved
# (the session's device time left no room for more); the second process of each finds its executable in the executable cache (the warm first call).
# Rung 12 with run36's options, warm autotune cache (run26's).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w46; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run46.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
P=reduction-row=256,stem=patches
v() { # name, batch, extra formulation
  timeout $(( 60 < 190 - SECONDS ? 60 : 190 - SECONDS )) /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [b=$2 $P$3] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*' $W/go/$1.log | head -1 | cut -c1-600)"
}
v base-128a 128 ""
v all-128a 128 ",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
v base-128b 128 ""
v all-128b 128 ",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
