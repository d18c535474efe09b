#!/bin/bash
# Device call run39 (session 11): issue 15, batch 128. Where the per-Execute cost goes: run30 put K = 10 at 12.15 ms
# and K = 50 at 11.63 ms a step, which a fixed cost per Execute would make ~6.5 ms — far more than a host turnaround.
# Suspect: the command buffers (CUDA graphs) inside the K-step loop are updated when the donated parameters and
# the temporaries get new addresses at each Execute. Variants: command buffers off; update modes SKIP_TEMP and
# SKIP_PROFILED (fixed virtual addresses); the while loop double-buffered; K = 10 and 200. 12@128 with run36's
# options, every configuration in a process of its own.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w39; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run39.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
v() { # name, K, timed calls, extra XLA flags
  [ $SECONDS -lt 480 ] || { log "$1 skipped (time)"; return; }
  XLA_FLAGS="$XLA_FLAGS $4" timeout 80 /tmp/trainopt ladder -steps 12 -batches 128 -warmup 50 -timed $3 -k $2 \
    -model reduction-row=256,stem=patches -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [k=$2 $4] rc=$? $(sps $W/go/$1.log)"
}
log "start $(date -u +%FT%TZ)"
v ctl 50 400 ""
v nocb 50 400 "--xla_gpu_enable_command_buffer="
v skiptemp 50 400 "--xla_gpu_command_buffer_update_mode=SKIP_TEMP"
v skipprof 50 400 "--xla_gpu_command_buffer_update_mode=SKIP_PROFILED"
v dbuf 50 400 "--xla_gpu_enable_while_loop_unrolling=WHILE_LOOP_UNROLLING_DOUBLE_BUFFER"
v k10 10 400 ""
v k10nocb 10 400 "--xla_gpu_enable_command_buffer="
v k200 200 400 ""
v ctl2 50 400 ""
