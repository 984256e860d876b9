package rollout

import (
	"fmt"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// lint names what will likely surprise the user (DESIGN "Beyond OCM": lint).
func (r *run) lint() []string {
	var w []string
	if r.unknownN > 0 {
		w = append(w, fmt.Sprintf("%d cluster(s) have no lastTransitionTime, so their soak or deadline is measured from now and restarts at every call: %s",
			r.unknownN, field.Names(r.unknownLTT, r.unknownN, maxNamed)))
	}
	w = append(w, r.unmatchedMD...)
	if r.st.kind == clusterv1alpha1.All {
		return w
	}
	if !r.st.maxFailures.IsZero() && r.budgetNeverTrips() {
		w = append(w, fmt.Sprintf("%s.maxFailures %s is at least the number of clusters it applies to, so the failure check can never trip",
			r.st.prefix, r.st.maxFailures))
	}
	if !r.st.hasDeadline && r.st.minSuccess > 0 {
		w = append(w, fmt.Sprintf("%s.progressDeadline is None while minSuccessTime is %s: one cluster stuck Progressing holds the rollout forever",
			r.st.prefix, r.st.minSuccess))
	}
	return w
}

// budgetNeverTrips reports whether maxFailures covers every cluster it
// counts: each non-mandatory group for ProgressivePerGroup, the whole fleet
// for Progressive.
func (r *run) budgetNeverTrips() bool {
	if r.st.kind == clusterv1alpha1.Progressive {
		return r.st.maxFailures.Of(len(r.f.entries)) >= len(r.f.entries)
	}
	any := false
	for _, g := range r.f.groups {
		if g.mandatory || g.size() == 0 {
			continue
		}
		any = true
		if r.st.failureBudget(g.size()) < g.size() {
			return false
		}
	}
	return any
}
