#!/bin/bash
# Device call run34 (session 10): issue 15, the stem as a matrix product over patches (-model stem=patches,
# tutorial/mobilenet/stem.go) on top of run31's best (K = 50, batch-norm rows of 256), against the same without it,
# at 128, 256 and 512, every configuration in a process of its own (control / patches / control again at 128);
# then a kernel profile of 12@128 with patches and its optimized HLO, for the profile diff against run33's.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w34; mkdir -p $W/go $W/prof /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run34.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
BEST="-k 50"
v() { # name, batch, timed, -model value
  [ $SECONDS -lt 400 ] || { log "$1 skipped (time)"; return; }
  timeout 70 /tmp/trainopt ladder -steps 12 -batches $2 -warmup 5 -timed $3 $BEST -model $4 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [$4] rc=$? $(sps $W/go/$1.log)"
}
log "start $(date -u +%FT%TZ)"
v c128 128 100 reduction-row=256
v p128 128 100 reduction-row=256,stem=patches
v c128b 128 100 reduction-row=256
v p128b 128 100 reduction-row=256,stem=patches
v c256 256 100 reduction-row=256
v p256 256 100 reduction-row=256,stem=patches
v c512 512 60 reduction-row=256
v p512 512 60 reduction-row=256,stem=patches
XLA_FLAGS="$XLA_FLAGS --xla_dump_to=$W/dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=train_step.*" \
  timeout 100 /tmp/trainopt profile -step 12@128 $BEST -model reduction-row=256,stem=patches -warmup 5 -timed 50 \
  -capture 50 -out $W/prof > $W/go/profile.log 2>&1
log "profile rc=$? $(sps $W/go/profile.log)"
