#!/bin/bash
# Device call run30 (session 9): issue 15. (1) Go 12@512 in a process of its own, so its allocator peak is its own
# (run29's main job ran rungs 1-6 first in the same process). (2) Levers for batch 128, each 12@128 in a process of
# its own (XLA_FLAGS are read once per process): the plugin's XLA knows programmatic dependent launch
# (xla_gpu_enable_pdl*, listed in run28/plugin-xla-gpu-flags.txt) — the 12@128 profile shows ~0.6 ms per step of
# 1-4 us gaps between ~920 kernels — plus sibling multi-output fusion, command buffers on thunks and loop unrolling
# in command buffers, K = 50 steps per Execute, and batch-norm row widths 256 and 4096. A control at the start and
# the end gives the call's spread. Warm autotune cache (run26's); warm-up 5 + 100 timed steps.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w30; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
BASE="$XLA_FLAGS"
finish() { gzip -f $W/go/*.log; tar czf $OUT/run30.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ)"
timeout 60 /tmp/trainopt ladder -steps 12 -batches 512 -out $W/go > $W/go/512-own.log 2>&1
log "12@512 own process rc=$? $(sps $W/go/512-own.log)"
v() { # name, extra XLA flags, extra trainopt args
  [ $SECONDS -lt 540 ] || { log "$1 skipped (time)"; return; }
  XLA_FLAGS="$BASE $2" timeout 60 /tmp/trainopt ladder -steps 12 -batches 128 -warmup 5 -timed 100 $3 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [$2 $3] rc=$? $(sps $W/go/$1.log)"
}
v control ""
v pdl "--xla_gpu_enable_pdl=true"
v pdl-launch "--xla_gpu_enable_pdl=true --xla_gpu_enable_pdl_launch=true"
v sibling-mof "--xla_gpu_experimental_enable_same_shape_multi_output_fusion=true"
v cmdbuf-thunks "--xla_gpu_experimental_enable_command_buffer_on_thunks=true"
v cmdbuf-unroll "--xla_gpu_command_buffer_unroll_loops=true"
v k50 "" "-k 50"
v row4096 "" "-model reduction-row=4096"
v row256 "" "-model reduction-row=256"
v control2 ""
