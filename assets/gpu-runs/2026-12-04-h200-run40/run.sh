#!/bin/bash
# Device call run40 (session 11): issue 15, batch 128. The flat state (-model state=flat, tutorial/train/
# flatstate.go): the K-step loop carries parameters and momenta as one vector each, so that the SGD update is a
# few fused kernels instead of ~105 (XLA's horizontal fusion runs on the entry computation only). First the train
# package's test binary on the GPU (flat and per-tensor state train identically), then 12@128 with run36's
# options with and without it (alternated), K = 200, 512, and a kernel profile of the flat state at 128.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/train.test.gz > /tmp/train.test; chmod +x /tmp/trainopt /tmp/train.test
. gpu/jax-cuda-env.sh
W=/tmp/w40; mkdir -p $W/go $W/test $W/prof /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run40.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
(cd tutorial/train && timeout 120 /tmp/train.test -test.run 'TestFlatStateMatchesTensors' -test.v > $W/test/flat.log 2>&1)
log "test rc=$? $(grep -E '^(--- |ok|FAIL|PASS)|losses' $W/test/flat.log | tr '\n' ';')"
P=reduction-row=256,stem=patches
v() { # name, batch, K, -model value
  [ $SECONDS -lt 470 ] || { log "$1 skipped (time)"; return; }
  timeout 80 /tmp/trainopt ladder -steps 12 -batches $2 -warmup $3 -timed 400 -k $3 -model $4 -out $W/go/$1 \
    > $W/go/$1.log 2>&1
  log "$1 [b=$2 k=$3 $4] rc=$? $(sps $W/go/$1.log)"
}
log "start $(date -u +%FT%TZ)"
v ctl128 128 50 $P
v flat128 128 50 $P,state=flat
v ctl128b 128 50 $P
v flat128b 128 50 $P,state=flat
v flat128k200 128 200 $P,state=flat
v ctl512 512 50 $P
v flat512 512 50 $P,state=flat
[ $SECONDS -lt 480 ] && XLA_FLAGS="$XLA_FLAGS --xla_dump_to=$W/dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=train_step.*" \
  timeout 90 /tmp/trainopt profile -step 12@128 -k 50 -model $P,state=flat -warmup 50 -timed 50 -capture 50 \
  -out $W/prof > $W/go/profile.log 2>&1
log "profile rc=$? $(sps $W/go/profile.log)"
find $W/dump -name '*after_optimizations.txt' -exec gzip {} \; 2>/dev/null
find $W/dump -type f ! -name '*after_optimizations.txt.gz' -delete 2>/dev/null
