#!/usr/bin/env bash
# Starts JupyterLab with the GoNB kernel on an NVIDIA GPU: builds docker/Dockerfile's image when it is missing (or
# with BUILD=1), then runs it with the GPU, enough shared memory and the port mapped to this machine only.
# notebooks/, assets/ and data/ of this checkout are mounted, so executed notebooks, results and CIFAR-10 stay here.
#
#   docker/run.sh                  # then open the http://127.0.0.1:8888/lab?token=… URL it prints
#   PORT=9999 SHM_SIZE=16g docker/run.sh
#   MOUNT=0 docker/run.sh          # use the repository copy inside the image only
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${IMAGE:-trainopt-notebooks}"
PORT="${PORT:-8888}"          # host port; JupyterLab listens on 8888 inside (Dockerfile EXPOSE)
SHM_SIZE="${SHM_SIZE:-8g}"    # loader goroutines do not need /dev/shm, but XLA and NCCL do; Docker's 64 MB default is too small
NB_HOME=/home/gopher          # docker/Dockerfile's NB_USER

die() { echo "run.sh: $*" >&2; exit 1; }
command -v docker >/dev/null 2>&1 || die "docker is not installed"
if [ "${BUILD:-0}" = 1 ] || ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "run.sh: building $IMAGE (Go, GoNB, JupyterLab, jax[cuda13]: several GB, ~15 min the first time)"
  DOCKER_BUILDKIT=1 docker build -f docker/Dockerfile -t "$IMAGE" .
fi

mounts=()
if [ "${MOUNT:-1}" = 1 ]; then
  mkdir -p data
  for d in notebooks assets data; do
    mounts+=(-v "$PWD/$d:$NB_HOME/trainopt/$d")
  done
fi

# XLA's autotune cache outlives the container (--rm): the first compile of a configuration autotunes for about a
# minute, later ones load the results (CACHE_VOLUME= to run without it).
CACHE_VOLUME="${CACHE_VOLUME-trainopt-xla-cache}"
[ -n "$CACHE_VOLUME" ] && mounts+=(-v "$CACHE_VOLUME:$NB_HOME/.cache/trainopt")

exec docker run --rm -it --gpus all --shm-size="$SHM_SIZE" -p "127.0.0.1:$PORT:8888" "${mounts[@]}" "$IMAGE" "$@"
