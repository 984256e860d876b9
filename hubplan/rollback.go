package hubplan

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Rollback is an automatic rollback the plan decided
// (spec.onFailure: Rollback): restore each config's spec, then write the
// status, whose Rollbacks say it happened.
type Rollback struct {
	// Status is what the AddOnRollout's status records of it.
	Status v1alpha1.RollbackStatus
	// Configs are the configs to restore, each with the spec to write.
	Configs []v1alpha1.RecordedConfig
}

// fastPaths says, by install-strategy placement index, which placements
// roll out by spec.fastRollback's fast path: the AddOnRollout allows it,
// the placement's configs are at a revision its history says completed
// on it, and every cluster of the placement that has not applied that
// revision was among the clusters it completed on.
func fastPaths(in Inputs) map[int]bool {
	ar, cma := in.Controls.Rollout, in.ClusterManagementAddOn
	if ar == nil || !ar.Spec.FastRollback || cma == nil || len(in.Controls.History) == 0 {
		return nil
	}
	byCluster := make(map[string]*addonv1beta1.ManagedClusterAddOn, len(in.Addons))
	for _, m := range in.Addons {
		if m != nil && m.Name == cma.Name {
			byCluster[m.Namespace] = m
		}
	}
	out := map[int]bool{}
	for i, ps := range cma.Spec.InstallStrategy.Placements {
		if i >= len(in.Placements) || in.Placements[i].Placement == nil {
			continue
		}
		desired, err := addon.PlacementConfigs(cma, ps.PlacementRef, in.SpecHash)
		if err != nil || len(desired) == 0 {
			continue
		}
		ref := v1alpha1.PlacementRef{Namespace: ps.PlacementRef.Namespace, Name: ps.PlacementRef.Name}
		name := HistoryName(cma.Name, ref, addon.Revision(desired))
		j, ok := historyIndex(in.Controls.History, name)
		if !ok || in.Controls.History[j].Completed == nil {
			continue
		}
		ran := in.Controls.History[j].Clusters
		pending, eligible := 0, true
		for _, g := range in.Placements[i].Groups {
			for _, cl := range g.Clusters {
				if applied(byCluster[cl], desired) {
					continue
				}
				pending++
				if _, found := slices.BinarySearch(ran, cl); !found {
					eligible = false
				}
			}
		}
		// Once every cluster applied it, it stays on the fast path to its
		// end (the status says it took it), or it would wait for the soaks
		// and checks it skipped.
		if eligible && (pending > 0 || wasFast(ar.Status, ref, name, cma.Name)) {
			out[i] = true
		}
	}
	return out
}

// wasFast reports whether the status says placement ref's revision of
// history name rolled out on the fast path.
func wasFast(st v1alpha1.AddOnRolloutStatus, ref v1alpha1.PlacementRef, name, addOn string) bool {
	return slices.ContainsFunc(st.Placements, func(ps v1alpha1.PlacementStatus) bool {
		return ps.Namespace == ref.Namespace && ps.Name == ref.Name && ps.FastRollback && len(ps.Configs) > 0 &&
			HistoryName(addOn, ref, ConfigsRevision(ps.Configs)) == name
	})
}

// applied reports whether the add-on mca has applied every config of
// desired.
func applied(mca *addonv1beta1.ManagedClusterAddOn, desired []addon.Config) bool {
	if mca == nil {
		return false
	}
	for _, c := range desired {
		if !slices.ContainsFunc(mca.Status.ConfigReferences, func(r addonv1beta1.ConfigReference) bool {
			return r.ConfigGroupResource == c.GroupResource && r.LastAppliedConfig != nil &&
				r.LastAppliedConfig.ConfigReferent == c.Referent && r.LastAppliedConfig.SpecHash == c.SpecHash
		}) {
			return false
		}
	}
	return true
}

// withoutSoak returns a copy of cma whose placements fast has no
// minSuccessTime (cma itself when fast is empty).
func withoutSoak(cma *addonv1beta1.ClusterManagementAddOn, fast map[int]bool) *addonv1beta1.ClusterManagementAddOn {
	if len(fast) == 0 {
		return cma
	}
	out := cma.DeepCopy()
	for i := range out.Spec.InstallStrategy.Placements {
		if !fast[i] {
			continue
		}
		s := &out.Spec.InstallStrategy.Placements[i].RolloutStrategy
		zero := metav1.Duration{}
		if s.All != nil {
			s.All.MinSuccessTime = zero
		}
		if s.Progressive != nil {
			s.Progressive.MinSuccessTime = zero
		}
		if s.ProgressivePerGroup != nil {
			s.ProgressivePerGroup.MinSuccessTime = zero
		}
	}
	return out
}

// rollbacks decides the automatic rollbacks of spec.onFailure: Rollback:
// each placement whose revision failed a verification, or breached its
// failure budget, goes back to its last completed revision, unless a
// rollback brought it to the revision it is at. It returns them, and st
// with them recorded in its Rollbacks.
func rollbacks(ar *v1alpha1.AddOnRollout, st v1alpha1.AddOnRolloutStatus, history []HistoryEntry, now metav1.Time) ([]Rollback, []v1alpha1.RollbackStatus) {
	recorded := slices.Clone(ar.Status.Rollbacks)
	if ar.Spec.OnFailure != v1alpha1.OnFailureRollback {
		return nil, recorded
	}
	var out []Rollback
	for _, ps := range st.Placements {
		if ps.Revision == "" || len(ps.Configs) == 0 {
			continue
		}
		reason, message := failure(ps)
		if reason == "" {
			continue
		}
		ref := v1alpha1.PlacementRef{Namespace: ps.Namespace, Name: ps.Name}
		current := ConfigsRevision(ps.Configs)
		i := slices.IndexFunc(recorded, func(r v1alpha1.RollbackStatus) bool { return r.Placement == ref })
		if i >= 0 && recorded[i].To == current {
			continue // a rollback brought it here: hold, as Pause does
		}
		if i >= 0 && recorded[i].From == current && ps.RevisionStartTime != nil && !recorded[i].Time.Before(&metav1.Time{Time: ps.RevisionStartTime.Truncate(time.Second)}) {
			continue // rolled back already: its configs are on their way
		}
		target, err := UndoTarget(history, ref, current, 0)
		if err != nil {
			continue // nothing to go back to: hold
		}
		rs := v1alpha1.RollbackStatus{Placement: ref, From: current, To: target.Record.Revision, ToNumber: target.Number,
			Reason: reason, Message: message, Time: now}
		out = append(out, Rollback{Status: rs, Configs: slices.Clone(target.Record.Configs)})
		if i >= 0 {
			recorded[i] = rs
		} else {
			recorded = append(recorded, rs)
		}
	}
	return out, recorded
}

// failure says why placement status ps's revision failed: a verification
// that did not pass, or a group that breached its failure budget; ""
// when it did not.
func failure(ps v1alpha1.PlacementStatus) (reason, message string) {
	for _, v := range ps.Verifications {
		if !v.Passed {
			return ReasonVerificationFailed, fmt.Sprintf("verification %s of group %s failed: %s", v.Name, groupName(v.Group, v.Index), v.Message)
		}
	}
	for _, g := range ps.Groups {
		if g.Phase == rollout.Breached.String() {
			return ReasonBreached, fmt.Sprintf("group %s breached its failure budget: %s", groupName(g.Name, g.Index), g.Message)
		}
	}
	return "", ""
}

func groupName(name string, index int32) string {
	if name != "" {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%d", index)
}
