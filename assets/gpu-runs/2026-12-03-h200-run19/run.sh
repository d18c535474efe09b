#!/bin/bash
# Device call run19 (session 6): run18 showed that excluding all three runtime-compiled depthwise engines cuts
# the warm first call to 7.5-10.3 s but makes the step 6x slower (73 vs 12.1 ms at 128). Which exclusion costs
# the step time? q1: ConvBwdFilter engines 16 and 19 only (4.6+0.5 s of run17's 10.8 s); q2: ConvFwd engine 5
# only (5.7 s). Each: re-tune the dropped entries, then warm; 12@128 and 12@512, one process each.
cd "$(dirname "$0")/.."
gunzip -f gpu/trainopt.gz; chmod +x gpu/trainopt
. gpu/jax-cuda-env.sh
W=/tmp/w19; mkdir -p $W /tmp/c1 /tmp/c2
gpu/trainopt autotune -drop-cudnn-algos 16,19 -o /tmp/c1/xla-autotune.pb gpu/cache/xla-autotune.pb > $W/drop.txt 2>&1
gpu/trainopt autotune -drop-cudnn-algos 5 -o /tmp/c2/xla-autotune.pb gpu/cache/xla-autotune.pb >> $W/drop.txt 2>&1
rule() { echo "{ \"rule_id\": \"$1_eng$2\", \"operation\": \"$1\", \"engine\": $2, \"knob\": [], \"cudnn_version_start\": 8000, \"cudnn_version_end\": -1 }"; }
echo "{ \"version\": 1, \"rules\": [ $(rule ConvBwdFilter 16), $(rule ConvBwdFilter 19) ]}" > $W/errata-wgrad.json
echo "{ \"version\": 1, \"rules\": [ $(rule ConvFwd 5) ]}" > $W/errata-fwd.json
nvidia-smi > $W/nvidia-smi.txt 2>&1
finish() { cp /tmp/c1/xla-autotune.pb $W/wgrad-autotune.pb; cp /tmp/c2/xla-autotune.pb $W/fwd-autotune.pb; gzip -f $W/*/*.log 2>/dev/null; tar czf $OUT/run19.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sum() { grep -h 'first call\|samples/s, step' $1 | sed 's/^ *//' | cut -c1-90 | tr '\n' ';'; }
log "start $(date -u +%FT%TZ)"
p() { # p NAME CACHE TIMEOUT ERRATA
  mkdir -p $W/$1
  CUDNN_ERRATA_JSON_FILE=$4 TRAINOPT_AUTOTUNE_CACHE=$2 \
    timeout $3 gpu/trainopt ladder -steps 12 -batches 128,512 -warmup 5 -timed 50 -out $W/$1 > $W/$1/ladder.log 2>&1
  log "$1 rc=$? $(sum $W/$1/ladder.log)"
}
p q1 /tmp/c1/xla-autotune.pb 200 $W/errata-wgrad.json
p q1w /tmp/c1/xla-autotune.pb 100 $W/errata-wgrad.json
p q2 /tmp/c2/xla-autotune.pb 200 $W/errata-fwd.json
p q2w /tmp/c2/xla-autotune.pb 100 $W/errata-fwd.json
