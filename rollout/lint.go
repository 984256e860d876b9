package rollout

import (
	"fmt"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// maxNamed is how many names a warning lists before "and N more".
const maxNamed = 3

// notes is what reading the inputs noticed for lint: the clusters whose
// soak or deadline is measured from now, and the mandatoryDecisionGroups
// entries that match no group.
type notes struct {
	unknown   unknownTimes
	unmatched []Warning
}

// lint names what will likely surprise the user (DESIGN "Beyond OCM": lint).
func (r *run) lint(v *verdict, n notes) []Warning {
	var w []Warning
	if n.unknown.n > 0 {
		w = append(w, Warning{Kind: UnknownTransitionTime, Message: fmt.Sprintf(
			"%d cluster(s) have no lastTransitionTime, so their soak or deadline is measured from now and restarts at every call: %s",
			n.unknown.n, ifield.Names(n.unknown.names, n.unknown.n, maxNamed))})
	}
	w = append(w, n.unmatched...)
	if !r.st.maxFailures.IsZero() && v.untrippable {
		w = append(w, Warning{Kind: FailureBudgetNeverTrips, Message: fmt.Sprintf(
			"%s %s is at least the number of clusters it applies to, so the failure check can never trip",
			r.st.path("maxFailures"), r.st.maxFailures)})
	}
	// minSuccessTime is 0 for type All, where the soak does not apply.
	if !r.st.hasDeadline && r.st.minSuccess > 0 {
		w = append(w, Warning{Kind: SoakWithoutDeadline, Message: fmt.Sprintf(
			"%s is None while minSuccessTime is %s: one cluster stuck Progressing holds the rollout forever",
			r.st.path("progressDeadline"), r.st.minSuccess)})
	}
	return w
}
