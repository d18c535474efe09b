#!/bin/bash
# Device call run10 (session 3): compile-time experiments on 10@128 with the warm autotune cache — XLA's compile-phase
# timers, LLVM module parallelism, the kernel cache file (one process fills it, the next reads it) — then steps 10,
# 11 (wide batch-norm rows) and 12 (float16) at batch 512 in one process, with an HLO dump of the step programs.
cd "$(dirname "$0")/.."
. gpu/jax-cuda-env.sh
BASE="$XLA_FLAGS"
W=/tmp/w; mkdir -p $W /tmp/trainopt-cache
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() {
  cp /tmp/trainopt-cache/xla-autotune.pb $W/ 2>/dev/null
  rm -f $W/d/dump/*before_optimizations* 2>/dev/null
  tar czf $OUT/run10.tgz -C $W .
}
trap finish EXIT
log() { echo "$* at ${SECONDS}s" >> $W/rc.txt; }
log start
q() { # q NAME EXTRA_XLA_FLAGS: one process, step 10@128, short window; XLA's compile timers on
  mkdir -p $W/$1
  XLA_FLAGS="$BASE $2" TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=gpu_compiler=1,nvptx_compiler=1 \
    timeout 100 gpu/trainopt ladder -steps 10 -batches 128 -warmup 2 -timed 20 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$?"
}
q a ""
q b "--xla_gpu_enable_llvm_module_compilation_parallelism=true"
q c1 "--xla_gpu_kernel_cache_file=/tmp/trainopt-cache/kernels.bin"
q c2 "--xla_gpu_kernel_cache_file=/tmp/trainopt-cache/kernels.bin"
ls -la /tmp/trainopt-cache >> $W/rc.txt
mkdir -p $W/d
XLA_FLAGS="$BASE --xla_dump_to=$W/d/dump --xla_dump_hlo_module_re=.*step.*" \
  timeout $((585 - SECONDS)) gpu/trainopt ladder -steps 10,11,12 -batches 512 -timed 60 -out $W/d > $W/d/ladder.log 2>&1
log "d rc=$?"
