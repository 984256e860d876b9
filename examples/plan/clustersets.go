package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// legacyClusterSetLabel is v1beta1's name for the selector type that v1beta2
// calls ExclusiveClusterSetLabel: both select the clusters labelled
// cluster.open-cluster-management.io/clusterset=<set>.
const legacyClusterSetLabel clusterv1beta2.SelectorType = "LegacyClusterSetLabel"

// clusterSetV1beta2 returns a ManagedClusterSet decoded from gvk's version
// as a v1beta2 one. A v1beta1 set (older hubs serve it, with v1beta2's
// fields; the scheme decodes it into the v1beta2 type) is converted as the
// hub's API server converts it: its LegacyClusterSetLabel selector becomes
// ExclusiveClusterSetLabel.
func clusterSetV1beta2(set *clusterv1beta2.ManagedClusterSet, gvk schema.GroupVersionKind) *clusterv1beta2.ManagedClusterSet {
	if gvk.Version == clusterv1beta2.GroupVersion.Version {
		return set
	}
	set.APIVersion = clusterv1beta2.GroupVersion.String()
	if set.Spec.ClusterSelector.SelectorType == legacyClusterSetLabel {
		set.Spec.ClusterSelector.SelectorType = clusterv1beta2.ExclusiveClusterSetLabel
	}
	return set
}

// bindingV1beta2 returns a ManagedClusterSetBinding of either version as a
// v1beta2 one; the two versions have the same fields.
func bindingV1beta2(b *clusterv1beta2.ManagedClusterSetBinding) *clusterv1beta2.ManagedClusterSetBinding {
	b.APIVersion = clusterv1beta2.GroupVersion.String()
	return b
}
