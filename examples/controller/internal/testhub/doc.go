// Package testhub starts a real hub for tests and demos: etcd and
// kube-apiserver (built from Go modules by hack/test-apiserver.sh) run by
// controller-runtime's envtest on 127.0.0.1, with OCM's CustomResourceDefinitions
// installed from the open-cluster-management.io/api module's own YAML files
// and a minimal CRD for the seed's ManagedProxyConfiguration.
package testhub
