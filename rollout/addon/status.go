package addon

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/rollout"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// smallSet is the number of desired configs up to which ClusterStatus scans
// the slice instead of building a map: an add-on has a handful of configs,
// and a map per add-on would cost more than it saves.
const smallSet = 8

// ClusterStatus maps the ManagedClusterAddOn mca and the configs it should
// run with (from [Desired]) to the cluster's rollout status, as OCM's add-on
// manager does:
//
//   - the number of status.configReferences differs from len(desired):
//     ToApply;
//   - otherwise each reference, in order, until one decides: a config that
//     is not desired (group/resource + namespace/name), or whose
//     desiredConfig spec hash differs from the desired one, gives ToApply; one
//     whose lastAppliedConfig differs from its desiredConfig gives, by the
//     reason of the Progressing condition, Failed ("Failed") or Progressing
//     ("Progressing") with the condition's lastTransitionTime, or
//     Progressing with an unknown (zero) time for any other reason or no
//     condition;
//   - when no reference decides: Succeeded, with the condition's
//     lastTransitionTime when its reason is "Completed", else unknown.
//
// The first reference that decides wins, as in OCM, so with two stale
// configs the order of status.configReferences can matter.
//
// The result's Cluster is mca's namespace. A nil mca (the add-on does not
// exist yet) is ToApply, as OCM treats a selected cluster without an add-on;
// its Cluster is empty for the caller to fill in (or leave the cluster out:
// the planner treats a cluster without a status as ToApply too).
//
// A status.configReferences entry without a desiredConfig (OCM would
// dereference nil) and an mca without a namespace are errors naming the
// add-on; mca is not modified.
func ClusterStatus(mca *addonv1beta1.ManagedClusterAddOn, desired []Config) (rollout.ClusterStatus, error) {
	if mca == nil {
		return rollout.ClusterStatus{Status: rollout.ToApply}, nil
	}
	if err := checkStatus(mca); err != nil {
		return rollout.ClusterStatus{}, err
	}
	st := rollout.ClusterStatus{Cluster: mca.Namespace}
	refs := mca.Status.ConfigReferences
	if len(refs) != len(desired) {
		st.Status = rollout.ToApply
		return st, nil
	}
	progressing := progressingCondition(mca.Status.Conditions)
	lookup := newDesiredIndex(desired)
	for _, actual := range refs {
		hash, ok := lookup(actual.ConfigGroupResource, actual.DesiredConfig.ConfigReferent)
		switch {
		case !ok, hash != actual.DesiredConfig.SpecHash:
			st.Status = rollout.ToApply
			return st, nil
		case !sameSpecHash(actual.LastAppliedConfig, actual.DesiredConfig):
			switch progressing.Reason {
			case addonv1beta1.ProgressingReasonFailed:
				st.Status = rollout.Failed
				st.LastTransitionTime = progressing.LastTransitionTime.Time
			case addonv1beta1.ProgressingReasonProgressing:
				st.Status = rollout.Progressing
				st.LastTransitionTime = progressing.LastTransitionTime.Time
			default:
				st.Status = rollout.Progressing
			}
			return st, nil
		}
	}
	st.Status = rollout.Succeeded
	if progressing.Reason == addonv1beta1.ProgressingReasonCompleted {
		st.LastTransitionTime = progressing.LastTransitionTime.Time
	}
	return st, nil
}

// checkStatus reports every field of mca that ClusterStatus cannot work with.
func checkStatus(mca *addonv1beta1.ManagedClusterAddOn) error {
	var errs []error
	if mca.Namespace == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "namespace"), "the name of the managed cluster"))
	}
	refs := field.NewPath("status", "configReferences")
	for i, r := range mca.Status.ConfigReferences {
		if r.DesiredConfig == nil {
			errs = append(errs, field.Required(refs.Index(i).Child("desiredConfig"),
				"the desired namespace/name and spec hash of "+grName(r.ConfigGroupResource)))
		}
	}
	return ifield.About(mcaName(mca), errs...)
}

// progressingCondition returns the first condition of type Progressing, or
// the zero condition (reason "").
func progressingCondition(conds []metav1.Condition) metav1.Condition {
	for _, c := range conds {
		if c.Type == addonv1beta1.ManagedClusterAddOnConditionProgressing {
			return c
		}
	}
	return metav1.Condition{}
}

// Applied reports whether the add-on reports every config refs (its
// status.configReferences) hand it applied: each desiredConfig is its
// lastAppliedConfig. While one is not, the handover of the desired
// configs is under way on the cluster.
func Applied(refs []addonv1beta1.ConfigReference) bool {
	for _, r := range refs {
		if r.DesiredConfig != nil && !sameSpecHash(r.LastAppliedConfig, r.DesiredConfig) {
			return false
		}
	}
	return true
}

// sameSpecHash compares two optional config hashes: both absent, or equal.
func sameSpecHash(a, b *addonv1beta1.ConfigSpecHash) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// newDesiredIndex returns a lookup from a config to its desired spec hash.
// For a config listed twice the first entry wins, as in OCM.
func newDesiredIndex(desired []Config) func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, bool) {
	if len(desired) <= smallSet {
		return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, bool) {
			for _, d := range desired {
				if d.GroupResource == gr && d.Referent == r {
					return d.SpecHash, true
				}
			}
			return "", false
		}
	}
	index := make(map[ref]string, len(desired))
	for _, d := range desired {
		k := ref{gr: d.GroupResource, referent: d.Referent}
		if _, dup := index[k]; !dup {
			index[k] = d.SpecHash
		}
	}
	return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, bool) {
		h, ok := index[ref{gr: gr, referent: r}]
		return h, ok
	}
}
