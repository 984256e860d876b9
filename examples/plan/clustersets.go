package main

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// legacyClusterSetLabel is v1beta1's name for the selector type that v1beta2
// calls ExclusiveClusterSetLabel: both select the clusters labelled
// cluster.open-cluster-management.io/clusterset=<set>.
const legacyClusterSetLabel clusterv1beta2.SelectorType = "LegacyClusterSetLabel"

// clusterSetVersion checks that a ManagedClusterSet or binding is of a
// version plan reads: v1beta2, which hubs serve today, or v1beta1, which
// older hubs served and whose objects have the same fields. It tells
// whether the object is v1beta1.
func clusterSetVersion(apiVersion string) (v1beta1 bool, err error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err == nil && gv.Group == clusterv1beta2.GroupName {
		switch gv.Version {
		case "v1beta2":
			return false, nil
		case "v1beta1":
			return true, nil
		}
	}
	return false, fmt.Errorf("apiVersion %q: want %s (or v1beta1)", apiVersion, clusterv1beta2.GroupVersion)
}

// decodeClusterSet decodes a ManagedClusterSet of either version as a
// v1beta2 one. A v1beta1 set is converted as the hub's API server converts
// it: its LegacyClusterSetLabel selector becomes ExclusiveClusterSetLabel.
func decodeClusterSet(js []byte, apiVersion string, into *[]*clusterv1beta2.ManagedClusterSet) error {
	v1beta1, err := clusterSetVersion(apiVersion)
	if err != nil {
		return err
	}
	set := &clusterv1beta2.ManagedClusterSet{}
	if err := json.Unmarshal(js, set); err != nil {
		return err
	}
	if v1beta1 {
		set.APIVersion = clusterv1beta2.GroupVersion.String()
		if set.Spec.ClusterSelector.SelectorType == legacyClusterSetLabel {
			set.Spec.ClusterSelector.SelectorType = clusterv1beta2.ExclusiveClusterSetLabel
		}
	}
	*into = append(*into, set)
	return nil
}

// decodeBinding decodes a ManagedClusterSetBinding of either version as a
// v1beta2 one; the two versions have the same fields.
func decodeBinding(js []byte, apiVersion string, into *[]*clusterv1beta2.ManagedClusterSetBinding) error {
	v1beta1, err := clusterSetVersion(apiVersion)
	if err != nil {
		return err
	}
	b := &clusterv1beta2.ManagedClusterSetBinding{}
	if err := json.Unmarshal(js, b); err != nil {
		return err
	}
	if v1beta1 {
		b.APIVersion = clusterv1beta2.GroupVersion.String()
	}
	*into = append(*into, b)
	return nil
}
