package addon_test

import (
	"fmt"
	"time"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ExampleInstallProgression follows a placement's install progression
// through a rollout of a new spec hash of the cluster-proxy config:
// last-known-good stays the old config until every selected cluster has
// succeeded, and the Progressing condition keeps the time the rollout
// started while it lasts.
func ExampleInstallProgression() {
	placement := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	old := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"}
	prev := []addonv1beta1.InstallProgression{{
		PlacementRef: placement,
		ConfigReferences: []addonv1beta1.InstallConfigReference{{
			ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
			DesiredConfig:       old, LastAppliedConfig: old, LastKnownGoodConfig: old,
		}},
	}}
	desired := []addon.Config{{
		GroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
		Referent:      addonv1beta1.ConfigReferent{Name: "cluster-proxy"},
		SpecHash:      "new",
	}}

	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i, p := range []addon.Progress{
		{Selected: 3, Rolling: 1},
		{Selected: 3, Rolling: 1, Succeeded: 1},
		{Selected: 3, Succeeded: 3},
	} {
		now := start.Add(time.Duration(i) * 6 * time.Minute)
		ip := addon.InstallProgression(prev, placement, desired, p, fake.New(now))
		r, c := ip.ConfigReferences[0], ip.Conditions[0]
		fmt.Printf("%s desired %s, last applied %s, last known good %s; %s=%s since %s\n",
			now.Format("15:04"), r.DesiredConfig.SpecHash, r.LastAppliedConfig.SpecHash, r.LastKnownGoodConfig.SpecHash,
			c.Type, c.Status, c.LastTransitionTime.Format("15:04"))
		prev = []addonv1beta1.InstallProgression{ip}
	}
	// Output:
	// 12:00 desired new, last applied old, last known good old; Progressing=True since 12:00
	// 12:06 desired new, last applied old, last known good old; Progressing=True since 12:00
	// 12:12 desired new, last applied new, last known good new; Progressing=False since 12:12
}
