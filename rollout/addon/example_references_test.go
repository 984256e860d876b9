package addon_test

import (
	"fmt"
	"reflect"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ExampleConfigReferences writes a new spec hash of the cluster-proxy config
// to an add-on that runs the old one: desiredConfig changes, what the agent
// last applied is kept until it applies the new one. Merging again changes
// nothing, so the second write can be skipped.
func ExampleConfigReferences() {
	proxy := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	referent := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	current := []addonv1beta1.ConfigReference{{
		ConfigGroupResource:    proxy,
		LastObservedGeneration: 1,
		DesiredConfig:          &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "old"},
		LastAppliedConfig:      &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "old"},
	}}
	desired := []addon.Config{{GroupResource: proxy, Referent: referent, SpecHash: "new"}}

	merged := addon.ConfigReferences(current, desired)
	for _, r := range merged {
		fmt.Printf("%s.%s %q: desired %s, last applied %s\n",
			r.Resource, r.Group, r.DesiredConfig.Name, r.DesiredConfig.SpecHash, r.LastAppliedConfig.SpecHash)
	}
	fmt.Println("write again:", !reflect.DeepEqual(merged, addon.ConfigReferences(merged, desired)))
	// Output:
	// managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": desired new, last applied old
	// write again: false
}
