#!/bin/bash
# Device call run43 (session 11): issue 15, batch 128. -model bn-sums=joint (tutorial/mobilenet/batchnorm.go):
# batch norm's forward sums Σx and Σx² as explicit partial sums per group of rows, then one small reduction over
# both, where XLA's own split gives each sum its own second-stage kernel (~150 of the step's small kernels are
# batch norm's second stages). 12@128 with run36's options with and without it, alternated, then 512.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w43; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run43.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
P=reduction-row=256,stem=patches
v() { # name, batch, -model value
  [ $SECONDS -lt 165 ] || { log "$1 skipped (time)"; return; }
  timeout 60 /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 300 -k 50 -model $3 -out $W/go/$1 \
    > $W/go/$1.log 2>&1
  log "$1 [b=$2 $3] rc=$? $(sps $W/go/$1.log)"
}
log "start $(date -u +%FT%TZ)"
v ctl128 128 $P
v joint128 128 $P,bn-sums=joint
v ctl128b 128 $P
v joint128b 128 $P,bn-sums=joint
v joint512 512 $P,bn-sums=joint
v ctl512 512 $P
