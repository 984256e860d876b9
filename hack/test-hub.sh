#!/usr/bin/env bash
# Starts a throwaway OCM hub on 127.0.0.1 with the seed's story loaded, for
# trying the controller by hand (see the README), and writes its kubeconfig.
#
#   hack/test-hub.sh /tmp/hub.kubeconfig [-soak 30s] [-deadline 2m] [-lifecycle rolloutkit] [-gc]
#
# The first run builds etcd and kube-apiserver (several minutes); later runs
# start in seconds. Ctrl-C stops the hub. The options are checked before
# anything is built: -h prints the usage, a bad option exits with 2.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: hack/test-hub.sh KUBECONFIG-FILE [testhub flags]

Starts a throwaway OCM hub on 127.0.0.1 (etcd, kube-apiserver, OCM's CRDs,
and the seed's story: clusters dev, stg and prod, the cluster-proxy add-on),
writes an administrator's kubeconfig to KUBECONFIG-FILE, and runs until
Ctrl-C. The first run builds etcd and kube-apiserver (several minutes);
later runs start in seconds.

testhub flags (go -C examples/controller run ./cmd/testhub -h says more):
  -soak DURATION      minSuccessTime of the seeded Placement's rollout strategy: each group's soak (default 30s)
  -deadline DURATION  progressDeadline of the seeded Placement's rollout strategy: each cluster's deadline (default 2m)
  -lifecycle VALUE    the add-on's addon.open-cluster-management.io/lifecycle
                      annotation (default rolloutkit, the controller's)
  -seed=false         OCM's CRDs only, nothing seeded
  -gc                 also run kube-controller-manager's garbage collector, as a
                      real hub does; without it, deleting a ClusterManagementAddOn
                      leaves its ManagedClusterAddOns behind
  -work-gate URL      install the work gate calling the controller at URL,
                      such as https://127.0.0.1:9443
  -admission URL      install admission's webhooks calling the controller at URL
                      (AddOnRollouts validated, approvers recorded); with
                      -work-gate, the same URL

Exit code: 0 after Ctrl-C (or -h), 1 when the hub fails, 2 on bad usage.
USAGE
}

bad() {
  echo "hack/test-hub.sh: $*" >&2
  echo "run hack/test-hub.sh -h for the usage" >&2
  exit 2
}

case "${1:-}" in
  -h | -help | --help) usage; exit 0 ;;
  "") usage >&2; exit 2 ;;
  -*) bad "$1: the first argument is the kubeconfig file to write, such as /tmp/hub.kubeconfig" ;;
esac
out=$1; shift

# Check the testhub flags here, before test-apiserver.sh may build for
# minutes: the ones that take a value, and -seed, a boolean.
rest=("$@")
while [ $# -gt 0 ]; do
  arg=$1; shift
  case "$arg" in
    -h | -help | --help) usage; exit 0 ;;
  esac
  name=${arg#-}; name=${name#-}; name=${name%%=*}
  case "$arg" in -*) ;; *) bad "unexpected argument \"$arg\": want testhub flags after the kubeconfig file" ;; esac
  case "$name" in
    soak | deadline | lifecycle | work-gate | admission)
      if [[ "$arg" != *=* ]]; then
        [ $# -gt 0 ] || bad "$arg needs a value"
        shift
      fi
      ;;
    seed | gc) ;;
    kubeconfig) bad "$arg: the kubeconfig file is the first argument" ;;
    set-agent-image) bad "$arg changes a running hub: go -C examples/controller run ./cmd/testhub -kubeconfig FILE $arg IMAGE" ;;
    *) bad "unknown option $arg" ;;
  esac
done

case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
cd "$(dirname "$0")/.."
KUBEBUILDER_ASSETS=$(hack/test-apiserver.sh)
export KUBEBUILDER_ASSETS
exec go -C examples/controller run ./cmd/testhub -kubeconfig "$out" "${rest[@]}"
