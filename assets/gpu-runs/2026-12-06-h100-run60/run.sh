#!/bin/bash
# Device call run60 (session 18): target 1 on the card the pool lends (the issue asks for the H200): the best
# options (run59's, space-to-depth stem) at 128, 256 and 512 beside PyTorch's step 11 at the same batches, in one
# call; then a second Go sample at 128 and 512 if time is left.
RUN=60 LIMIT=${LIMIT:-560}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
v best-128 128 "$T"; v best-256 256 "$T"; v best-512 512 "$T"
torch11 128,256,512
v best-128b 128 "$T"; v best-512b 512 "$T"
