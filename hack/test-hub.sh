#!/usr/bin/env bash
# Starts a throwaway OCM hub on 127.0.0.1 with the seed's story loaded, for
# trying the controller by hand (see the README), and writes its kubeconfig.
#
#   hack/test-hub.sh /tmp/hub.kubeconfig [-soak 30s] [-deadline 2m] [-lifecycle rolloutkit]
#
# The first run builds etcd and kube-apiserver (several minutes); later runs
# start in seconds. Ctrl-C stops the hub.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: hack/test-hub.sh KUBECONFIG-FILE [testhub flags]" >&2
  exit 2
fi
out=$1; shift
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
KUBEBUILDER_ASSETS=$(hack/test-apiserver.sh)
export KUBEBUILDER_ASSETS
exec go -C examples/controller run ./cmd/testhub -kubeconfig "$out" "$@"
