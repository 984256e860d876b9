package addon

import (
	"slices"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// ConfigReferences returns the status.configReferences a ManagedClusterAddOn
// should carry once the rollout lists its cluster: current (its
// status.configReferences) merged with desired (Cluster.Configs), as OCM's
// add-on manager merges them:
//
//   - a current entry is kept when its group/resource and desiredConfig
//     namespace/name are desired; its desiredConfig takes the desired spec
//     hash, and its lastAppliedConfig and lastObservedGeneration are kept,
//     so that the add-on agent's record of what it applied survives;
//   - every other current entry is dropped, as is one without a
//     desiredConfig (OCM would dereference nil);
//   - a desired config no kept entry names is appended, with its
//     desiredConfig and no lastAppliedConfig;
//   - the result is ordered by group, then resource; within one
//     group/resource the kept entries come first, in their current order,
//     then the new ones, in desired order.
//
// A config listed twice, in current or in desired, is taken once, the first
// time (OCM would keep a repeated current entry without updating it, and the
// add-on would stay ToApply for ever; [Desired] never repeats a config).
//
// When nothing changes, the result is equal (reflect.DeepEqual) to current,
// nil or empty alike, so the caller can skip the write. The result shares no
// memory with the inputs, which are not modified.
func ConfigReferences(current []addonv1beta1.ConfigReference, desired []Config) []addonv1beta1.ConfigReference {
	hashOf := newDesiredIndex(desired)
	taken := make(map[ref]bool, len(desired))
	out := make([]addonv1beta1.ConfigReference, 0, len(desired))
	for _, c := range current {
		if c.DesiredConfig == nil {
			continue
		}
		k := ref{gr: c.ConfigGroupResource, referent: c.DesiredConfig.ConfigReferent}
		h, ok := hashOf(k.gr, k.referent)
		if !ok || taken[k] {
			continue
		}
		taken[k] = true
		out = append(out, addonv1beta1.ConfigReference{
			ConfigGroupResource:    c.ConfigGroupResource,
			LastObservedGeneration: c.LastObservedGeneration,
			DesiredConfig:          &addonv1beta1.ConfigSpecHash{ConfigReferent: k.referent, SpecHash: h},
			LastAppliedConfig:      c.LastAppliedConfig.DeepCopy(),
		})
	}
	for _, d := range desired {
		k := ref{gr: d.GroupResource, referent: d.Referent}
		if taken[k] {
			continue
		}
		taken[k] = true
		out = append(out, addonv1beta1.ConfigReference{
			ConfigGroupResource: d.GroupResource,
			DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: d.Referent, SpecHash: d.SpecHash},
		})
	}
	// Stable: kept entries stay before new ones of their group/resource.
	slices.SortStableFunc(out, func(a, b addonv1beta1.ConfigReference) int {
		return compareGroupResources(a.ConfigGroupResource, b.ConfigGroupResource)
	})
	if len(out) == 0 && current == nil {
		return nil
	}
	return out
}
