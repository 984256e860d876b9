package rollout

import (
	"slices"
	"time"
)

// verdict is what a strategy's pass concludes, as values: per group what it
// started, what held it and the failure budget it is held to, and what the
// groups that are not done wait for. output, explain and lint read a
// verdict; none of them asks which strategy made it.
type verdict struct {
	groups []outcome // parallel to fleet.groups
	// breach: failures exceed a budget somewhere, so nothing new starts.
	breach bool
	// untrippable: maxFailures covers every cluster it counts, so the
	// failure check can never trip (a warning).
	untrippable bool
	// wait says what group gi waits for once its own breach, its gates and
	// the rollout's breach are ruled out: an earlier group, one of its own
	// clusters, a free slot. inFlight is gi's first cluster in flight (the
	// zero ClusterRef when none is).
	wait func(gi int, inFlight ClusterRef) Wait
}

// newVerdict is the verdict of a pass that starts nothing, with every
// group held to maxFailures (-1: no budget) and waiting for nothing.
func newVerdict(groups, maxFailures int) verdict {
	v := verdict{groups: make([]outcome, groups), wait: func(int, ClusterRef) Wait { return Wait{} }}
	for gi := range v.groups {
		v.groups[gi].maxFailures = maxFailures
	}
	return v
}

// outcome is what a pass concluded of one group.
type outcome struct {
	started  int  // untouched clusters listed by this call
	hold     hold // the gates' answer, when they were asked and held it
	breached bool // its failures exceed the budget it is held to
	// maxFailures is that budget: the failures it tolerates; -1 for none.
	maxFailures int
	// rolloutFailures counts the rollout's failures when the budget the
	// group breached is the rollout's, not its own (Progressive); else 0.
	rolloutFailures int
}

// hold is the gates' answer for a group that at least one of them holds.
type hold struct {
	held    bool
	reasons []string      // the holding gates' reasons, in Planner.Gates order
	by      []int         // the holding gates' indices in Planner.Gates
	recheck time.Duration // the holding gates' nearest recheck; 0: none
}

// wait is a held group's Wait: the gates' reasons and when they may answer
// otherwise.
func (h hold) wait(now time.Time) Wait {
	w := Wait{Kind: WaitGate, Gates: slices.Clone(h.reasons), HeldBy: slices.Clone(h.by)}
	if h.recheck > 0 {
		w.Until = now.Add(h.recheck)
	}
	return w
}

// admit asks every gate whether group gi may start new clusters. A pass
// asks once per group and call, and only for a group with clusters to
// start.
func (r *run) admit(gi int) hold {
	var h hold
	for i, gate := range r.gates {
		if gate == nil {
			continue
		}
		a := gate.Admit(r.f.groups[gi].key, r.now)
		if a.Admitted {
			continue
		}
		h.held = true
		h.by = append(h.by, i)
		if a.Reason != "" {
			h.reasons = append(h.reasons, a.Reason)
		}
		if a.RecheckAfter > 0 && (h.recheck == 0 || a.RecheckAfter < h.recheck) {
			h.recheck = a.RecheckAfter
		}
	}
	if h.held && len(h.reasons) == 0 {
		h.reasons = []string{"a gate holds the group"}
	}
	return h
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

// start lists the untouched clusters of group gi and returns how many.
func (r *run) start(gi int) int {
	g, n := r.f.groups[gi], 0
	for i := g.start; i < g.end; i++ {
		if e := &r.f.entries[i]; e.state == untouched {
			e.listed = true
			n++
		}
	}
	return n
}
