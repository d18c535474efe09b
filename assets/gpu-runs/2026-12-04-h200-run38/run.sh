#!/bin/bash
# Device call run38 (session 11): issue 15, batch 128. XLA's command-buffer scheduling modes: CONCURRENT and
# CONCURRENT_REGIONS let independent kernels of a CUDA graph overlap (the default, LHS, follows the latency-hiding
# schedule, which has nothing to overlap on one GPU). At 128 many kernels fill a fraction of the 132 SMs, so
# overlap could recover part of the 86 vs 70.5 µs per image against 512. Convolutions (cuDNN's depthwise kernels)
# are outside command buffers by default (category CONVOLUTION is off), so each splits a graph: the variants add
# it, and WHILE (the K-step loop). 12@128 with run36's options, every configuration in a process of its own.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w38; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run38.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
B=${B:-128}
v() { # name, extra XLA flags
  [ $SECONDS -lt 480 ] || { log "$1 skipped (time)"; return; }
  XLA_FLAGS="$XLA_FLAGS $2" timeout 80 /tmp/trainopt ladder -steps 12 -batches $B -warmup 5 -timed 100 -k 50 \
    -model reduction-row=256,stem=patches -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [$2] rc=$? $(sps $W/go/$1.log)"
}
ALL=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,CUDNN,DYNAMIC_SLICE_FUSION,CONDITIONAL
log "start $(date -u +%FT%TZ)"
v ctl ""
v conc "--xla_gpu_command_buffer_scheduling_mode=CONCURRENT"
v regions "--xla_gpu_command_buffer_scheduling_mode=CONCURRENT_REGIONS"
v conv "--xla_gpu_enable_command_buffer=$ALL,CONVOLUTION --xla_gpu_graph_min_graph_size=1"
v convconc "--xla_gpu_enable_command_buffer=$ALL,CONVOLUTION --xla_gpu_graph_min_graph_size=1 --xla_gpu_command_buffer_scheduling_mode=CONCURRENT"
v whileconc "--xla_gpu_enable_command_buffer=$ALL,CONVOLUTION,WHILE --xla_gpu_graph_min_graph_size=1 --xla_gpu_command_buffer_scheduling_mode=CONCURRENT"
v region0 "--xla_gpu_graph_enable_concurrent_region=true"
v ctl2 ""
v lhsconc "--xla_gpu_enable_latency_hiding_scheduler=true --xla_gpu_command_buffer_scheduling_mode=CONCURRENT"
