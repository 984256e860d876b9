#!/usr/bin/env bash
# Regenerates the API's deep-copy functions and the CRDs from the Go types
# in api/v1alpha1 (their kubebuilder markers), with controller-gen:
#
#   hack/generate.sh
#
# Run it after changing api/v1alpha1; TestCRDsMatchTypes in
# examples/controller/config fails while the CRDs lag the types.
set -euo pipefail
cd "$(dirname "$0")/.."
CONTROLLER_TOOLS_VERSION=${CONTROLLER_TOOLS_VERSION:-v0.23.0}
go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_TOOLS_VERSION}" \
  object paths=./api/... \
  crd:crdVersions=v1 output:crd:dir=./examples/controller/config/crd
# The Helm chart renders the same CRDs from copies of its own (a chart
# cannot read outside its directory); internal/chart's
# TestHelmMatchesKustomize fails while they differ.
cp examples/controller/config/crd/rolloutkit.io_*.yaml examples/controller/charts/rolloutkit/files/crds/
