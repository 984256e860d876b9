package rollout

import (
	"errors"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
)

// Plan decides the next step of a rollout of strategy s over groups, given
// the clusters' observed statuses (docs/semantics.md §3). A cluster of a
// group with no status is untouched, like ToApply. Statuses of clusters in
// no group are returned as Removed, as given. A status value outside the
// six is an error naming the cluster and the value.
//
// The clock is read once. Inputs are validated first and every problem is
// returned at once, as *FieldError values joined with errors.Join. The
// inputs are never modified, and the result does not depend on their order.
func (p Planner) Plan(s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, statuses []ClusterStatus) (Result, error) {
	now := clock.NowOf(p.Clock)
	st, err := parseStrategy(s)
	errs := []error{err}
	var def *field.Portion // Progressive's window when maxConcurrency is unset
	if p.DefaultConcurrency != nil {
		d, err := field.ParsePortion("Planner.DefaultConcurrency", *p.DefaultConcurrency, false)
		def = &d
		errs = append(errs, err)
	}
	f, err := index(groups, statuses)
	errs = append(errs, err)
	if err := flatJoin(errs...); err != nil {
		return Result{}, err
	}

	r := &run{st: &st, f: &f, now: now, gates: p.Gates, statuses: statuses, out: make([]outcome, len(f.groups))}
	r.evaluate()
	r.markMandatory()
	switch st.kind {
	case clusterv1alpha1.Progressive:
		r.progressive(def)
	case clusterv1alpha1.ProgressivePerGroup:
		r.progressivePerGroup()
	default:
		r.all()
	}
	return r.result(), nil
}

// flatJoin joins errs, and the errors of any joins among them, into one
// flat join, so that a caller unwrapping it sees every *FieldError at once.
func flatJoin(errs ...error) error {
	var flat []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			flat = append(flat, j.Unwrap()...)
		} else if err != nil {
			flat = append(flat, err)
		}
	}
	return errors.Join(flat...)
}

// run is the state of one Plan call.
type run struct {
	st       *strategy
	f        *fleet
	now      time.Time
	gates    []Gate
	statuses []ClusterStatus
	out      []outcome // per group, parallel to f.groups

	breach      bool
	stop        int // group where a walk stopped, -1 if it did not
	holder      int // an entry that held the walk, -1 if none
	window      int // Progressive: the window size, when reached
	budget      int // Progressive: the failure budget over all clusters
	failures    int // Progressive: failures over all clusters
	unknownLTT  []string
	unknownN    int
	warnings    []string
	unmatchedMD []string
}

// outcome is what the strategy concluded of one group.
type outcome struct {
	counts   Counts
	reached  bool          // a walk got to it, or it competed for window slots
	gated    bool          // gates were consulted
	held     bool          // and at least one held it
	gates    []string      // the holding gates' reasons
	recheck  time.Duration // the holding gates' nearest recheck
	started  int           // untouched clusters listed by this call
	budget   int           // failure budget, for a group walk
	breached bool          // its failures exceed its budget (or, for Progressive, the fleet's)
}

// evaluate evaluates every cluster once and counts each group.
func (r *run) evaluate() {
	for gi := range r.f.groups {
		g := &r.f.groups[gi]
		c := &r.out[gi].counts
		for i := g.start; i < g.end; i++ {
			e := &r.f.entries[i]
			if e.status < 0 {
				c.ToApply++
				continue
			}
			ev := r.st.evaluate(&r.statuses[e.status], r.now)
			e.state = ev.state
			if ev.unknown {
				if r.unknownN < maxNamed {
					r.unknownLTT = append(r.unknownLTT, r.f.name(i))
				}
				r.unknownN++
			}
			switch ev.state {
			case untouched:
				c.ToApply++
			case progressing:
				c.Progressing++
			case failing:
				c.Failed++
			case soaking:
				c.Soaking++
			case succeeded:
				c.Succeeded++
			case skipped:
				c.Skipped++
			default:
				c.TimedOut++
			}
		}
	}
}

// listInFlight lists every in-flight cluster: a started cluster is never
// abandoned.
func (r *run) listInFlight() {
	for i := range r.f.entries {
		if r.f.entries[i].state.inFlight() {
			r.f.entries[i].listed = true
		}
	}
}

// start lists the untouched clusters of group gi.
func (r *run) start(gi int) {
	g := r.f.groups[gi]
	for i := g.start; i < g.end; i++ {
		if e := &r.f.entries[i]; e.state == untouched {
			e.listed = true
			r.out[gi].started++
		}
	}
}

// admit asks every gate, once per group and call, whether group gi may
// start new clusters.
func (r *run) admit(gi int) bool {
	o := &r.out[gi]
	if o.gated {
		return !o.held
	}
	o.gated = true
	var reasons []string
	for _, gate := range r.gates {
		if gate == nil {
			continue
		}
		a := gate.Admit(r.f.groups[gi].key, r.now)
		if a.Admitted {
			continue
		}
		o.held = true
		if a.Reason != "" {
			reasons = append(reasons, a.Reason)
		}
		if a.RecheckAfter > 0 && (o.recheck == 0 || a.RecheckAfter < o.recheck) {
			o.recheck = a.RecheckAfter
		}
	}
	if o.held && len(reasons) == 0 {
		reasons = append(reasons, "a gate holds the group")
	}
	o.gates = reasons
	return !o.held
}
