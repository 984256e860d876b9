#!/usr/bin/env bash
# Builds a real etcd, kube-apiserver, kube-controller-manager and kubectl
# from their Go modules, for the controller's end-to-end tests, and prints
# the directory that holds them.
#
#   hack/test-apiserver.sh           build what is missing; print the bin directory
#   hack/test-apiserver.sh -check    exit 0 when all four are cached, 1 if not
#
# The build happens in a scratch module under $CACHE (default
# $HOME/.cache/rolloutkit), never in the repository's own modules. Only the
# first run pays for it (several minutes on 2 cores); later runs find the
# binaries and return at once. A cache that has some of them builds only
# the others. Point KUBEBUILDER_ASSETS at the printed directory and envtest
# starts etcd and kube-apiserver; the tests that need garbage collection
# start kube-controller-manager from there too, and the test of the README's
# offline plan runs its kubectl commands with that kubectl.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.0}
CACHE=${ROLLOUTKIT_CACHE:-${HOME}/.cache/rolloutkit}
root="${CACHE}/k8s-${K8S_VERSION}"
bin="${root}/bin"

# binaries lists each binary and the package it is built from.
binaries=(
  "etcd go.etcd.io/etcd/server/v3"
  "kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver"
  "kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager"
  "kubectl k8s.io/kubernetes/cmd/kubectl"
)

# missing prints the names of the binaries not in the cache.
missing() {
  local b
  for b in "${binaries[@]}"; do
    [ -x "${bin}/${b%% *}" ] || echo "${b%% *}"
  done
}
have() { [ -z "$(missing)" ]; }

if [ "${1:-}" = "-check" ]; then
  have && exit 0 || exit 1
fi
if have; then
  echo "${bin}"
  exit 0
fi

say() { echo "test-apiserver: $*" >&2; }
mkdir -p "${root}" "${bin}"
# One build at a time per cache: a second run waits for the first, then
# finds what it built.
exec 9>"${root}/.build.lock"
if command -v flock >/dev/null; then
  flock 9
fi
if have; then
  echo "${bin}"
  exit 0
fi

start=$(date +%s)
src="${root}/src"
rm -rf "${src}"
mkdir -p "${src}"
cd "${src}"

# k8s.io/kubernetes points its staging modules at ./staging/..., which the
# module zip does not carry: replace each with its published v0 release.
say "fetching k8s.io/kubernetes ${K8S_VERSION}"
kdir=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "${kdir}" ] || { say "cannot locate k8s.io/kubernetes ${K8S_VERSION}"; exit 1; }
goversion=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "${kdir}/go.mod" | head -n1)
staging="v0.${K8S_VERSION#v1.}"

{
  echo "module rolloutkit.test/apiserver"
  echo
  echo "go ${goversion}"
  echo
  echo "require ("
  echo "	k8s.io/kubernetes ${K8S_VERSION}"
  echo "	go.etcd.io/etcd/server/v3 ${ETCD_VERSION}"
  echo ")"
  echo
  echo "replace ("
  sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*$#\t\1 => \1 '"${staging}"'#p' "${kdir}/go.mod"
  echo ")"
} > go.mod
{
  echo "//go:build tools"
  echo
  echo "package tools"
  echo
  echo "import ("
  for b in "${binaries[@]}"; do
    echo "	_ \"${b#* }\""
  done
  echo ")"
} > tools.go

say "resolving modules"
GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>"${src}/tidy.log" || { cat "${src}/tidy.log" >&2; exit 1; }

# The Kubernetes binaries carry their version, else /version is empty and
# some clients complain.
kversion="-X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_VERSION#v1.}"
for name in $(missing); do
  for b in "${binaries[@]}"; do
    [ "${b%% *}" = "${name}" ] && pkg="${b#* }"
  done
  ldflags="-s -w"
  version="${ETCD_VERSION}"
  if [ "${name}" != etcd ]; then
    ldflags="${ldflags} ${kversion}"
    version="${K8S_VERSION}"
  fi
  say "building ${name} ${version}"
  t=$(date +%s)
  GOFLAGS=-mod=mod go build -trimpath -ldflags "${ldflags}" -o "${bin}/${name}.tmp" "${pkg}"
  mv "${bin}/${name}.tmp" "${bin}/${name}"
  say "built ${name} in $(( $(date +%s) - t ))s"
done
say "built in $(( $(date +%s) - start ))s"
echo "${bin}"
