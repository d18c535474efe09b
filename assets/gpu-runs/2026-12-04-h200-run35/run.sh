#!/bin/bash
# Device call run35 (session 10): issue 15. On top of run31's best (K = 50, batch-norm rows of 256) and run34's
# stem as patches: (1) the device resize with widths first and heights last (tutorial/train/input.go), against the
# binary with the old order (trainopt-oldresize); (2) the strided depthwise layers' input gradient as phase
# products (-model dw-input-grad=phase-products). 128 and 512, every configuration in a process of its own,
# alternated; then a kernel profile of the last winner at 128 with its optimized HLO.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/trainopt-oldresize.gz > /tmp/trainopt-old; chmod +x /tmp/trainopt*
. gpu/jax-cuda-env.sh
W=/tmp/w35; mkdir -p $W/go $W/prof /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run35.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
v() { # name, binary, batch, timed, -model value
  [ $SECONDS -lt 420 ] || { log "$1 skipped (time)"; return; }
  timeout 70 $2 ladder -steps 12 -batches $3 -warmup 5 -timed $4 -k 50 -model $5 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [$2 $5] rc=$? $(sps $W/go/$1.log)"
}
P=reduction-row=256,stem=patches
log "start $(date -u +%FT%TZ)"
v old128 /tmp/trainopt-old 128 100 $P
v new128 /tmp/trainopt 128 100 $P
v pp128 /tmp/trainopt 128 100 $P,dw-input-grad=phase-products
v old128b /tmp/trainopt-old 128 100 $P
v new128b /tmp/trainopt 128 100 $P
v pp128b /tmp/trainopt 128 100 $P,dw-input-grad=phase-products
v conv128 /tmp/trainopt 128 100 reduction-row=256
v old512 /tmp/trainopt-old 512 60 $P
v new512 /tmp/trainopt 512 60 $P
v pp512 /tmp/trainopt 512 60 $P,dw-input-grad=phase-products
XLA_FLAGS="$XLA_FLAGS --xla_dump_to=$W/dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=train_step.*" \
  timeout 100 /tmp/trainopt profile -step 12@128 -k 50 -model $P,dw-input-grad=phase-products -warmup 5 -timed 50 \
  -capture 50 -out $W/prof > $W/go/profile.log 2>&1
log "profile rc=$? $(sps $W/go/profile.log)"
