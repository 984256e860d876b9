#!/usr/bin/env bash
# Builds a real etcd and kube-apiserver from their Go modules, for the
# controller's end-to-end tests, and prints the directory that holds them.
#
#   hack/test-apiserver.sh           build if needed; print the bin directory
#   hack/test-apiserver.sh -check    exit 0 when the binaries are cached, 1 if not
#
# The build happens in a scratch module under $CACHE (default
# $HOME/.cache/rolloutkit), never in the repository's own modules. Only the
# first run pays for it (several minutes on 2 cores); later runs find the
# binaries and return at once. Point KUBEBUILDER_ASSETS at the printed
# directory and envtest starts them.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.0}
CACHE=${ROLLOUTKIT_CACHE:-${HOME}/.cache/rolloutkit}
root="${CACHE}/k8s-${K8S_VERSION}"
bin="${root}/bin"

have() { [ -x "${bin}/etcd" ] && [ -x "${bin}/kube-apiserver" ]; }

if [ "${1:-}" = "-check" ]; then
  have && exit 0 || exit 1
fi
if have; then
  echo "${bin}"
  exit 0
fi

say() { echo "test-apiserver: $*" >&2; }
start=$(date +%s)
src="${root}/src"
rm -rf "${src}"
mkdir -p "${src}" "${bin}"
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
cat > tools.go <<'EOF'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
EOF

say "resolving modules"
GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>"${src}/tidy.log" || { cat "${src}/tidy.log" >&2; exit 1; }

say "building etcd ${ETCD_VERSION}"
GOFLAGS=-mod=mod go build -trimpath -ldflags '-s -w' -o "${bin}/etcd.tmp" go.etcd.io/etcd/server/v3
say "building kube-apiserver ${K8S_VERSION}"
GOFLAGS=-mod=mod go build -trimpath \
  -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_VERSION#v1.}" \
  -o "${bin}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
mv "${bin}/etcd.tmp" "${bin}/etcd"
mv "${bin}/kube-apiserver.tmp" "${bin}/kube-apiserver"
say "built in $(( $(date +%s) - start ))s"
echo "${bin}"
