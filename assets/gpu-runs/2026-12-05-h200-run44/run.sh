#!/bin/bash
# Device call run44 (session 12): issue 15, the custom-kernel route. Hand-written Triton depthwise kernels
# (forward, input gradient, kernel gradient) for MobileNetV2's 17 depthwise layers against PyTorch's cuDNN at
# batch 128 and 512, then one kernel's TTIR through XLA's Triton custom call from JAX (dw_triton.py says why).
cd "$(dirname "$0")"
W=/tmp/w44; mkdir -p $W
. ../../../gpu/jax-cuda-env.sh 2>/dev/null
finish() { tar czf $OUT/run44.tgz -C $W .; }
trap finish EXIT
timeout 560 python3 -u dw_triton.py $W 128,512 > $W/dw_triton.log 2>&1
echo "rc=$? at ${SECONDS}s" >> $W/dw_triton.log
tail -40 $W/dw_triton.log
