#!/bin/bash
# Device call run27 (session 8): the competitors beside Go in one call. Go rungs 1-6 and 12 at 128/256/512 in one
# process (run25's executable cache, run26's autotune cache); PyTorch's seed ladder, steps 1-6, as the tutorial has
# it (cudnn.benchmark off); PyTorch's strongest, step 11 (CUDA graphs + fused SGD, --cudnn-benchmark) at 128, 256
# and 512; then JAX/Flax (jax_mobilenet.py) at 512, 256, 128 for the time left. JAX loads the same XLA autotune
# cache as Go (one XLA, one plugin): its compile is not a cold one, and its throughput is unaffected.
cd "$(dirname "$0")/../../.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w27; E=/tmp/trainopt-exe; mkdir -p $W/go $W/torch $W/jax /tmp/trainopt-cache
cat gpu/exe/exe-part* | tar xzf - -C /tmp
cp gpu/cache/xla-autotune.pb /tmp/trainopt-cache/
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=$E PYTHONUNBUFFERED=1
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { gzip -f $W/go/*.log; tar czf $OUT/run27.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o '"step": [0-9]*, [^}]*"batch": [0-9]*\|"samples_per_s": [0-9.]*' $1 | tr '\n' ' '; }
log "start $(date -u +%FT%TZ)"
timeout 170 gpu/trainopt ladder -steps 1,2,3,4,5,5b,6,12 -batches 128,256,512 -warmup 3 -timed 40 -out $W/go > $W/go/ladder.log 2>&1
log "go rc=$? $(grep -o 'step [0-9a-z@]*: [0-9]* samples/s' $W/go/ladder.log | sed 's/step //; s/ samples.s//' | tr '\n' ';')"
timeout 110 python3 -u gpu/torch_ladder.py --only 1,2,3,4,5,6 --steps 40 --warmup 5 > $W/torch/seed.jsonl 2> $W/torch/seed.err
log "torch 1-6 rc=$? $(grep -o '"samples_per_s": [0-9.]*' $W/torch/seed.jsonl | tr '\n' ' ')"
timeout 200 python3 -u gpu/torch_ladder.py --only 11 --step10-batches 128,256,512 --cudnn-benchmark --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
XLA_FLAGS="$XLA_FLAGS --xla_gpu_load_autotune_results_from=/tmp/trainopt-cache/xla-autotune.pb" \
  timeout $((525 - SECONDS)) python3 -u gpu/jax_mobilenet.py --batches 512,256,128 --k 10 --steps 40 > $W/jax/jax.jsonl 2> $W/jax/jax.err
log "jax rc=$? $(cat $W/jax/jax.jsonl | tr '\n' ' ' | cut -c1-600)"
