#!/usr/bin/env bash
# Prints, as shell assignments for eval, the build that
# hack/build-controller.sh stamps and hack/release.sh labels the image
# with, each from the environment when set there:
#
#   VERSION   default: the tag examples/controller/vX.Y.Z at HEAD, without
#             its prefix; else a pseudo-version as go build makes one,
#             v0.0.0-YYYYMMDDhhmmss-REVISION12 (+dirty when modified);
#             without git, (devel)
#   REVISION  default: git rev-parse HEAD; without git, unknown
#   MODIFIED  default: true when git status lists a change to a tracked
#             file; else false
#   CREATED   default: HEAD's commit time (RFC 3339, UTC); without git,
#             1970-01-01T00:00:00Z: a time of the commit, never of the build,
#             so that a build is the same bytes whenever it runs
#
#   eval "$(hack/version.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

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
if [ -z "${CREATED:-}" ]; then
  CREATED=1970-01-01T00:00:00Z
  if $git_ok; then CREATED=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ HEAD); fi
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
printf 'VERSION=%q\nREVISION=%q\nMODIFIED=%q\nCREATED=%q\n' "$VERSION" "$REVISION" "$MODIFIED" "$CREATED"
