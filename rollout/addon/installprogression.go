package addon

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock"
)

// InstallProgression returns the status.installProgressions[] entry of the
// install-strategy placement ref, as OCM's add-on manager keeps it, from the
// ClusterManagementAddOn's current entries prev, the placement's desired
// configs ([PlacementConfigs]), the rollout's progress p (from [Tally]) and
// the clock clk (nil: the real clock), read once:
//
//   - configReferences has one entry per desired config, in desired order,
//     with its group/resource and desiredConfig (namespace/name and spec
//     hash);
//   - the entry of prev for ref is carried over only when each desired
//     config has a configReferences entry there with the same group/resource
//     and namespace/name (other configs may be listed too); then each
//     config's lastAppliedConfig and lastKnownGoodConfig are copied from it,
//     and its conditions are kept. Otherwise the entry starts afresh, with
//     neither;
//   - the Progressing condition p.Condition() is set with
//     meta.SetStatusCondition and a lastTransitionTime of the clock's time, which takes
//     effect only when the condition is new or its status changes (a
//     rollout that stays Progressing keeps the time it started);
//   - when p.Completed(), every config's lastAppliedConfig and
//     lastKnownGoodConfig become its desiredConfig. Until then they are left
//     as they were, so that lastKnownGoodConfig names the last config the
//     whole placement ran, through a rollout and a revert alike.
//
// Unlike OCM, which fills in the desired spec hash from another controller
// and keeps an old non-empty one, the desired spec hash here is always the
// one in desired. A config listed twice in desired is taken once, the first
// time; an entry of prev without a desiredConfig matches nothing (OCM would
// dereference nil).
//
// When nothing changes, the result is equal (reflect.DeepEqual) to the entry
// of prev for ref, so the caller can skip the write. The result shares no
// memory with the inputs, which are not modified.
func InstallProgression(prev []addonv1beta1.InstallProgression, ref addonv1beta1.PlacementRef,
	desired []Config, p Progress, clk clock.PassiveClock) addonv1beta1.InstallProgression {
	configs := uniqueConfigs(desired)
	old, found := findInstallProgression(prev, ref, configs)
	out := addonv1beta1.InstallProgression{PlacementRef: ref}
	if found {
		out.Conditions = slices.Clone(old.Conditions) // metav1.Condition holds no pointers
	}
	refs := make([]addonv1beta1.InstallConfigReference, 0, len(configs))
	for _, c := range configs {
		r := addonv1beta1.InstallConfigReference{
			ConfigGroupResource: c.GroupResource,
			DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: c.Referent, SpecHash: c.SpecHash},
		}
		switch {
		case p.Completed():
			r.LastAppliedConfig = r.DesiredConfig.DeepCopy()
			r.LastKnownGoodConfig = r.DesiredConfig.DeepCopy()
		case found:
			o := installConfig(old.ConfigReferences, c)
			r.LastAppliedConfig = o.LastAppliedConfig.DeepCopy()
			r.LastKnownGoodConfig = o.LastKnownGoodConfig.DeepCopy()
		}
		refs = append(refs, r)
	}
	// Keep an empty list empty the way prev has it (nil or not), so that
	// an unchanged entry stays DeepEqual.
	if len(refs) > 0 || (found && old.ConfigReferences != nil) {
		out.ConfigReferences = refs
	}
	cond := p.Condition()
	cond.LastTransitionTime = metav1.NewTime(clock.NowOf(clk))
	meta.SetStatusCondition(&out.Conditions, cond)
	return out
}

// uniqueConfigs returns desired without repeats of a group/resource and
// namespace/name, the first one kept.
func uniqueConfigs(desired []Config) []Config {
	out := make([]Config, 0, len(desired))
	seen := make(map[ref]bool, len(desired))
	for _, d := range desired {
		k := ref{gr: d.GroupResource, referent: d.Referent}
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// findInstallProgression returns the first entry of prev for ref that lists
// every one of configs, as OCM's findInstallProgression.
func findInstallProgression(prev []addonv1beta1.InstallProgression, ref addonv1beta1.PlacementRef,
	configs []Config) (addonv1beta1.InstallProgression, bool) {
	for _, old := range prev {
		if old.PlacementRef != ref {
			continue
		}
		covered := true
		for _, c := range configs {
			if installConfig(old.ConfigReferences, c).DesiredConfig == nil {
				covered = false
				break
			}
		}
		if covered {
			return old, true
		}
	}
	return addonv1beta1.InstallProgression{}, false
}

// installConfig returns the first entry of refs for c's group/resource and
// namespace/name, or the zero entry (no desiredConfig). A placement has a
// handful of configs: a scan costs less than a map.
func installConfig(refs []addonv1beta1.InstallConfigReference, c Config) addonv1beta1.InstallConfigReference {
	for _, r := range refs {
		if r.DesiredConfig != nil && r.ConfigGroupResource == c.GroupResource && r.DesiredConfig.ConfigReferent == c.Referent {
			return r
		}
	}
	return addonv1beta1.InstallConfigReference{}
}
