#!/bin/bash
# Device call run47 (session 13): issue 15 at batch 128 - a step with no cuDNN call in it. run45: all three depthwise
# kernels by Triton ran at the control's speed (11424 vs 11300) and cut the first execution 17.1 -> 1.0 s. What is
# left of cuDNN is the 34 pointwise (1x1) convolutions; -model pointwise=dot (new) writes them as matrix products
# (cuBLAS or XLA's GEMM kernels). With no cuDNN call, XLA's command buffers (CUDA graphs) could take the whole
# K-step While loop (run38: cuDNN's calls cannot be traced into a graph, so they split every graph, and WHILE failed).
# Variants at 128, each process on its own, as the session's device time allows (failed starts took a third of it):
# control; all-Triton + pointwise=dot; the same with WHILE command buffers; pointwise=dot alone; the control and
# both all-Triton+dot variants again (warm executable cache: the warm first call); all-Triton alone; fast-start mode
# (conv fusion); a kernel profile of all-Triton + dot; steps 1-2 with it (float32 and the first mixed-precision
# rung, batch 32).
# Rung 12 with run36's options, warm autotune cache (run26's; the GEMMs of pointwise=dot get autotuned in the
# first process that has them). The first process may autotune the whole step on a GPU other than the H200.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-470} # seconds for the whole call
W=/tmp/w47; mkdir -p $W/go $W/prof /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null; tar czf $OUT/run47.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
P=reduction-row=256,stem=patches
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
D=",pointwise=dot"
CB="--xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,WHILE,CONDITIONAL --xla_gpu_graph_min_graph_size=1"
v() { # name, batch, extra formulation, [extra XLA flags]
  local left=$(( LIMIT - SECONDS )); [ $left -lt 40 ] && { log "$1 skipped (time)"; return; }
  local cap=${TO:-100}
  XLA_FLAGS="$XLA_FLAGS $4" timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [b=$2 $P$3 fast=${TRAINOPT_FAST_START:-off} $4] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*\|panic.*' $W/go/$1.log | head -1 | cut -c1-600)"
}
# On an H100 run26's cache is foreign: the first process autotunes the whole step (~100 s), the second the GEMMs.
TO=240 v base-a 128 ""
TO=150 v alldot-a 128 "$T$D"
v alldotcb-a 128 "$T$D" "$CB"
v dot-a 128 "$D"
v base-b 128 ""
v alldotcb-b 128 "$T$D" "$CB"
v alldot-b 128 "$T$D"
v all-a 128 "$T"
TRAINOPT_FAST_START=on v fast-a 128 ""
[ $SECONDS -lt $(( LIMIT - 70 )) ] && timeout 70 /tmp/trainopt profile -step 12@128 -k 50 -model $P$T$D -warmup 50 -timed 50 -capture 50 -out $W/prof > $W/go/profile.log 2>&1
log "profile rc=$? $(sps $W/go/profile.log)"
[ $SECONDS -lt $(( LIMIT - 30 )) ] && timeout 30 /tmp/trainopt ladder -steps 1,2 -warmup 10 -timed 100 -model ${T#,}$D -out $W/go/early > $W/go/early.log 2>&1
log "early rc=$? $(sps $W/go/early.log) $(grep -o 'FAILED.*\|panic.*' $W/go/early.log | head -1 | cut -c1-600)"
