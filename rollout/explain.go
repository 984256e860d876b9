package rollout

import (
	"slices"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// maxNamed is how many names a reason or warning lists before "and N more".
const maxNamed = 3

// explain gives every group its phase and what it waits for, as values,
// then makes its one-line reason from those values.
func (r *run) explain() []GroupProgress {
	out := make([]GroupProgress, len(r.f.groups))
	for gi, g := range r.f.groups {
		o := &r.out[gi]
		gp := GroupProgress{GroupKey: g.key, Mandatory: g.mandatory, Size: g.size(), Counts: o.counts,
			Starting: o.started, MaxFailures: r.maxFailures(gi)}
		gp.Phase, gp.InFlight, gp.Wait = r.phase(gi)
		gp.Reason = gp.reason(r.now)
		out[gi] = gp
	}
	return out
}

// maxFailures is the failure budget group gi is held to; -1 for type All.
func (r *run) maxFailures(gi int) int {
	switch {
	case r.st.kind == clusterv1alpha1.All:
		return -1
	case r.st.kind == clusterv1alpha1.Progressive && !r.f.groups[gi].mandatory:
		return r.budget
	}
	return r.out[gi].budget
}

// phase says where group gi stands, its first cluster in flight when it is
// Active, and what it waits for.
func (r *run) phase(gi int) (Phase, ClusterRef, Wait) {
	o, c := &r.out[gi], r.out[gi].counts
	switch {
	case o.breached:
		return Breached, ClusterRef{}, r.breachWait(gi)
	case c.ToApply+c.Progressing+c.Soaking+c.Failed == 0:
		return Complete, ClusterRef{}, Wait{}
	case o.held && c.ToApply > o.started:
		return Blocked, ClusterRef{}, r.gateWait(gi)
	case o.started > 0 || c.Progressing+c.Soaking+c.Failed > 0:
		inFlight, w := r.activeWait(gi)
		return Active, inFlight, w
	}
	return Waiting, ClusterRef{}, r.wait(gi)
}

// breachWait names the first failure of the breached group gi.
func (r *run) breachWait(gi int) Wait {
	w := Wait{Kind: WaitBreach, Cluster: r.clusterRef(r.firstWhere(gi, func(e *entry) bool { return e.state.failure() }))}
	if r.st.kind == clusterv1alpha1.Progressive && !r.f.groups[gi].mandatory {
		w.RolloutFailures = r.failures
	}
	return w
}

// gateWait says which gates hold group gi, and until when.
func (r *run) gateWait(gi int) Wait {
	w := Wait{Kind: WaitGate}
	w.Gates, w.Until = r.held(gi)
	return w
}

// held returns the reasons of the gates that hold group gi and when they
// may answer otherwise (zero: not on the clock).
func (r *run) held(gi int) ([]string, time.Time) {
	o := &r.out[gi]
	var until time.Time
	if o.recheck > 0 {
		until = r.now.Add(o.recheck)
	}
	return slices.Clone(o.gates), until
}

// activeWait returns the first in-flight cluster of the active group gi
// and what its clusters that have not started wait for.
func (r *run) activeWait(gi int) (ClusterRef, Wait) {
	o := &r.out[gi]
	first, n := r.firstWhere(gi, func(e *entry) bool { return e.listed && e.state != untouched })
	inFlight := r.clusterRef(first, n)
	switch {
	case o.held:
		return inFlight, r.gateWait(gi)
	case o.counts.ToApply == o.started:
		return inFlight, Wait{}
	case !r.breach && r.st.kind == clusterv1alpha1.Progressive && o.reached:
		return inFlight, Wait{Kind: WaitWindow, Window: r.window}
	case r.holder == first && first >= 0 && !r.breach:
		// Clusters that joined the group while others of it are in flight
		// wait for them (docs/semantics.md §3.5).
		return inFlight, Wait{Kind: WaitCluster, Group: r.f.groups[gi].key, Cluster: inFlight, Until: inFlight.soakOrDeadline()}
	}
	return inFlight, r.wait(gi)
}

// wait says what group gi waits for: the end of a breach, a free slot of
// Progressive's window, or the cluster (or gates) that hold the walk.
func (r *run) wait(gi int) Wait {
	switch {
	case r.breach:
		return Wait{Kind: WaitBreach}
	case r.st.kind == clusterv1alpha1.Progressive && r.out[gi].reached:
		return Wait{Kind: WaitWindow, Window: r.window}
	case r.stop >= 0:
		s, held := r.stop, r.out[r.stop].held
		if r.holder >= 0 && !held {
			s = int(r.f.entries[r.holder].group)
		}
		w := Wait{Kind: WaitGroup, Group: r.f.groups[s].key}
		if r.f.groups[s].mandatory {
			w.Kind = WaitMandatory
		}
		switch {
		case held:
			w.Gates, w.Until = r.held(r.stop)
		case r.holder >= 0:
			w.Cluster = r.clusterRef(r.holder, 1)
			w.Until = w.Cluster.soakOrDeadline()
		}
		return w
	}
	return Wait{}
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
