package rollout

import "time"

// explain gives every group its phase and what it waits for, as values
// read from the verdict, then makes its one-line reason from those values.
func (r *run) explain(v *verdict) []GroupProgress {
	out := make([]GroupProgress, len(r.f.groups))
	for gi, g := range r.f.groups {
		o := &v.groups[gi]
		gp := GroupProgress{GroupKey: g.key, Mandatory: g.mandatory, Size: g.size(), Counts: r.counts[gi],
			Starting: o.started, MaxFailures: o.maxFailures}
		gp.Phase, gp.InFlight, gp.Wait = r.phase(v, gi)
		gp.Reason = gp.reason(r.now)
		out[gi] = gp
	}
	return out
}

// phase says where group gi stands, its first cluster in flight when it is
// Active, and what it waits for.
func (r *run) phase(v *verdict, gi int) (Phase, ClusterRef, Wait) {
	o, c := &v.groups[gi], r.counts[gi]
	switch {
	case o.breached:
		first, n := r.firstWhere(gi, func(e *entry) bool { return e.state.failure() })
		return Breached, ClusterRef{}, Wait{Kind: WaitBreach, Cluster: r.clusterRef(first, n), RolloutFailures: o.rolloutFailures}
	case c.ToApply+c.inFlight() == 0:
		return Complete, ClusterRef{}, Wait{}
	case o.hold.held:
		// A pass asks the gates only of a group with clusters to start, and
		// starts none of a group they hold.
		return Blocked, ClusterRef{}, o.hold.wait(r.now)
	case o.started > 0 || c.inFlight() > 0:
		inFlight := r.clusterRef(r.firstWhere(gi, func(e *entry) bool { return e.listed && e.state != untouched }))
		if c.ToApply == o.started {
			return Active, inFlight, Wait{}
		}
		return Active, inFlight, r.pending(v, gi, inFlight)
	}
	return Waiting, ClusterRef{}, r.pending(v, gi, ClusterRef{})
}

// pending says what the clusters of group gi that have not started wait
// for: the end of the rollout's breach, or what the verdict says.
func (r *run) pending(v *verdict, gi int, inFlight ClusterRef) Wait {
	if v.breach {
		return Wait{Kind: WaitBreach}
	}
	return v.wait(gi, inFlight)
}

// firstWhere returns the first entry of group gi that satisfies keep (-1 if
// none) and how many do.
func (r *run) firstWhere(gi int, keep func(*entry) bool) (first, n int) {
	g := r.f.groups[gi]
	first = -1
	for i := g.start; i < g.end; i++ {
		if keep(&r.f.entries[i]) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	return first, n
}

// clusterRef names entry i, one of n alike, and where it stands; the zero
// ClusterRef when i is -1.
func (r *run) clusterRef(i, n int) ClusterRef {
	if i < 0 {
		return ClusterRef{}
	}
	c := ClusterRef{Name: r.f.name(i), Others: n - 1}
	switch r.f.entries[i].state {
	case untouched:
		c.Status = ToApply
	case progressing:
		c.Status, c.Until = Progressing, r.recheck(i)
	case failing:
		c.Status, c.Until = Failed, r.recheck(i)
	case soaking:
		c.Status, c.Until = Succeeded, r.recheck(i)
	case timingOut:
		c.Status, c.Until = TimeOut, r.recheck(i)
	case timedOut:
		c.Status = TimeOut
	case skipped:
		c.Status = Skip
	default:
		c.Status = Succeeded
	}
	return c
}

// soakOrDeadline is when a cluster soaking or in flight may change on the
// clock; zero for any other.
func (c ClusterRef) soakOrDeadline() time.Time {
	switch c.Status {
	case Progressing, Failed, Succeeded:
		return c.Until
	}
	return time.Time{}
}
