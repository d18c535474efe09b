#!/bin/bash
# Device call run51 (session 15): issue 15 at batch 128 - batch norm fused into the depthwise kernels' loads.
# -model dw-prologue=bn-relu6 (new): the Triton forward and dK kernels read each block's expanded activation z
# before its batch norm and ReLU6 and apply both as they load it, so the normalised activation (the largest tensor
# of each block) is neither written nor read back. -model dw-prologue=bn-relu6-backward (new) also starts that batch
# norm's backward pass in the dx kernel (gate by ReLU6's gradient, sums for the batch-norm gradient), leaving one
# elementwise pass for dz. (1) The mobilenet test binary checks both against the float64 definition and against
# autodiff (TestBNPrologueMatchesReference, TestBNBackwardMatchesAutodiff) beside the existing Triton tests.
# (2) Rung 12 with run36's options and all three depthwise kernels by Triton (the control), and the same with each
# prologue, alternating, one process each, at 128 and 512. (3) Kernel profiles of control and backward at 128.
# Warm autotune cache: run48's (H200) or run50's (H100), by the card the call got.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/mobilenet.test.gz > /tmp/mobilenet.test; chmod +x /tmp/trainopt /tmp/mobilenet.test
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-560}
W=/tmp/w51; mkdir -p $W/go $W/test $W/prof-base $W/prof-back /tmp/trainopt-cache
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)
case "$GPU" in *H100*) cp assets/gpu-runs/2026-12-05-h100-run50/xla-autotune.pb /tmp/trainopt-cache/ ;;
  *) cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/ ;; esac
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log $W/test/*.log; tar czf $OUT/run51.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $GPU"
(cd tutorial/mobilenet && timeout 120 /tmp/mobilenet.test -test.run 'TestDepthwiseTriton|TestBNPrologue|TestBNBackward' -test.v > $W/test/triton.log 2>&1)
log "test rc=$? $(grep -E '^(\s*--- |ok|FAIL|PASS)|relative error|panic|rror' $W/test/triton.log | head -30 | tr '\n' ';' | cut -c1-3000)"
P=reduction-row=256,stem=patches
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
B=",dw-prologue=bn-relu6"
v() { # name, batch, extra formulation
  local left=$(( LIMIT - SECONDS )); [ $left -lt 40 ] && { log "$1 skipped (time)"; return; }
  local cap=${TO:-80}
  timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [b=$2 $P$3] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*\|panic.*\|rror.*' $W/go/$1.log | head -1 | cut -c1-800)"
}
BB=",dw-prologue=bn-relu6-backward"
TO=150 v base-a 128 "$T"
TO=120 v pro-a 128 "$T$B"
TO=120 v back-a 128 "$T$BB"
v base-b 128 "$T"
v pro-b 128 "$T$B"
v back-b 128 "$T$BB"
TO=120 v base512-a 512 "$T"
TO=120 v pro512-a 512 "$T$B"
TO=120 v back512-a 512 "$T$BB"
for p in base back; do
  M="$T"; [ $p = back ] && M="$T$BB"
  [ $SECONDS -lt $(( LIMIT - 60 )) ] && timeout 60 /tmp/trainopt profile -step 12@128 -k 50 -model $P$M -warmup 50 -timed 50 -capture 50 -out $W/prof-$p > $W/go/profile-$p.log 2>&1
  log "profile-$p rc=$? $(sps $W/go/profile-$p.log)"
done
v back-c 128 "$T$BB"
v base-c 128 "$T"
