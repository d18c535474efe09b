#!/bin/bash
# Device call run74 (prepared in session 29): three graph-level levers, each aimed at passes over a block's largest
# tensors, on top of mobilenet.FastestDepthwise (README.md: the estimates and where they come from):
#   G  bn-sums=gram: batch norm's forward sums of each expansion's output z from its input's Gram matrix and column
#      sums (a GEMM over x, a sixth of z) instead of a reduction over z;
#   D  expand-grad=distributed: the expansion's dx and dW as products over g and z, so dz is never written;
#   P  project-prologue=bn-relu6: the projection and its dW by Triton kernels that read the depthwise output y and
#      apply batch norm and ReLU6 as they load it, so a = ReLU6(batch norm(y)) is never written;
#   A  all three.
# First their float32 GPU tests; a lever whose test fails is not timed. Then ladder configurations of 400 timed
# steps: F, G, D, P, A at 512 and in the reverse order at 128, F once more at 512 (the spread of one configuration
# within the call), kernel profiles at 128 of F and A, then G, D and P, then G+D (B) at both batches if time is
# left. One binary: the options are -model keys. No PyTorch: run72 measures the claims on what this call adopts.
RUN=74 LIMIT=${LIMIT:-520}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer" # = mobilenet.FastestDepthwise
(cd tutorial/mobilenet && timeout 150 /tmp/mobilenet.test -test.run 'TestExpandGradMatchesAutodiff|TestGramSums|TestProjectionMatchesAutodiff' -test.v > $W/test/levers.log 2>&1)
log "levers test rc=$? $(grep -c '^    --- PASS' $W/test/levers.log) passed, $(grep -c -- '--- FAIL' $W/test/levers.log) failed"
passed() { grep -q "^--- PASS: $1 " $W/test/levers.log; }
G= D= PP= # each lever's key, left empty where its GPU test failed
passed TestGramSums && G=",bn-sums=gram"
passed TestExpandGradMatchesAutodiff && D=",expand-grad=distributed"
passed TestProjectionMatchesAutodiff && PP=",project-prologue=bn-relu6"
log "timed: gram=${G:+yes} distributed=${D:+yes} project=${PP:+yes}"
A="$F$G$D$PP"
export TO=120 # the new configurations' GEMMs are autotuned while they compile
v f-512 512 "$F"
[ -n "$G" ] && v g-512 512 "$F$G"; [ -n "$D" ] && v d-512 512 "$F$D"; [ -n "$PP" ] && v p-512 512 "$F$PP"
[ "$A" != "$F" ] && { v a-512 512 "$A"; v a-128 128 "$A"; }
[ -n "$PP" ] && v p-128 128 "$F$PP"; [ -n "$D" ] && v d-128 128 "$F$D"; [ -n "$G" ] && v g-128 128 "$F$G"
v f-128 128 "$F"
v f2-512 512 "$F"
profkeep f "$F"; [ "$A" != "$F" ] && profkeep a "$A"
[ -n "$G" ] && profkeep g "$F$G"; [ -n "$D" ] && profkeep d "$F$D"; [ -n "$PP" ] && profkeep p "$F$PP"
[ -n "$G" ] && [ -n "$D" ] && [ -n "$PP" ] && { v b-512 512 "$F$G$D"; v b-128 128 "$F$G$D"; }
log "end"
