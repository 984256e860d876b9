// Package testhub starts a real hub for tests and demos: etcd and
// kube-apiserver (built from Go modules by hack/test-apiserver.sh) run by
// controller-runtime's envtest on 127.0.0.1, with OCM's CustomResourceDefinitions
// installed from the open-cluster-management.io/api module's own YAML files
// and a minimal CRD for the seed's ManagedProxyConfiguration.
//
// # Add-on versions
//
// ClusterManagementAddOns and ManagedClusterAddOns are served in v1alpha1,
// the version stored, and v1beta1, the version `kubectl get` prints. As on
// a real hub, where OCM's add-on manager serves it, the API server converts
// between the two through a conversion webhook: the hub serves it itself,
// over HTTPS on 127.0.0.1 with a CA it makes at start (Hub.ConversionURL),
// converting with addonversion. Without it, the CRDs'
// own conversion (strategy None) would change apiVersion alone, and a
// v1beta1 read or write would lose every field v1alpha1 lacks: a
// ClusterManagementAddOn's default configs, above all.
package testhub
