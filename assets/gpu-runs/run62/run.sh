#!/bin/bash
# Device call run62 (prepared in session 20, not yet run): target 1 of issue 15 with the best options as of run61
# (the row kernels with dw-forward=triton-stats) beside PyTorch's step 11 at 128, 256 and 512 in one call — on the
# card the pool lends, an H200 wanted (the row kernels have never run on one) — then bn-sums=triton with whole-row
# tiles for C = 144 and 160 (changed after run61, where blocks of 16 channels read 1.0–1.1 TB/s) as kernel profiles.
RUN=62 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
B=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
v best-128 128 "$B"; v best-256 256 "$B"; v best-512 512 "$B"
torch11 128,256,512
profkeep best "$B"
profkeep bnsums "$B,bn-sums=triton"
v best-128b 128 "$B"; v bnsums-128 128 "$B,bn-sums=triton"
