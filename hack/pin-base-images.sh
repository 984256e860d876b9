#!/usr/bin/env bash
# Pins the controller image's base images by digest: for each
# "ARG ..._IMAGE=REPO:TAG@sha256:..." line of examples/controller/Dockerfile,
# resolves REPO:TAG to the digest the registry serves now, with crane
# (github.com/google/go-containerregistry, run with go run), and rewrites
# the line. Commit the change on its own, after building and testing the
# image it gives.
#
#   hack/pin-base-images.sh [DOCKERFILE]
#
# CRANE overrides the crane command (default: go run
# github.com/google/go-containerregistry/cmd/crane@v0.22.1), e.g. an
# installed crane. It needs the registries: run it where they are
# reachable.
set -euo pipefail

case "${1:-}" in
  -h | -help | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
dockerfile=${1:-"$(dirname "$0")/../examples/controller/Dockerfile"}
[ -f "$dockerfile" ] || { echo "hack/pin-base-images.sh: no Dockerfile at $dockerfile" >&2; exit 2; }
crane=${CRANE:-go run github.com/google/go-containerregistry/cmd/crane@v0.22.1}

lines=$(grep -E '^ARG [A-Z_]+_IMAGE=' "$dockerfile" || true)
[ -n "$lines" ] || { echo "hack/pin-base-images.sh: no ARG ..._IMAGE= line in $dockerfile" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cp "$dockerfile" "$out"
while IFS= read -r line; do
  name=${line#ARG }; name=${name%%=*}
  image=${line#*=}
  ref=${image%%@*} # the tag the digest was resolved from
  digest=$($crane digest "$ref")
  case "$digest" in
    sha256:????????????????????????????????????????????????????????????????) ;;
    *) echo "hack/pin-base-images.sh: $ref: crane answered \"$digest\", not a sha256 digest" >&2; exit 1 ;;
  esac
  if [ "$image" = "$ref@$digest" ]; then
    echo "$name: $ref is still $digest"
  else
    echo "$name: $ref: ${image#*@} -> $digest"
    sed -i "s|^ARG $name=.*|ARG $name=$ref@$digest|" "$out"
  fi
done <<< "$lines"
cp "$out" "$dockerfile"
