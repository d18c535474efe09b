#!/bin/bash
# Device call run17 (session 5): where does a warm first call go? Step 12@128 in fresh processes with the warm
# autotune cache: (a) empty CUDA JIT cache, (b) the same cache again, (d) XLA command
# buffers off, (e) cuDNN API log + XLA thunk vlogs. Then the whole ladder, steps 1-14 at 128, 256, 512, in one process.
cd "$(dirname "$0")/.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
BASE="$XLA_FLAGS"
W=/tmp/w17; mkdir -p $W /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() {
  cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null
  du -sh /tmp/cc 2>/dev/null >> $W/rc.txt; ls -la /tmp/cc >> $W/rc.txt 2>&1
  gzip -f $W/*/*.log 2>/dev/null
  tar czf $OUT/run17.tgz -C $W .
}
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
first() { grep -ho 'first call [0-9.]*s' $1 | tr '\n' ' '; }
log "start $(date -u +%FT%TZ)"
q() { # q NAME: one process, step 12@128, short window; env from the caller
  mkdir -p $W/$1
  timeout 120 gpu/trainopt ladder -steps 12 -batches 128 -warmup 2 -timed 20 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$? $(first $W/$1/ladder.log)"
}
export CUDA_CACHE_PATH=/tmp/cc CUDA_CACHE_MAXSIZE=4294967296
q a
q b
XLA_FLAGS="$BASE --xla_gpu_enable_command_buffer=" q d
CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=$W/e-cudnn.log TF_CPP_MIN_LOG_LEVEL=0 \
  TF_CPP_VMODULE=gpu_executable=3,convolution_thunk=3,command_buffer_thunk=3,cuda_dnn=3,gpu_compiler=1 q e
gzip -f $W/e-cudnn.log
mkdir -p $W/ladder
timeout $((590 - SECONDS)) gpu/trainopt ladder -steps all -batches 128,256,512 -warmup 5 -timed 50 -out $W/ladder > $W/ladder/ladder.log 2>&1
log "ladder rc=$? $(first $W/ladder/ladder.log)"
