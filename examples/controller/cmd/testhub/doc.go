// Command testhub starts a throwaway OCM hub on 127.0.0.1 for trying the
// controller by hand: etcd and kube-apiserver (built by
// hack/test-apiserver.sh), OCM's CRDs (ManifestWorks included) with the
// add-ons' conversion webhook between v1alpha1 and v1beta1, as OCM's add-on
// manager serves it, and the
// seed's story (three clusters labelled dev, stg and prod, the global
// ManagedClusterSet bound in the Placement's namespace as on any OCM hub,
// the cluster-proxy Placement and ClusterManagementAddOn, annotated for the
// controller by default (-lifecycle), and the ManagedProxyConfiguration).
// It writes an administrator's kubeconfig and runs until interrupted.
//
//	hack/test-hub.sh /tmp/hub.kubeconfig              # start (this wraps the next line)
//	go -C examples/controller run ./cmd/testhub -kubeconfig /tmp/hub.kubeconfig
//	go -C examples/controller run ./cmd/testhub -kubeconfig /tmp/hub.kubeconfig -set-agent-image quay.io/open-cluster-management/cluster-proxy:v0.9.1
//
// The second form does not start a hub: it changes the agent image on the
// running one, the change the seed rolls out. With -seed=false the hub has
// OCM's CRDs and nothing else, for a test that writes its own objects
// (internal/sidebyside runs it so).
//
// Exit codes: 0 after a clean stop, 1 on a run-time error, 2 for bad flags.
package main
