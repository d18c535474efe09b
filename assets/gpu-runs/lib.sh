# Shared helpers for device-call scripts (source it from a run's run.sh; earlier runs' scripts carry their own
# copies, kept as they ran). A run script sets RUN (e.g. 56) and LIMIT (seconds it may use), then:
#
#   . "$(dirname "$0")/../lib.sh"      # unpacks the binaries, sets the caches, starts rc.txt
#   v base-a 128 ",dw-forward=triton"  # one ladder configuration in a process of its own
#   prof rows ",dw-tiling=rows"        # a kernel profile at 128 (profkeep: only its reports)
#   one fast-hit on 90 -steps all …    # first calls: the ladder with fast start on or off
#
# and everything under $W comes back as $OUT/run$RUN.tgz when the script exits.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
for f in gpu/*.gz gpu/*.xz; do # each binary to /tmp (a second trainopt, e.g. the commit before, as gpu/trainopt-old.xz)
  [ -f "$f" ] || continue; b=$(basename "${f%.*}"); case "$f" in *.gz) gunzip -c "$f" ;; *) xz -dc "$f" ;; esac > /tmp/$b; chmod +x /tmp/$b
done
. gpu/jax-cuda-env.sh
W=/tmp/w$RUN; mkdir -p $W/go $W/test /tmp/trainopt-cache
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)
case "$GPU" in *H100*) cp assets/gpu-runs/2026-12-05-h100-run50/xla-autotune.pb /tmp/trainopt-cache/ ;;
  *) cp assets/gpu-runs/2026-12-05-h200-run48/xla-autotune.pb /tmp/trainopt-cache/ ;; esac
export TRAINOPT_AUTOTUNE_CACHE=/tmp/trainopt-cache/xla-autotune.pb TRAINOPT_EXECUTABLE_CACHE=/tmp/trainopt-exe PYTHONUNBUFFERED=1
finish() { gzip -f $W/go/*.log $W/test/*.log 2>/dev/null; nvidia-smi > $W/nvidia-smi.txt 2>&1; tar czf $OUT/run$RUN.tgz -C $W .; }
trap finish EXIT
log() { echo "$* at ${SECONDS}s" | tee -a $W/rc.txt; }
sps() { grep -o 'step [0-9a-z@=,+-]*: [0-9]* samples/s, step [0-9.]* ms' $1 | sed 's/^step [^:]*:/:/' | tr '\n' ';'; }
# The options every configuration of the 2026-12 runs starts from.
P=${P:-reduction-row=256,stem=patches} # run56–run58 relied on this default; the best options since run58 use stem=space-to-depth
v() { # name, batch, extra formulation (TO: the process's time cap, default 80 s; BIN: another trainopt)
  local left=$(( LIMIT - SECONDS )); [ $left -lt 40 ] && { log "$1 skipped (time)"; return; }
  local cap=${TO:-80}
  timeout $(( cap < left ? cap : left )) ${BIN:-/tmp/trainopt} ladder -steps 12 -batches $2 -warmup 50 -timed 400 -k 50 -model $P$3 -out $W/go/$1 > $W/go/$1.log 2>&1
  log "$1 [b=$2 $3] rc=$? $(sps $W/go/$1.log) $(grep -o 'FAILED.*\|panic.*\|rror.*' $W/go/$1.log | head -1 | cut -c1-800)"
}
prof() { # name, extra formulation: a kernel profile of 12@128 (PB: another batch; BIN: another trainopt)
  [ $SECONDS -lt $(( LIMIT - 70 )) ] || { log "profile-$1 skipped (time)"; return; }
  timeout 60 ${BIN:-/tmp/trainopt} profile -step 12@${PB:-128} -k 50 -model $P$2 -warmup 50 -timed 50 -capture 50 -out $W/prof-$1 > $W/go/profile-$1.log 2>&1
  log "profile-$1 rc=$? $(sps $W/go/profile-$1.log)"
}
profkeep() { # name, extra formulation: prof, keeping only the reports (a call returns at most 16 MiB a file, and
  # the tree that travels to the device is near its 64 MiB) — trace files dropped, report.json gzipped
  prof "$@"; find $W/prof-$1 -type f ! -name report.json ! -name report.md -delete 2>/dev/null
  find $W/prof-$1 -name report.json -exec gzip -9 {} \; 2>/dev/null
}
torch11() { # batches (comma-separated): PyTorch's strongest configuration, the anchor's step 11
  mkdir -p $W/torch
  timeout $(( LIMIT - SECONDS )) python3 -u anchors/torch_ladder.py --only 11 --step10-batches $1 --cudnn-benchmark \
    --steps 40 > $W/torch/step11.jsonl 2> $W/torch/step11.err
  log "torch 11 rc=$? $(grep -o '"batch": [0-9]*\|"samples_per_s": [0-9.]*' $W/torch/step11.jsonl | tr '\n' ' ')"
}
one() { # name, fast start (on/off), cap s, ladder args...: first calls as a notebook cell sees them (run57, run64)
  local name=$1 fast=$2 cap=$3; shift 3
  local left=$(( LIMIT - SECONDS )); [ $left -lt 30 ] && { log "$name skipped (time)"; return; }
  mkdir -p $W/go/$name
  TRAINOPT_FAST_START=$fast timeout $(( cap < left ? cap : left )) /tmp/trainopt ladder "$@" -out $W/go/$name > $W/go/$name.log 2>&1
  log "$name rc=$? $(grep -o 'step [0-9a-z@]*: first call [0-9.]*s\|step [0-9a-z@]*: [0-9]* samples/s' $W/go/$name.log | sed 's/step //' | tr '\n' ';')"
}
log "start $(date -u +%FT%TZ) on $GPU"
