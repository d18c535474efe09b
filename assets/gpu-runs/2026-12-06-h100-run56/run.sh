#!/bin/bash
# Device call run56 (session 17): issue 15 on whatever card the pool lends (the issue asks for the H200).
# First the GPU tests of the depthwise kernels (session 16's refactor 1de0fda/da7db43 never ran on a GPU), then
# the best configuration (row kernels + batch-norm prologue) at 128/256/512 beside the gather kernels at 128, a
# kernel profile at 128, and PyTorch's step 11 at the same batches in the same call, for target 1's ratio.
RUN=56 LIMIT=${LIMIT:-520}
. "$(dirname "$0")/../lib.sh"
(cd tutorial/mobilenet && timeout 200 /tmp/mobilenet.test -test.run 'TestDepthwiseTriton|TestBNPrologue|TestBNBackward' -test.v > $W/test/triton.log 2>&1)
log "test rc=$? $(grep -E '^(--- |ok|FAIL|PASS)|--- FAIL|relative error|panic|rror' $W/test/triton.log | head -30 | tr '\n' ';' | cut -c1-3000)"
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward"
v rows-128a 128 "$T,dw-tiling=rows"
v gather-128 128 "$T"
v rows-256 256 "$T,dw-tiling=rows"
v rows-512 512 "$T,dw-tiling=rows"
v rows-128b 128 "$T,dw-tiling=rows"
prof rows "$T,dw-tiling=rows"
torch11 128,512,256
# Fast-start mode as the notebooks run it (ladder defaults, TRAINOPT_FAST_START=on), now with the row kernels and
# batch norm's prologue (mobilenet.FastestDepthwise): "a" fills the executable cache, "b" loads it.
fast() { # name, batch, mode (default on)
  [ $SECONDS -lt $(( LIMIT - 45 )) ] || { log "$1 skipped (time)"; return; }
  TRAINOPT_FAST_START=${3:-on} timeout 60 /tmp/trainopt ladder -steps 12 -batches $2 -warmup 20 -timed 200 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 rc=$? $(grep -o 'first call [0-9.]*s[^;]*\|[0-9]* samples/s' $W/go/$1.log | tr '\n' ';')"
}
fast fast-128a 128; fast fast-128b 128; fast default-128 128 off; fast fast-512a 512; fast fast-512b 512
# The optimized HLO of the same step (no executable cache, so XLA compiles and dumps it): names the XLA fusions
# the profile lists (loop_convert_fusion, loop_concatenate_fusion, input_reduce_fusion_79) by what they compute.
XLA_FLAGS="$XLA_FLAGS --xla_dump_to=/tmp/hlo56 --xla_dump_hlo_as_text" TRAINOPT_EXECUTABLE_CACHE=off \
  timeout 90 /tmp/trainopt ladder -steps 12 -batches 128 -warmup 5 -timed 20 -k 50 -model $P$T,dw-tiling=rows \
  -out $W/go/dump > $W/go/dump.log 2>&1
log "dump rc=$? $(ls /tmp/hlo56 | wc -l) files"
mkdir -p $W/hlo; for f in /tmp/hlo56/*after_optimizations.txt; do [ $(stat -c %s "$f") -gt 20000 ] && gzip -c "$f" > $W/hlo/$(basename "$f").gz; done
