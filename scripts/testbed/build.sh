#!/usr/bin/env bash
# Builds the local Kubernetes test bed once and caches it outside the repository:
#   kube-apiserver, kube-controller-manager, kube-scheduler v1.20.2 from Debian's
#   `kubernetes` source package, compiled with Debian's golang-1.19-go, plus
#   Debian's etcd-server.
#
# Cache: $CORRAL_TESTBED_CACHE (default: $HOME/.cache/corral-testbed).
# Idempotent: a second run with the binaries present returns at once.
# Needs root (apt-get). Prints progress; the first build takes ~6-10 min on 2 cores.
set -euo pipefail

CACHE="${CORRAL_TESTBED_CACHE:-$HOME/.cache/corral-testbed}"
BIN="$CACHE/bin"
WANT_VERSION="v1.20.2"
# Bump when the build recipe changes, so cached binaries are rebuilt.
RECIPE=2
log() { printf '[testbed-build] %s\n' "$*" >&2; }

have_binaries() {
  for b in kube-apiserver kube-controller-manager kube-scheduler; do
    [ -x "$BIN/$b" ] || return 1
  done
  [ -f "$BIN/VERSION" ] && [ "$(cat "$BIN/VERSION")" = "$WANT_VERSION recipe $RECIPE" ] || return 1
  command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || return 1
  command -v etcdctl >/dev/null 2>&1 || return 1
  return 0
}

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# kubectl (the e2e tests use it): any installed one, else Debian's kubernetes-client (same source package, v1.20)
ensure_kubectl() {
  command -v kubectl >/dev/null 2>&1 && return 0
  log "installing kubectl (kubernetes-client)"
  $SUDO apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null 2>&1 ||
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null; }
}

if have_binaries; then
  ensure_kubectl
  log "cached: $BIN ($WANT_VERSION)"
  exit 0
fi

# 1. A deb-src entry for the Debian mirror this machine already uses.
SRC_FILE=/etc/apt/sources.list.d/corral-testbed-src.sources
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  log "adding deb-src entries for the configured Debian mirrors"
  tmp=$(mktemp)
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # Only the Debian archive entries (signed by the Debian keyring).
    awk 'BEGIN{RS="";ORS="\n\n"} /debian-archive-keyring/ { sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$tmp"
  done
  if [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | grep -i debian | sed 's/^deb /deb-src /' >/etc/apt/sources.list.d/corral-testbed-src.list || true
  fi
  if [ -s "$tmp" ]; then $SUDO cp "$tmp" "$SRC_FILE"; fi
  rm -f "$tmp"
fi

log "apt-get update"
$SUDO apt-get update -qq
log "installing build tools and etcd-server"
$SUDO apt-get install -y -qq --no-install-recommends \
  dpkg-dev rsync golang-1.19-go golang-github-modern-go-reflect2-dev etcd-server etcd-client build-essential \
  ca-certificates openssl curl >/dev/null
ensure_kubectl

mkdir -p "$CACHE/src" "$BIN"
cd "$CACHE/src"
SRCDIR=$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)
if [ -z "$SRCDIR" ]; then
  log "fetching Debian's kubernetes source package"
  apt-get source -qq --download-only kubernetes
  dsc=$(ls kubernetes_*.dsc | head -n1)
  dpkg-source -x --skip-debianization "$dsc" >/dev/null 2>&1 || dpkg-source -x "$dsc" >/dev/null
  SRCDIR=$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)
fi
cd "$SRCDIR"
log "source tree: $(pwd)"

# Kubernetes 1.20 vendors modern-go/reflect2 v1.0.1, whose map iteration corrupts memory under Go >= 1.18
# (kube-apiserver dies with SIGSEGV in aeshashbody while encoding webhook patch annotations). Debian ships the fixed
# v1.0.2 (same API); put its sources into the vendor tree.
R2=/usr/share/gocode/src/github.com/modern-go/reflect2
if ! grep -q "corral: reflect2 1.0.2" vendor/github.com/modern-go/reflect2/.corral 2>/dev/null; then
  log "vendoring Debian's reflect2 1.0.2 (Go 1.18+ fix)"
  rm -f vendor/github.com/modern-go/reflect2/*.go vendor/github.com/modern-go/reflect2/*.s
  find "$R2" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) ! -name '*_test.go' -exec cp {} vendor/github.com/modern-go/reflect2/ \;
  echo "corral: reflect2 1.0.2" >vendor/github.com/modern-go/reflect2/.corral
fi

export PATH="/usr/lib/go-1.19/bin:$PATH"
# hack/lib/golang.sh folds GOFLAGS into -tags, so leave it unset (vendor/ is used by default).
unset GOFLAGS
export GOTOOLCHAIN=local GO111MODULE=on
export KUBE_GIT_VERSION="$WANT_VERSION" KUBE_GIT_TREE_STATE=clean
export GOCACHE="$CACHE/gocache"
log "go: $(go version)"
for what in cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler; do
  name=$(basename "$what")
  log "building $name (make WHAT=$what) ..."
  start=$(date +%s)
  make WHAT="$what" >"$CACHE/build-$name.log" 2>&1 || { tail -n 40 "$CACHE/build-$name.log" >&2; exit 1; }
  log "built $name in $(( $(date +%s) - start ))s"
  found=$(find _output -type f -name "$name" -perm -u+x | head -n1)
  cp "$found" "$BIN/$name"
done
echo "$WANT_VERSION recipe $RECIPE" >"$BIN/VERSION"
log "done: $BIN"
