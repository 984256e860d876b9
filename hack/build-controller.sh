#!/usr/bin/env bash
# Builds the controller's static binary: the one build command that
# examples/controller/Dockerfile, .ci/run, hack/release.sh and the image
# test (internal/image) all run, so that the binary in every image is built
# the same way.
#
#   hack/build-controller.sh OUT
#
# OUT is the binary's path (relative to the repository's root, or
# absolute). The binary is static (CGO_ENABLED=0), holds no paths of the
# machine that built it (-trimpath) and no VCS stamp of go build's own
# (-buildvcs=false: a Docker build has no .git, and the same source must
# give the same binary with or without one). Instead it is stamped at link
# time with (see examples/controller/internal/buildinfo):
#
#   VERSION   default: the tag examples/controller/vX.Y.Z at HEAD, without
#             its prefix; else a pseudo-version as go build makes one,
#             v0.0.0-YYYYMMDDhhmmss-REVISION12 (+dirty when modified);
#             without git, (devel)
#   REVISION  default: git rev-parse HEAD; without git, unknown
#   MODIFIED  default: true when git status lists a change; else false
#
# GOOS and GOARCH pass through, for another platform's binary. It prints
# what it stamped to stderr.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: hack/build-controller.sh OUT" >&2
  exit 2
fi
out=$1
cd "$(dirname "$0")/.."
case "$out" in
  /*) ;;
  *) out="$(pwd)/${out}" ;;
esac

git_ok=false
if git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  git_ok=true
fi
if [ -z "${REVISION:-}" ]; then
  REVISION=unknown
  if $git_ok; then REVISION=$(git rev-parse HEAD); fi
fi
if [ -z "${MODIFIED:-}" ]; then
  MODIFIED=false
  if $git_ok && [ -n "$(git status --porcelain --untracked-files=no)" ]; then MODIFIED=true; fi
fi
if [ -z "${VERSION:-}" ]; then
  VERSION='(devel)'
  if $git_ok; then
    tag=$(git tag --points-at HEAD --list 'examples/controller/v*' | sort -V | tail -1)
    if [ -n "$tag" ]; then
      VERSION=${tag#examples/controller/}
    else
      VERSION="v0.0.0-$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)-$(git rev-parse --short=12 HEAD)"
    fi
    if [ "$MODIFIED" = true ]; then VERSION="${VERSION}+dirty"; fi
  fi
fi

pkg=github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo
echo "build-controller: ${out}: version ${VERSION}, revision ${REVISION}, modified ${MODIFIED}, $(go env GOOS)/$(go env GOARCH)" >&2
CGO_ENABLED=0 go -C examples/controller build -trimpath -buildvcs=false \
  -ldflags "-X '${pkg}.version=${VERSION}' -X '${pkg}.revision=${REVISION}' -X '${pkg}.modified=${MODIFIED}'" \
  -o "$out" .
