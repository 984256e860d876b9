package addon

import (
	"slices"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// Install says which ManagedClusterAddOns of the ClusterManagementAddOn cma
// to create and which to delete, as OCM's add-on manager does
// (addonmanagement): an add-on belongs in the namespace of every cluster
// that some install-strategy placement selects (placements[i] is
// spec.installStrategy.placements[i]; a placement whose Placement is
// missing selects nothing), and nowhere else. existing are the namespaces
// (clusters) that have an add-on named after cma, whoever created it.
//
// create are the selected clusters without an add-on, remove the clusters
// with an add-on that no placement selects any more; both sorted, without
// repeats. An install strategy other than Placements (Manual, or none)
// installs and removes nothing. A nil cma gives nothing either. The inputs
// are not modified.
func Install(cma *addonv1beta1.ClusterManagementAddOn, placements []PlacementInput, existing []string) (create, remove []string) {
	if cma == nil || cma.Spec.InstallStrategy.Type != addonv1beta1.AddonInstallStrategyPlacements {
		return nil, nil
	}
	required := make(map[string]bool)
	for _, in := range placements {
		if in.Placement == nil {
			continue
		}
		for _, g := range in.Groups {
			for _, c := range g.Clusters {
				required[c] = true
			}
		}
	}
	have := make(map[string]bool, len(existing))
	for _, c := range existing {
		have[c] = true
		if !required[c] {
			remove = append(remove, c)
		}
	}
	for c := range required {
		if !have[c] {
			create = append(create, c)
		}
	}
	slices.Sort(create)
	slices.Sort(remove)
	return create, slices.Compact(remove)
}

// LastPlacementWins keeps each cluster only in the groups of the last
// placement (by index in all) that selects it, as OCM's add-on manager
// does: a placement rolls out only the clusters it owns. The groups
// themselves stay, emptied where need be, so that indices keep their
// meaning. all is not modified; the result shares the groups that lose no
// cluster with it.
func LastPlacementWins(all [][]grouping.Group) [][]grouping.Group {
	owner := make(map[string]int)
	for i, gs := range all {
		for _, g := range gs {
			for _, c := range g.Clusters {
				owner[c] = i
			}
		}
	}
	out := slices.Clone(all)
	for i, gs := range all {
		cloned := false
		for k, g := range gs {
			var kept []string
			for _, c := range g.Clusters {
				if owner[c] == i {
					kept = append(kept, c)
				}
			}
			if len(kept) == len(g.Clusters) {
				continue
			}
			if !cloned {
				out[i], cloned = slices.Clone(gs), true
			}
			out[i][k].Clusters = kept
		}
	}
	return out
}
