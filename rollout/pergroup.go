package rollout

// progressivePerGroup applies type ProgressivePerGroup (docs/semantics.md
// §3.5).
//
// Every cluster already in flight, in any group, is listed first. Failures
// are counted in every group at every call, whether or not the walk
// reaches it: a group whose failures exceed its budget (maxFailures of its
// size; none for a mandatory group) is a breach, and a breach starts
// nothing new. Otherwise one walk over the groups, mandatory ones first.
//
// OCM differs: it counts a group's failures only when its walk reaches the
// group, so a Failed cluster of the active group, or a failure in a later
// group, shows no breach while the walk stops earlier; it subtracts
// timed-out clusters from the count of in-flight ones, so a tolerated
// timeout can release the next group while another cluster is still
// progressing; it lists a breached group's untouched clusters; and a
// timeout anywhere stalls its mandatory phase for ever.
func (r *run) progressivePerGroup() verdict {
	r.listInFlight()
	v := newVerdict(len(r.f.groups), 0)
	// For the lint: some group has a budget, and every budget covers its group.
	counted, covered := false, true
	for gi, g := range r.f.groups {
		o := &v.groups[gi]
		if !g.mandatory {
			o.maxFailures = r.st.failureBudget(g.size())
			if g.size() > 0 {
				counted, covered = true, covered && o.maxFailures >= g.size()
			}
		}
		if r.counts[gi].failures() > o.maxFailures {
			o.breached, v.breach = true, true
		}
	}
	v.untrippable = counted && covered
	if v.breach {
		return v
	}
	w := r.walk(r.walkOrder(), v.groups)
	v.wait = w.waitOf(r)
	return v
}

// walked is where a group walk stopped, and what holds it there.
type walked struct {
	stop   int  // the group it stopped at; -1 when it went through them all
	holder int  // an entry in flight that holds it; -1 when none does
	hold   hold // the gates' answer at stop, when they hold it
}

// walk walks the groups of order (docs/semantics.md §3.5), which runs only
// when nothing is breached, recording what it starts in out: a group's
// untouched clusters start, unless a gate holds the group. The walk goes
// on to the next group only when no cluster of a group in order still
// needs the config or is in flight, apart from the Failed clusters of the
// groups it walked (a counted failure within budget does not hold it).
// ProgressivePerGroup walks every group; Progressive only the mandatory
// ones.
func (r *run) walk(order []int, out []outcome) walked {
	pos := make([]int, len(r.f.groups)) // 1 + the group's place in order; 0: not walked
	holding := 0                        // clusters in flight or started that hold the walk
	for p, gi := range order {
		pos[gi] = p + 1
		holding += r.counts[gi].inFlight()
	}
	for p, gi := range order {
		c := r.counts[gi]
		holding -= c.Failed
		if c.ToApply > 0 {
			if h := r.admit(gi); h.held {
				out[gi].hold = h
				return walked{stop: gi, holder: -1, hold: h}
			}
			out[gi].started = r.start(gi)
			holding += out[gi].started
		}
		if holding > 0 {
			return walked{stop: gi, holder: r.firstHolder(gi, pos, p+1)}
		}
	}
	return walked{stop: -1, holder: -1}
}

// firstHolder returns an entry that holds the walk stopped at group stop:
// the first listed one of that group that has not failed, else the first
// listed one of a walked group (pos > 0) that has not failed or whose group
// the walk has not reached (pos > reached).
func (r *run) firstHolder(stop int, pos []int, reached int) int {
	g := r.f.groups[stop]
	for i := g.start; i < g.end; i++ {
		if e := &r.f.entries[i]; e.listed && e.state != failing {
			return i
		}
	}
	for i := range r.f.entries {
		e := &r.f.entries[i]
		if p := pos[e.group]; p > 0 && e.listed && (e.state != failing || p > reached) {
			return i
		}
	}
	return -1
}

// waitOf returns what a group waits for once the walk stopped at w.stop:
// nothing when it went through; the cluster that holds it, when that is
// the group's own first cluster in flight (clusters that joined a group
// while others of it are in flight wait for those); else the group where
// the walk waits (the holder's, or the one a gate holds) and why.
func (w walked) waitOf(r *run) func(gi int, inFlight ClusterRef) Wait {
	return func(gi int, inFlight ClusterRef) Wait {
		if w.stop < 0 {
			return Wait{}
		}
		s := w.stop
		if w.holder >= 0 {
			s = int(r.f.entries[w.holder].group)
			if s == gi && r.f.name(w.holder) == inFlight.Name {
				return Wait{Kind: WaitCluster, Group: r.f.groups[gi].key, Cluster: inFlight, Until: inFlight.soakOrDeadline()}
			}
		}
		wt := Wait{Kind: WaitGroup, Group: r.f.groups[s].key}
		if r.f.groups[s].mandatory {
			wt.Kind = WaitMandatory
		}
		switch {
		case w.hold.held:
			gw := w.hold.wait(r.now)
			wt.Gates, wt.HeldBy, wt.Until = gw.Gates, gw.HeldBy, gw.Until
		case w.holder >= 0:
			wt.Cluster = r.clusterRef(w.holder, 1)
			wt.Until = wt.Cluster.soakOrDeadline()
		}
		return wt
	}
}
