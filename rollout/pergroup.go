package rollout

// progressivePerGroup applies type ProgressivePerGroup (docs/semantics.md
// §3.5).
//
// Every cluster already in flight, in any group, is listed first. Failures
// are counted in every group at every call, whether or not the walk
// reaches it: a group whose failures exceed its budget (maxFailures of its
// size; none for a mandatory group) is a breach, and a breach starts
// nothing new. Otherwise one walk over the groups, mandatory ones first:
// a group's untouched clusters start, unless a gate holds the group. The
// walk goes on to the next group only when nothing listed anywhere still
// needs the config or is in flight, apart from Failed clusters of groups
// already walked (a failure within budget does not hold the rollout).
//
// OCM differs: it counts a group's failures only when its walk reaches the
// group, so a Failed cluster of the active group, or a failure in a later
// group, shows no breach while the walk stops earlier; it subtracts
// timed-out clusters from the count of in-flight ones, so a tolerated
// timeout can release the next group while another cluster is still
// progressing; it lists a breached group's untouched clusters; and a
// timeout anywhere stalls its mandatory phase for ever.
func (r *run) progressivePerGroup() {
	r.listInFlight()
	r.stop, r.holder = -1, -1
	for gi, g := range r.f.groups {
		budget := 0
		if !g.mandatory {
			budget = r.st.failureBudget(g.size())
		}
		r.countFailures(gi, budget)
	}
	if r.breach {
		return
	}
	holding := r.inFlight(false)
	for _, gi := range r.walkOrder() {
		if r.walkStep(gi, &holding, false) {
			return
		}
	}
}

// countFailures counts group gi's failures (Failed and TimeOut) against
// budget: over it, the group is breached, and so is the rollout.
func (r *run) countFailures(gi, budget int) {
	o := &r.out[gi]
	o.budget = budget
	if o.counts.Failed+o.counts.TimedOut > budget {
		o.breached, r.breach = true, true
	}
}

// inFlight counts the clusters in flight (only those of mandatory groups,
// when onlyMandatory is set).
func (r *run) inFlight(onlyMandatory bool) int {
	n := 0
	for i := range r.f.entries {
		if e := &r.f.entries[i]; e.state.inFlight() && (!onlyMandatory || r.f.groups[e.group].mandatory) {
			n++
		}
	}
	return n
}

// walkStep walks group gi of a group walk (docs/semantics.md §3.5), which
// runs only when nothing is breached: its untouched clusters start, unless
// a gate holds the group. It reports whether the walk stops here, which it
// does at a group a gate holds, or when *holding (the number of clusters
// that still hold the walk, kept across the steps) is above zero after
// this group. A Failed cluster of a walked group no longer holds: it is a
// counted failure within budget. onlyMandatory says only mandatory
// clusters hold (Progressive).
func (r *run) walkStep(gi int, holding *int, onlyMandatory bool) bool {
	o := &r.out[gi]
	o.reached = true
	*holding -= o.counts.Failed
	if o.counts.ToApply > 0 {
		if !r.admit(gi) {
			r.stop = gi
			return true
		}
		r.start(gi)
		*holding += o.started
	}
	if *holding > 0 {
		r.stop = gi
		r.holder = r.firstHolder(gi, onlyMandatory)
		return true
	}
	return false
}

// firstHolder returns an entry that holds the walk stopped at group stop:
// the first listed one of that group, else the first in-flight one
// elsewhere that is not a Failed cluster of a walked group (and, when
// onlyMandatory is set, that is in a mandatory group).
func (r *run) firstHolder(stop int, onlyMandatory bool) int {
	g := r.f.groups[stop]
	for i := g.start; i < g.end; i++ {
		if e := &r.f.entries[i]; e.listed && e.state != failing {
			return i
		}
	}
	for i := range r.f.entries {
		e := &r.f.entries[i]
		if onlyMandatory && !r.f.groups[e.group].mandatory {
			continue
		}
		if e.listed && (e.state != failing || !r.out[e.group].reached) {
			return i
		}
	}
	return -1
}
