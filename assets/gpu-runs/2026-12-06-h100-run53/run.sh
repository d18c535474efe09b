#!/bin/bash
# Device call run53 (session 16): issue 15, the row kernels (-model dw-tiling=rows). The gather kernels load the
# input once per tap and, with dw-prologue, apply batch norm and ReLU6 nine times per element; run51's profile put
# the prologue's cost at +1.6 ms a step of Triton kernel time at 128, against 1.8 ms of XLA passes it removed. The
# row kernels walk down strips of output rows and load each input row once as three column-shifted tiles (three
# loads and prologues per element instead of nine). (1) GPU tests: the Triton kernels in both tilings against the
# float64 definition and autodiff, which also checks session 15's last refactor (not yet run on a GPU).
# (2) Rung 12 with the options, one process each, alternating: gather vs rows, with and without the backward
# prologue, at 128 and 512. (3) Kernel profiles at 128 of bn-relu6-backward, gather vs rows.
cd "$(dirname "$0")/../../.."
gunzip -c gpu/trainopt.gz > /tmp/trainopt; gunzip -c gpu/mobilenet.test.gz > /tmp/mobilenet.test; chmod +x /tmp/trainopt /tmp/mobilenet.test
. gpu/jax-cuda-env.sh
LIMIT=${LIMIT:-540}
W=/tmp/w53; mkdir -p $W/go $W/test /tmp/trainopt-cache
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)
case "$GPU" in *H100*) cp assets/gpu-runs/2026-12-05-h100-run50/xla-autotune.pb /tmp/trainopt-cache/ ;;
  *) cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/ ;; esac
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe
finish() { gzip -f $W/go/*.log $W/test/*.log; tar czf $OUT/run53.tgz -C $W .; }
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
v() { # name, batch, extra formulation
  local left=$(( LIMIT - SECONDS )); [ $left -lt 40 ] && { log "$1 skipped (time)"; return; }
  local cap=${TO:-80}
  timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [b=$2 $3] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*\|panic.*\|rror.*' $W/go/$1.log | head -1 | cut -c1-800)"
}
prof() { # name, formulation
  [ $SECONDS -lt $(( LIMIT - 70 )) ] || { log "profile-$1 skipped (time)"; return; }
  timeout 60 /tmp/trainopt profile -step 12@128 -k 50 -model $P$2 -warmup 50 -timed 50 -capture 50 -out $W/prof-$1 > $W/go/profile-$1.log 2>&1
  log "profile-$1 rc=$? $(sps $W/go/profile-$1.log)"
}
TO=150 v back-a 128 "$T$BB"
TO=120 v rowsback-a 128 "$T$BB$R"
TO=120 v rows-a 128 "$T$R"
TO=120 v base-a 128 "$T"
v back-b 128 "$T$BB"
v rowsback-b 128 "$T$BB$R"
v rows-b 128 "$T$R"
v base-b 128 "$T"
prof back "$T$BB"
prof rowsback "$T$BB$R"
TO=120 v back512-a 512 "$T$BB"
TO=120 v rowsback512-a 512 "$T$BB$R"
TO=120 v base512-a 512 "$T"
v rowsback-c 128 "$T$BB$R"
v back-c 128 "$T$BB"
v rowsback512-b 512 "$T$BB$R"
v back512-b 512 "$T$BB"
