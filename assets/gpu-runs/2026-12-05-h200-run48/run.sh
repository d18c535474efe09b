#!/bin/bash
# Device call run48 (session 14): issue 15 target 3 - which fast start. Today TRAINOPT_FAST_START=on (the notebooks'
# default) adds cuDNN conv fusion: first execution ~1-2 s, step 2.6% (run47) to 13% (run23) slower at rung 12 and
# 30-58% at rungs 5-9. run45/run47: the three depthwise kernels by Triton remove the run-time cuDNN plans too
# (first execution 0.9-1.0 s) at the control's step at 128 and -4% at 512. This call puts the two beside each other
# as the notebooks run them (the ladder's default options: K = 10, rows of 1024), each configuration a process of
# its own: "a" with a cold executable cache, "b" loading what "a" wrote (the warm first call a notebook cell sees):
# rung 12 at 128 and 512 and rung 8 (float16 with loss scaling, batch 128), each with a control (default mode).
# run26's autotune cache (conv fusion's fused graphs get autotuned by the first process that has them).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-560} # seconds for the whole call
W=/tmp/w48; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run48.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
T="dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
v() { # name, step, batch, mode: control | triton | fusion
  local left=$(( LIMIT - SECONDS )); [ $left -lt 35 ] && { log "$1 skipped (time)"; return; }
  local cap=${TO:-90} model="" fast=off
  case $4 in triton) model="-model $T";; fusion) fast=on;; esac
  TRAINOPT_FAST_START=$fast timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder -steps $2 -batches $3 -warmup 20 -timed 200 $model -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [step $2 b=$3 $4] rc=$? $(sps $W/go/$1.log) $(grep "^| $2 " $W/go/$1.log | head -1 | cut -c1-400) $(grep -o 'FAILED.*\|panic.*' $W/go/$1.log | head -1 | cut -c1-300)"
}
# On a GPU other than the H200 run26's cache is foreign: the first process autotunes the whole step (~100 s).
TO=200 v c128-a 12 128 control
v t128-a 12 128 triton
v f128-a 12 128 fusion
v t128-b 12 128 triton
v f128-b 12 128 fusion
v c128-b 12 128 control
v t512-a 12 512 triton
v f512-a 12 512 fusion
v c512-a 12 512 control
v t512-b 12 512 triton
v f512-b 12 512 fusion
v c8-a 8 128 control
v t8-a 8 128 triton
v f8-a 8 128 fusion
v t8-b 8 128 triton
v f8-b 8 128 fusion
