#!/usr/bin/env bash
# Cuts a release from a tag: builds, into dist/VERSION/, everything a
# release ships but does not push it anywhere.
#
#   hack/release.sh vX.Y.Z            a release: refuses unless the tree is clean,
#                                     HEAD is tagged examples/controller/vX.Y.Z and
#                                     the library's tag vX.Y.Z exists, and the
#                                     controller's go.mod requires the library at
#                                     vX.Y.Z with no replace
#   hack/release.sh -snapshot [DIR]   the same builds and checks of HEAD as it is, without
#                                     those conditions, into DIR (default dist/snapshot):
#                                     what .ci/run runs
#
# What it builds, each stamped with the version (hack/version.sh):
#
#   rolloutkit-controller-linux-ARCH   the controller, static (hack/build-controller.sh)
#   kubectl-rolloutkit-OS-ARCH         the kubectl plugin, for this machine's platform
#   rolloutkit-controller.oci.tar      the controller's image, an OCI layout in a tar
#                                      (internal/image), read back and run by
#                                      TestImageLayout before the script ends
#   rolloutkit-X.Y.Z.tgz               examples/controller/charts/rolloutkit, packaged
#                                      as helm package does, with Helm's Go SDK
#                                      (internal/chart/cmd/chartpackage)
#   SHA256SUMS
#
# It runs on Linux, and builds the controller and the image for this
# machine's architecture: the read-back runs the image's binary. Pushing
# the image is the README's "Releasing". RELEASE_TEST_FLAGS are added to
# the read-back's go test (CI sets -race: its one run of that module).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "release: $*" >&2; exit 1; }

snapshot=false
case "${1:-}" in
  -snapshot) snapshot=true; out=${2:-dist/snapshot} ;;
  v[0-9]*.*.*) [ $# -eq 1 ] || die "usage: hack/release.sh vX.Y.Z | -snapshot [DIR]"; out="dist/$1" ;;
  *) echo "usage: hack/release.sh vX.Y.Z | -snapshot [DIR]" >&2; exit 2 ;;
esac

if ! $snapshot; then
  version=$1
  [ -z "$(git status --porcelain)" ] || die "the tree is not clean: commit or stash first (git status)"
  git tag --points-at HEAD | grep -qxF "examples/controller/${version}" ||
    die "HEAD is not tagged examples/controller/${version}: tag the commit that requires the library at ${version} (README, Releasing)"
  git rev-parse -q --verify "refs/tags/${version}" >/dev/null || die "no tag ${version} of the library"
  mod=$(go -C examples/controller mod edit -json)
  if grep -q '"Path": "github.com/rolloutkit/rolloutkit"' <<<"$(sed -n '/"Replace"/,$p' <<<"$mod")"; then
    die "examples/controller/go.mod still replaces the library: go install ...@${version} would refuse it (README, Releasing)"
  fi
  go -C examples/controller list -m -f '{{.Version}}' github.com/rolloutkit/rolloutkit | grep -qxF "$version" ||
    die "examples/controller/go.mod does not require github.com/rolloutkit/rolloutkit ${version}"
  export VERSION=$version MODIFIED=false
fi
eval "$(hack/version.sh)"
export VERSION REVISION MODIFIED CREATED
[ "$(go env GOHOSTOS)" = linux ] || die "run on Linux: the image's binary is run to check it"
arch=$(go env GOHOSTARCH)
unset GOOS GOARCH
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "release: ${VERSION} (revision ${REVISION}, created ${CREATED}) into ${out}"

ctl="${out}/rolloutkit-controller-linux-${arch}"
GOOS=linux GOARCH=$arch hack/build-controller.sh "$ctl"
plugin="${out}/kubectl-rolloutkit-$(go env GOOS)-$(go env GOARCH)"
hack/build-controller.sh "$plugin" ./cmd/rolloutctl

image="${out}/rolloutkit-controller.oci.tar"
go -C internal/image run . -binary "$ctl" -version "$VERSION" -revision "$REVISION" -created "$CREATED" -o "$image"
# The image read back: its config, its one layer, the binary in it run
# with -version, and a second pack of the binary giving the same bytes.
ROLLOUTKIT_IMAGE="$image" ROLLOUTKIT_IMAGE_BINARY="$ctl" ROLLOUTKIT_IMAGE_VERSION="$VERSION" ROLLOUTKIT_IMAGE_REVISION="$REVISION" \
  ROLLOUTKIT_IMAGE_MODIFIED="$MODIFIED" ROLLOUTKIT_IMAGE_CREATED="$CREATED" go -C internal/image test -count=1 ${RELEASE_TEST_FLAGS:-} ./...

# The chart, packaged as helm package does, by Helm's own Go SDK
# (internal/chart/cmd/chartpackage): no helm binary needed. Its files are
# stamped with the commit's time, so that the archive, like the image, is
# the same bytes when the commit is built again.
chart=$(go -C internal/chart run ./cmd/chartpackage -version "${VERSION#v}" -app-version "$VERSION" \
  -epoch "$(date -u -d "$CREATED" +%s)" -o "$out" "$(pwd)/examples/controller/charts/rolloutkit")
echo "release: the chart: ${chart}"
(cd "$out" && sha256sum -- * | grep -v ' SHA256SUMS$' >SHA256SUMS)
ls -l "$out"
