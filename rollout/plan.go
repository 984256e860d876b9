package rollout

import (
	"errors"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// Plan decides the next step of a rollout of strategy s over groups, given
// the clusters' observed statuses (docs/semantics.md §3). A cluster of a
// group with no status is untouched, like ToApply. Statuses of clusters in
// no group are returned as Removed, as given. A status value outside the
// six is an error naming the cluster and the value.
//
// The clock is read once. Inputs are validated first and every problem is
// returned at once: *field.Error values
// (k8s.io/apimachinery/pkg/util/validation/field) joined with errors.Join,
// whose paths name the strategy's fields (as [Validate] does), the
// planner's (Planner.DefaultConcurrency) and the arguments' (groups[2].Index,
// statuses[0].Cluster). The inputs are never modified, and the result does
// not depend on their order.
func (p Planner) Plan(s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, statuses []ClusterStatus) (Result, error) {
	now := clock.NowOf(p.Clock)
	st, errs := parseStrategy(s)
	var def *ifield.Portion // Progressive's window when maxConcurrency is unset
	if p.DefaultConcurrency != nil {
		d, err := parsePortion(*p.DefaultConcurrency, "Planner", "DefaultConcurrency")
		if err != nil {
			errs = append(errs, err)
		}
		def = &d
	}
	f, ferrs := index(groups, statuses)
	if err := errors.Join(append(errs, ferrs...)...); err != nil {
		return Result{}, err
	}

	r, notes := newRun(&st, &f, now, p.Gates, statuses)
	var v verdict
	switch st.kind {
	case clusterv1alpha1.Progressive:
		v = r.progressive(def)
	case clusterv1alpha1.ProgressivePerGroup:
		v = r.progressivePerGroup()
	default:
		v = r.all()
	}
	res := r.output(&v)
	res.Groups = r.explain(&v)
	res.Warnings = r.lint(&v, notes)
	return res, nil
}

// run is one Plan call's inputs, indexed and evaluated once. A strategy's
// pass reads it, marks the entries it lists (entry.listed) and returns its
// verdict; nothing else in it changes after newRun.
type run struct {
	st       *strategy
	f        *fleet
	now      time.Time
	gates    []Gate
	statuses []ClusterStatus
	counts   []Counts // per group, parallel to f.groups
}

// newRun evaluates every cluster of f at now and marks the mandatory
// groups. It returns what it noticed on the way, for lint.
func newRun(st *strategy, f *fleet, now time.Time, gates []Gate, statuses []ClusterStatus) (*run, notes) {
	r := &run{st: st, f: f, now: now, gates: gates, statuses: statuses}
	var n notes
	r.counts, n.unknown = r.evaluate()
	n.unmatched = r.markMandatory()
	return r, n
}
