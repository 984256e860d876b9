package rollout

import "time"

// output lists the clusters the verdict listed and those that timed out,
// and says when to look again: the nearest recheck of a listed cluster or
// of a gate that holds a group. Plan adds the explanations and warnings.
func (r *run) output(v *verdict) Result {
	res := Result{Removed: r.f.removed, MaxFailureBreach: v.breach}
	nList, nTimed := 0, 0
	for i := range r.f.entries {
		if r.f.entries[i].listed {
			nList++
		} else if r.f.entries[i].state == timingOut {
			nTimed++
		}
	}
	if nList > 0 {
		res.ToRollout = make([]ClusterStatus, nList)
	}
	if nTimed > 0 {
		res.TimedOut = make([]ClusterStatus, nTimed)
	}
	var recheck time.Duration
	consider := func(d time.Duration) {
		if d > 0 && (recheck == 0 || d < recheck) {
			recheck = d
		}
	}
	nList, nTimed = 0, 0
	for i := range r.f.entries {
		e := &r.f.entries[i]
		switch {
		case e.listed:
			cs := &res.ToRollout[nList]
			nList++
			r.fillStatus(cs, i)
			if !cs.RecheckTime.IsZero() {
				consider(cs.RecheckTime.Sub(r.now))
			}
		case e.state == timingOut:
			cs := &res.TimedOut[nTimed]
			nTimed++
			r.fillStatus(cs, i)
			cs.Status = TimeOut
		}
	}
	for gi := range v.groups {
		if h := v.groups[gi].hold; h.held {
			consider(h.recheck)
		}
	}
	res.RecheckAfter = recheck
	return res
}

// recheck is entry i's recheck time: the end of its soak, its deadline or
// the deadline that passed. It is evaluated again rather than kept in
// every entry, since only the entries that are output or explained need it.
func (r *run) recheck(i int) time.Time {
	if s := r.f.entries[i].status; s >= 0 {
		return r.st.evaluate(&r.statuses[s], r.now).recheck
	}
	return time.Time{}
}

// fillStatus writes the output form of entry i into cs, in place (the
// result of a call can hold a million of them): its evaluated status, its
// input transition time, its group and its recheck time.
func (r *run) fillStatus(cs *ClusterStatus, i int) {
	e := &r.f.entries[i]
	cs.Cluster, cs.Group = r.f.name(i), r.f.groups[e.group].key
	if e.status >= 0 {
		in := &r.statuses[e.status]
		cs.LastTransitionTime = in.LastTransitionTime
		cs.Status = in.Status
		cs.RecheckTime = r.st.evaluate(in, r.now).recheck
	}
	switch e.state {
	case untouched:
		cs.Status = ToApply
	case progressing:
		cs.Status = Progressing
	case failing:
		cs.Status = Failed
	case soaking:
		cs.Status = Succeeded
	}
}
