#!/bin/bash
# Device call run54 (session 16): issue 15, the row kernels with dx by rows too. run53 (H100): forward and dK by
# rows took 0.46 ms a step off the Triton kernels at 128 (forward -0.21, dK -0.25) and bn-relu6-backward went
# 10405/10406/10551 -> 10854/10895/10886 samples/s; dx (the gather, with batch norm's gate and sums) was then the
# largest kernel group (1.81 ms a step). Now dx walks its rows too. (1) GPU tests of all three kernels in both
# tilings. (2) 128 and 512, one process each, alternating: bn-relu6-backward with gather vs rows, and two knobs of
# the row kernels: Triton's num_stages (TRAINOPT_DW_STAGES=2,3: loads of the next rows issued while the current one
# computes) and dK's images per program (TRAINOPT_DW_DK_IMAGES=1: more programs). (3) Profile of rows at 128.
# (4) PyTorch's step 11 at 128, 512 and 256 in the same call, for the ratio.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/mobilenet.test.gz > /tmp/mobilenet.test; chmod +x /tmp/trainopt /tmp/mobilenet.test
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-540}
W=/tmp/w54; mkdir -p $W/go $W/test /tmp/trainopt-cache
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)
case "$GPU" in *H100*) cp assets/gpu-runs/2026-12-05-h100-run50/xla-autotune.pb /tmp/trainopt-cache/ ;;
  *) cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/ ;; esac
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log $W/test/*.log; nvidia-smi > $W/nvidia-smi.txt 2>&1; tar czf $OUT/run54.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | sed 's/^step [^:]*:/:/' | tr '\n' ';'; }
log "start $(date -u +%FT%TZ) on $GPU"
(cd tutorial/mobilenet && timeout 200 /tmp/mobilenet.test -test.run 'TestDepthwiseTriton|TestBNPrologue|TestBNBackward' -test.v > $W/test/triton.log 2>&1)
log "test rc=$? $(grep -E '^(--- |ok|FAIL|PASS)|--- FAIL|relative error|panic|rror' $W/test/triton.log | head -30 | tr '\n' ';' | cut -c1-3000)"
P=reduction-row=256,stem=patches
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton"
BB=",dw-prologue=bn-relu6-backward"
R=",dw-tiling=rows"
v() { # name, batch, extra formulation (env: TO, and the knobs)
  local left=$(( LIMIT - SECONDS )); [ $left -lt 40 ] && { log "$1 skipped (time)"; return; }
  local cap=${TO:-80}
  timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [b=$2 $3 stages=${TRAINOPT_DW_STAGES:-1} dkimages=${TRAINOPT_DW_DK_IMAGES:-auto}] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*\|panic.*\|rror.*' $W/go/$1.log | head -1 | cut -c1-800)"
}
prof() { # name, formulation
  [ $SECONDS -lt $(( LIMIT - 70 )) ] || { log "profile-$1 skipped (time)"; return; }
  timeout 60 /tmp/trainopt profile -step 12@128 -k 50 -model $P$2 -warmup 50 -timed 50 -capture 50 -out $W/prof-$1 > $W/go/profile-$1.log 2>&1
  log "profile-$1 rc=$? $(sps $W/go/profile-$1.log)"
}
TO=150 v back-a 128 "$T$BB"
TO=120 v rows-a 128 "$T$BB$R"
TRAINOPT_DW_STAGES=2 TO=120 v rows-st2-a 128 "$T$BB$R"
TRAINOPT_DW_STAGES=3 TO=120 v rows-st3-a 128 "$T$BB$R"
TRAINOPT_DW_DK_IMAGES=1 TO=120 v rows-dk1-a 128 "$T$BB$R"
v back-b 128 "$T$BB"
v rows-b 128 "$T$BB$R"
TRAINOPT_DW_STAGES=2 v rows-st2-b 128 "$T$BB$R"
TRAINOPT_DW_DK_IMAGES=1 v rows-dk1-b 128 "$T$BB$R"
TRAINOPT_DW_STAGES=2 TRAINOPT_DW_DK_IMAGES=1 TO=120 v rows-st2-dk1-a 128 "$T$BB$R"
prof rows "$T$BB$R"
TO=120 v rows512-a 512 "$T$BB$R"
TO=120 v back512-a 512 "$T$BB"
TO=120 v rows256-a 256 "$T$BB$R"
# PyTorch's strongest configuration in the same call (anchors/torch_ladder.py step 11: torch.compile with CUDA
# graphs, fused SGD, channels_last, bf16, cudnn.benchmark, data on the GPU)
mkdir -p $W/torch
timeout $(( LIMIT - SECONDS )) python3 -u anchors/torch_ladder.py --only 11 --step10-batches 128,512,256 --cudnn-benchmark \
  --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
