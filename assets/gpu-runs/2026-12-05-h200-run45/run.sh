#!/bin/bash
# Device call run45 (session 12): issue 15, the custom-kernel route in Go. (1) The mobilenet test binary checks the
# three Triton depthwise kernels (tutorial/mobilenet/depthwise_triton.go, called through XLA's
# "__gpu$xla.gpu.triton" custom call by tutorial/triton) against the float64 reference on the GPU. (2) Rung 12 with
# run36's options at 128 and 512 (at 512 without the strided-only dx): the default depthwise formulation, then dx by Triton on strided layers only, all three kernels by Triton, and the forward kernel that also writes batch
# norm's sums with dx by Triton on strided layers. Autotune cache: run26's (warm on the H200; an H100 fills it in the
# first process).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/mobilenet.test.gz > /tmp/mobilenet.test; chmod +x /tmp/trainopt /tmp/mobilenet.test
. gpu/jax-cuda-env.sh
W=/tmp/w45; mkdir -p $W/go $W/test /tmp/trainopt-cache
cp assets/gpu-runs/2026-12-04-h200-run26/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log; tar czf $OUT/run45.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
(cd tutorial/mobilenet && timeout 150 /tmp/mobilenet.test -test.run 'TestDepthwiseTriton' -test.v > $W/test/triton.log 2>&1)
log "test rc=$? $(grep -E '^(\s*--- |ok|FAIL|PASS)|relative error|panic|Error|error' $W/test/triton.log | head -30 | tr '\n' ';')"
P=reduction-row=256,stem=patches
v() { # name, batch, extra formulation
  timeout $(( 170 < 585 - SECONDS ? 170 : 585 - SECONDS )) /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go > $W/go/$1.log 2>&1
  log "$1 [b=$2 $P$3] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*' $W/go/$1.log | head -1 | cut -c1-600)"
}
v base-128 128 ""
v dxs-128 128 ",dw-input-grad=triton-strided"
v all-128 128 ",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
v stats-128 128 ",dw-forward=triton-stats,dw-input-grad=triton-strided"
v base-512 512 ""
v stats-512 512 ",dw-forward=triton-stats,dw-input-grad=triton-strided"
v all-512 512 ",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
