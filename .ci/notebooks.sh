#!/usr/bin/env bash
# Installs what the notebook test (notebooks/notebooks_test.go) needs on a fresh Debian 12 machine, as root:
#   - Debian's Jupyter (nbconvert + nbclient + the client/kernel plumbing) to execute notebooks headless;
#   - GoNB (the Go kernel), built from a throw-away module because the proxy refuses `go install gonb@version`;
#   - goimports and gopls, which GoNB runs for every cell;
#   - the "gonb" kernel registered for root, with GOTOOLCHAIN and PATH written into its kernel.json so that the
#     `go` GoNB runs builds with the toolchain GoMLX needs.
# Idempotent (what is already there at the pinned version is kept) and quiet; exits non-zero with a message that
# says which step failed. Then:  TRAINOPT_NOTEBOOK_CI=1 go test -count=1 -timeout 40m ./notebooks/...
set -euo pipefail

GO_TOOLCHAIN=go1.27.3    # GoMLX v0.28.16 needs Go 1.27 (the machine's go fetches it from the module proxy)
GONB_VERSION=v0.11.5     # = go.mod's github.com/janpfeifer/gonb (docker/docker_test.go checks they agree)
TOOLS_VERSION=v0.52.0    # golang.org/x/tools: goimports
GOPLS_VERSION=v0.24.0    # golang.org/x/tools/gopls (v0.24 builds with Go 1.27)
APT_PACKAGES=(jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client python3-jupyter-core)

export GOTOOLCHAIN="$GO_TOOLCHAIN"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
step=""
trap 'rc=$?; [ $rc -eq 0 ] || echo "notebooks.sh: FAILED at: ${step:-?} (exit $rc)" >&2' EXIT
say() { echo "notebooks.sh: $*"; }
die() { echo "notebooks.sh: ERROR: $*" >&2; exit 1; }

step="checking go"
command -v go >/dev/null 2>&1 || die "no 'go' on PATH (install Go ≥ 1.21; GOTOOLCHAIN=$GO_TOOLCHAIN fetches the rest)"
go version >/dev/null 2>&1 || die "'go version' fails with GOTOOLCHAIN=$GO_TOOLCHAIN (is the module proxy reachable?)"
GOBIN_DIR="$(go env GOBIN)"
[ -n "$GOBIN_DIR" ] || GOBIN_DIR="$(go env GOPATH)/bin"
mkdir -p "$GOBIN_DIR"
export PATH="$GOBIN_DIR:$PATH"

step="apt packages"
missing=()
for p in "${APT_PACKAGES[@]}" gcc libc6-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  apt-get update -qq >/dev/null || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi
command -v jupyter >/dev/null 2>&1 || die "jupyter is not on PATH after installing ${APT_PACKAGES[*]}"
jupyter nbconvert --version >/dev/null 2>&1 || die "'jupyter nbconvert --version' fails"

# has_module BINARY MODULE VERSION: the binary was built from MODULE at VERSION (go version -m).
has_module() {
  [ -x "$1" ] && go version -m "$1" 2>/dev/null | awk -v m="$2" -v v="$3" '($1=="mod"||$1=="dep") && $2==m && $3==v {f=1} END {exit !f}'
}

# build_tool NAME PACKAGE VERSION: go install PACKAGE from a throw-away module that requires PACKAGE@VERSION
# (the proxy refuses some `go install pkg@version` forms; a module that requires it works).
build_tool() {
  local name=$1 pkg=$2 modver="$2@$3" dir
  step="building $name ($modver)"
  say "building $name from $modver (a few minutes on 2 cores)"
  dir="$(mktemp -d)"
  (
    cd "$dir"
    go mod init throwaway.local/tools >/dev/null 2>&1
    go get "$modver" >/dev/null 2>&1 || { go get "$modver"; exit 1; }
    go install "$pkg" 2>&1 | tail -20
    exit "${PIPESTATUS[0]}"
  ) || { rm -rf "$dir"; die "could not build $name from $modver"; }
  rm -rf "$dir"
}

# tool NAME: the module and version its binary must come from, and the package to build.
tool() {
  case $1 in
    gonb) echo "github.com/janpfeifer/gonb $GONB_VERSION github.com/janpfeifer/gonb" ;;
    goimports) echo "golang.org/x/tools $TOOLS_VERSION golang.org/x/tools/cmd/goimports" ;;
    gopls) echo "golang.org/x/tools/gopls $GOPLS_VERSION golang.org/x/tools/gopls" ;;
  esac
}
for t in gonb goimports gopls; do
  read -r mod ver pkg <<<"$(tool "$t")"
  has_module "$GOBIN_DIR/$t" "$mod" "$ver" || build_tool "$t" "$pkg" "$ver"
  has_module "$GOBIN_DIR/$t" "$mod" "$ver" || die "$GOBIN_DIR/$t is not built from $mod $ver after building it"
done

step="registering the gonb kernel"
out="$("$GOBIN_DIR/gonb" --install --raw_error 2>&1)" || { echo "$out" >&2; die "gonb --install failed"; }
kernel_json="$(jupyter --data-dir)/kernels/gonb/kernel.json"
[ -f "$kernel_json" ] || die "gonb --install did not write $kernel_json"
# GoNB runs `go`, goimports and gopls from its own environment: give the kernel the toolchain and a PATH that has
# them, whatever environment Jupyter is started from.
GO_DIR="$(dirname "$(command -v go)")"
KERNEL_PATH="$GOBIN_DIR:$GO_DIR:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/usr/bin/python3 - "$kernel_json" "$GO_TOOLCHAIN" "$KERNEL_PATH" <<'EOF' || die "could not set the kernel's environment in $kernel_json"
import json, sys
path, toolchain, kpath = sys.argv[1:4]
with open(path) as f:
    spec = json.load(f)
env = spec.get("env") or {}
env.update({"GOTOOLCHAIN": toolchain, "PATH": kpath})
spec["env"] = env
with open(path, "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
EOF
jupyter kernelspec list 2>/dev/null | grep -qw gonb || die "jupyter kernelspec list does not show the gonb kernel"

step=""
say "ready: $(jupyter nbconvert --version 2>/dev/null | head -1 | sed 's/^/nbconvert /'), gonb $GONB_VERSION, goimports $TOOLS_VERSION, gopls $GOPLS_VERSION, kernel $kernel_json (GOTOOLCHAIN=$GO_TOOLCHAIN)"
