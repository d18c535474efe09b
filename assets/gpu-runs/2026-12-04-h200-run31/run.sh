#!/bin/bash
# Device call run31 (session 9): issue 15, the two levers that won in run30 (K = 50 steps per Execute: 12@128
# 10451-10571 -> 10988 samples/s; batch-norm rows of 256: 10725) together, at 128, 256 and 512, with K = 100 at 128
# and a control at each batch, every configuration in a process of its own. Warm autotune cache (run26's); warm-up 5
# + 100 timed steps (60 at 512).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; chmod +x /tmp/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w31; mkdir -p $W/go /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run31.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
v() { # name, batch, timed, extra trainopt args
  [ $SECONDS -lt 200 ] || { log "$1 skipped (time)"; return; }
  timeout 50 /tmp/trainopt ladder -steps 12 -batches $2 -warmup 5 -timed $3 $4 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [$4] rc=$? $(sps $W/go/$1.log)"
}
log "start $(date -u +%FT%TZ)"
v c128 128 100 ""
v both128 128 100 "-k 50 -model reduction-row=256"
v k100-128 128 100 "-k 100 -model reduction-row=256"
v c256 256 100 ""
v both256 256 100 "-k 50 -model reduction-row=256"
v c512 512 60 ""
v both512 512 60 "-k 50 -model reduction-row=256"
