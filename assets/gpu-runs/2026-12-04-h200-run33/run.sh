#!/bin/bash
# Device call run33 (session 10): issue 15, where the 128 step's kernel time goes. (1) The optimized HLO of
# 12@128 with K = 50 and rows of 256 (run31's best), dumped by XLA in the same process as a kernel profile of it, so
# the profile's fusion names (loop_convert_fusion_18, loop_add_fusion_7, …) can be read as HLO. (2) XLA's
# experimental fusion levers on that configuration, each in a process of its own beside a control.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w33; mkdir -p $W/go $W/prof /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run33.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
BEST="-k 50 -model reduction-row=256"
log "start $(date -u +%FT%TZ)"
XLA_FLAGS="$XLA_FLAGS --xla_dump_to=$W/dump --xla_dump_hlo_as_text" timeout 120 /tmp/trainopt profile -step 12@128 \
  $BEST -warmup 5 -timed 50 -capture 50 -out $W/prof > $W/go/profile.log 2>&1
log "profile rc=$? $(sps $W/go/profile.log)"
# keep only the training program's optimized HLO and its buffer assignment (the dump also has init/eval programs)
ls -la $W/dump > $W/dump-ls.txt 2>&1
v() { # name, extra XLA flags
  [ $SECONDS -lt 420 ] || { log "$1 skipped (time)"; return; }
  XLA_FLAGS="$XLA_FLAGS $2" timeout 70 /tmp/trainopt ladder -steps 12 -batches 128 -warmup 5 -timed 100 $BEST \
    -out $W/go > $W/go/$1.log 2>&1
  log "$1 [$2] rc=$? $(sps $W/go/$1.log)"
}
v control ""
v blocklevel "--xla_gpu_experimental_enable_fusion_block_level_rewriter=true"
v heroless "--xla_gpu_experimental_enable_triton_heroless_priority_fusion=true"
v fusionautotune "--xla_gpu_experimental_enable_fusion_autotuner=true"
v alltriton "--xla_gpu_experimental_all_fusions_with_triton=true"
v control2 ""
