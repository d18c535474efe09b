#!/bin/bash
# Device call run59 (session 17): run58's winner, the space-to-depth stem, in the best configuration at 128, 256 and
# 512 beside PyTorch's step 11 in one call (target 1's ratio with the new stem).
RUN=59 LIMIT=${LIMIT:-330}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
v best-128 128 "$T"; v best-256 256 "$T"; v best-512 512 "$T"
torch11 128,512,256
