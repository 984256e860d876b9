package rollout

// progressivePerGroup applies type ProgressivePerGroup (SEMANTICS §3.5).
//
// Every cluster already in flight, in any group, is listed first. Then one
// walk over the groups, mandatory ones first with no failure tolerated, the
// others with maxFailures of their size: a group whose failures exceed its
// budget halts the rollout (and starts nothing); otherwise its untouched
// clusters start, unless a gate holds the group. The walk goes on to the
// next group only when nothing listed anywhere still needs the config or is
// in flight, apart from Failed clusters of groups already walked (a failure
// within budget does not hold the rollout).
//
// OCM differs: it subtracts timed-out clusters from the count of in-flight
// ones, so a tolerated timeout can release the next group while another
// cluster is still progressing; it lists a breached group's untouched
// clusters; and a timeout anywhere stalls its mandatory phase for ever.
func (r *run) progressivePerGroup() {
	r.listInFlight()
	holding := 0
	for i := range r.f.entries {
		if r.f.entries[i].state.inFlight() {
			holding++
		}
	}
	r.stop, r.holder = -1, -1
	for _, gi := range r.walkOrder() {
		g, o := r.f.groups[gi], &r.out[gi]
		o.reached = true
		o.budget = 0
		if !g.mandatory {
			o.budget = r.st.failureBudget(g.size())
		}
		holding -= o.counts.Failed // a counted failure within budget does not hold
		if o.counts.Failed+o.counts.TimedOut > o.budget {
			r.breach, r.stop = true, gi
			return
		}
		if o.counts.ToApply > 0 {
			if !r.admit(gi) {
				r.stop = gi
				return
			}
			r.start(gi)
			holding += o.started
		}
		if holding > 0 {
			r.stop = gi
			r.holder = r.firstHolder(gi, false)
			return
		}
	}
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
