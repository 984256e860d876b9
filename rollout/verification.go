package rollout

import (
	"errors"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// AfterVerified returns the gate of the checks run between groups: it
// holds every group that comes after, in order, a group whose verification
// is pending, and admits the others. pending maps each such group to why
// (the last check's answer, or that it has not run yet); the caller feeds
// it from the checks it ran, so that the planner stays pure. A group
// counts as verified only once it is complete and its checks passed, so
// the caller lists in pending every group that needs checks and has not
// passed them, complete or not.
//
// order is the order the rollout walks its groups in ([WalkOrder]); a
// group not in order is never held.
func AfterVerified(order []grouping.GroupKey, pending map[grouping.GroupKey]string) Gate {
	// blocker[i] is the first group before position i whose verification
	// is pending, or -1.
	pos := make(map[grouping.GroupKey]int, len(order))
	blocker := make([]int, len(order))
	first := -1
	for i, k := range order {
		pos[k] = i
		blocker[i] = first
		if _, ok := pending[k]; ok && first < 0 {
			first = i
		}
	}
	return GateFunc(func(g grouping.GroupKey, _ time.Time) Admission {
		i, ok := pos[g]
		if !ok || blocker[i] < 0 {
			return Admission{Admitted: true}
		}
		b := order[blocker[i]]
		reason := "waiting for the verification of " + b.Label() // `group "stg"`
		if why := pending[b]; why != "" {
			reason += ": " + why
		}
		return Admission{Reason: reason}
	})
}

// WalkOrder is the order in which a rollout of strategy s walks groups:
// the mandatory groups first (mandatoryDecisionGroups, as Plan matches
// them), then the others, each in ascending index. Group keys must be
// unique, as Plan requires; the error is Plan's for the same inputs.
func WalkOrder(s clusterv1alpha1.RolloutStrategy, groups []grouping.Group) ([]grouping.GroupKey, error) {
	st, errs := parseStrategy(s)
	f, ferrs := index(groups, nil)
	if err := errors.Join(append(errs, ferrs...)...); err != nil {
		return nil, err
	}
	r, _ := newRun(&st, &f, time.Time{}, nil, nil)
	order := r.walkOrder()
	keys := make([]grouping.GroupKey, len(order))
	for i, gi := range order {
		keys[i] = f.groups[gi].key
	}
	return keys, nil
}
