#!/usr/bin/env bash
# Runs inside docker/Dockerfile's build, as root: installs Go, GoNB + goimports + gopls, JupyterLab and the CUDA
# PJRT plugin (pip's jax-cuda13-pjrt, through jax[cuda13], which also brings NVIDIA's CUDA 13 wheels: ptxas,
# libdevice, cuDNN, cuBLAS), and registers the GoNB kernel for the notebook user. Every version comes from the
# Dockerfile's ARGs (docker/docker_test.go checks them against go.mod and .ci/notebooks.sh).
set -euo pipefail

: "${GO_VERSION:?}" "${GONB_VERSION:?}" "${GOIMPORTS_VERSION:?}" "${GOPLS_VERSION:?}"
: "${JAX_VERSION:?}" "${JUPYTERLAB_VERSION:?}" "${VENV:?}" "${PJRT_PLUGIN:?}" "${NB_USER:?}"
say() { echo "install.sh: $*"; }
die() { echo "install.sh: ERROR: $*" >&2; exit 1; }

say "Debian/Ubuntu packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ca-certificates curl git gcc libc6-dev python3 python3-venv \
  python3-pip tini >/dev/null
rm -rf /var/lib/apt/lists/*

say "Go $GO_VERSION"
arch="$(dpkg --print-architecture)"   # amd64 / arm64, as go.dev names them
curl -fsSL "https://go.dev/dl/go${GO_VERSION}.linux-${arch}.tar.gz" | tar -C /usr/local -xz
export PATH="/usr/local/go/bin:$PATH" GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
[ "$(go env GOVERSION)" = "go$GO_VERSION" ] || die "installed $(go env GOVERSION), want go$GO_VERSION"

# GoNB, goimports and gopls, each built from a throw-away module (the same recipe as .ci/notebooks.sh), into
# /usr/local/bin for every user.
build_tool() {
  local pkg=$1 version=$2 dir
  dir="$(mktemp -d)"
  (cd "$dir" && go mod init throwaway.local/tools >/dev/null 2>&1 && go get "$pkg@$version" >/dev/null &&
    GOBIN=/usr/local/bin go install "$pkg") || die "building $pkg@$version failed"
  rm -rf "$dir"
}
say "GoNB $GONB_VERSION, goimports $GOIMPORTS_VERSION, gopls $GOPLS_VERSION"
build_tool github.com/janpfeifer/gonb "$GONB_VERSION"
build_tool golang.org/x/tools/cmd/goimports "$GOIMPORTS_VERSION"
build_tool golang.org/x/tools/gopls "$GOPLS_VERSION"
rm -rf /root/go /root/.cache/go-build

say "Python venv $VENV: jupyterlab $JUPYTERLAB_VERSION, jax[cuda13] $JAX_VERSION (jax-cuda13-pjrt + NVIDIA CUDA 13 wheels)"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --no-cache-dir -q "jupyterlab==$JUPYTERLAB_VERSION" "jax[cuda13]==$JAX_VERSION"
[ -f "$PJRT_PLUGIN" ] || die "jax-cuda13-pjrt did not install $PJRT_PLUGIN (found: $(find "$VENV" -name 'xla_cuda_plugin.so' | head -3))"
libdevice="$(find "$VENV" -path '*nvvm/libdevice/libdevice.10.bc' | head -1)"
[ -n "$libdevice" ] || say "WARNING: no nvvm/libdevice in $VENV: XLA needs it to compile for the GPU (set CUDA_DATA_DIR)"

say "notebook user $NB_USER and the gonb kernel"
id -u "$NB_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$NB_USER"
home="$(getent passwd "$NB_USER" | cut -d: -f6)"
# The kernel is registered for the user; GoNB runs `go`, goimports and gopls from the kernel's environment.
su "$NB_USER" -c "JUPYTER_DATA_DIR=$home/.local/share/jupyter PATH=/usr/local/go/bin:/usr/local/bin:\$PATH gonb --install --raw_error" \
  >/dev/null 2>&1 || die "gonb --install failed"
kernel="$home/.local/share/jupyter/kernels/gonb/kernel.json"
"$VENV/bin/python" - "$kernel" <<'EOF'
import json, sys
path = sys.argv[1]
spec = json.load(open(path))
spec.setdefault("env", {}).update({
    "GOTOOLCHAIN": "local",  # the image's Go is the toolchain go.mod asks for: never download another
    "PATH": "/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin",
})
json.dump(spec, open(path, "w"), indent=1)
EOF
chown -R "$NB_USER:" "$home"
say "done"
