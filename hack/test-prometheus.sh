#!/usr/bin/env bash
# Builds a real Prometheus server from its Go module, for the controller's
# end-to-end tests, and promtool from the same module, for the alert rules'
# unit tests (promtool test rules), and prints the directory that holds the
# binaries.
#
#   hack/test-prometheus.sh           build if needed; print the bin directory
#   hack/test-prometheus.sh -check    exit 0 when both binaries are cached, 1 if not
#
# The build happens in a scratch module under $CACHE (default
# $HOME/.cache/rolloutkit), never in the repository's own modules. Only the
# first run pays for it (a few minutes on 2 cores); later runs find the
# binaries and return at once. Point ROLLOUTKIT_PROMETHEUS at the printed
# directory and internal/testprom starts prometheus there, and
# internal/alerts runs its promtool. A cache from before promtool was built
# builds only promtool (about a minute on 2 cores).
#
# The web UI's assets are not built in (no builtinassets tag, so no npm): the
# HTTP API, which is all the tests use, works without them. Nor is any
# service discovery but the static and file ones (Prometheus's own
# remove_all_sd tag): the tests scrape static targets, and the cloud and
# Kubernetes SDKs the others pull in were most of a cold build's time.
set -euo pipefail

PROMETHEUS_VERSION=${PROMETHEUS_VERSION:-v0.316.0}
CACHE=${ROLLOUTKIT_CACHE:-${HOME}/.cache/rolloutkit}
root="${CACHE}/prometheus-${PROMETHEUS_VERSION}"
bin="${root}/bin"

have() { [ -x "${bin}/prometheus" ] && [ -x "${bin}/promtool" ]; }

if [ "${1:-}" = "-check" ]; then
  have && exit 0 || exit 1
fi
if have; then
  echo "${bin}"
  exit 0
fi

say() { echo "test-prometheus: $*" >&2; }
start=$(date +%s)
src="${root}/src"
rm -rf "${src}"
mkdir -p "${src}" "${bin}"
cd "${src}"

say "fetching github.com/prometheus/prometheus ${PROMETHEUS_VERSION}"
pdir=$(GOFLAGS=-mod=mod go mod download -json "github.com/prometheus/prometheus@${PROMETHEUS_VERSION}" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "${pdir}" ] || { say "cannot locate github.com/prometheus/prometheus ${PROMETHEUS_VERSION}"; exit 1; }
goversion=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "${pdir}/go.mod" | head -n1)
# The module's v0.3xx.y versions are Prometheus 3.xx.y; VERSION says which.
appversion=$(cat "${pdir}/VERSION" 2>/dev/null || echo "${PROMETHEUS_VERSION#v}")

# Prometheus's own go.mod has no local replaces; carry over any replace or
# exclude it does have, since a dependency's are ignored, and start from its
# go.sum so that resolving fetches as little as possible.
{
  echo "module rolloutkit.test/prometheus"
  echo
  echo "go ${goversion}"
  echo
  echo "require github.com/prometheus/prometheus ${PROMETHEUS_VERSION}"
  echo
  sed -n '/^replace (/,/^)/p; /^replace [^(]/p; /^exclude (/,/^)/p; /^exclude [^(]/p' "${pdir}/go.mod"
} > go.mod
cp "${pdir}/go.sum" go.sum
chmod u+w go.sum
cat > tools.go <<'EOF'
//go:build tools

package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
EOF

say "resolving modules"
GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>"${src}/tidy.log" || { cat "${src}/tidy.log" >&2; exit 1; }

for cmd in prometheus promtool; do
  [ -x "${bin}/${cmd}" ] && continue
  say "building ${cmd} ${appversion} (${PROMETHEUS_VERSION})"
  GOFLAGS=-mod=mod go build -trimpath -tags remove_all_sd \
    -ldflags "-s -w -X github.com/prometheus/common/version.Version=${appversion} -X github.com/prometheus/common/version.Branch=${PROMETHEUS_VERSION} -X github.com/prometheus/common/version.BuildUser=rolloutkit" \
    -o "${bin}/${cmd}.tmp" "github.com/prometheus/prometheus/cmd/${cmd}"
  mv "${bin}/${cmd}.tmp" "${bin}/${cmd}"
done
say "built in $(( $(date +%s) - start ))s"
echo "${bin}"
