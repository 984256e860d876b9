#!/usr/bin/env bash
# Builds the controller's static binary: the one build command that
# examples/controller/Dockerfile, .ci/run, hack/release.sh and the image
# test (internal/image) all run, so that the binary in every image is built
# the same way.
#
#   hack/build-controller.sh OUT [PACKAGE]
#
# OUT is the binary's path (relative to the repository's root, or
# absolute); PACKAGE, relative to examples/controller, is the controller
# (., the default) or another of the module's commands, built and
# stamped the same way (./cmd/rolloutctl, the kubectl plugin). The binary is static (CGO_ENABLED=0), holds no paths of the
# machine that built it (-trimpath) and no VCS stamp of go build's own
# (-buildvcs=false: a Docker build has no .git, and the same source must
# give the same binary with or without one), and no symbol table or DWARF
# (-s -w: half the image's size; a panic's stack trace still names every
# function). Instead it is stamped at link
# time with the VERSION, REVISION and MODIFIED that hack/version.sh
# prints (each from the environment when set there; see
# examples/controller/internal/buildinfo).
#
# GOOS and GOARCH pass through, for another platform's binary. It prints
# what it stamped to stderr.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: hack/build-controller.sh OUT [PACKAGE]" >&2
  exit 2
fi
out=$1
package=${2:-.}
cd "$(dirname "$0")/.."
case "$out" in
  /*) ;;
  *) out="$(pwd)/${out}" ;;
esac

eval "$(hack/version.sh)"

pkg=github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo
echo "build-controller: ${out}: version ${VERSION}, revision ${REVISION}, modified ${MODIFIED}, $(go env GOOS)/$(go env GOARCH)" >&2
CGO_ENABLED=0 go -C examples/controller build -trimpath -buildvcs=false \
  -ldflags "-s -w -X '${pkg}.version=${VERSION}' -X '${pkg}.revision=${REVISION}' -X '${pkg}.modified=${MODIFIED}'" \
  -o "$out" "$package"
