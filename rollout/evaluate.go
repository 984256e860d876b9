package rollout

import "time"

// state is a cluster's status evaluated at now (docs/semantics.md §3.3).
type state uint8

const (
	untouched   state = iota // no status, or ToApply: needs the config
	progressing              // Progressing within the deadline: in flight
	failing                  // Failed within the deadline: in flight and a failure
	soaking                  // Succeeded inside minSuccessTime: in flight
	succeeded                // Succeeded and soaked: done
	skipped                  // Skip: done, not a failure
	timedOut                 // TimeOut given as input: a failure, not listed
	timingOut                // deadline passed at this call: a failure, listed in TimedOut
)

func (s state) inFlight() bool { return s == progressing || s == failing || s == soaking }
func (s state) failure() bool  { return s == failing || s == timedOut || s == timingOut }

// evaluation is what evaluate concludes of one cluster.
type evaluation struct {
	state   state
	recheck time.Time // end of soak, deadline, or the deadline that passed
	unknown bool      // the LTT was unknown and a soak or deadline was measured from now
}

// evaluate applies docs/semantics.md §3.3 to one status at now. An unknown
// (zero) LastTransitionTime is measured from now, as OCM does. Plan has
// already refused a status value outside the six (§3.1).
func (st *strategy) evaluate(cs *ClusterStatus, now time.Time) evaluation {
	from := func() (time.Time, bool) {
		if cs.LastTransitionTime.IsZero() {
			return now, true
		}
		return cs.LastTransitionTime, false
	}
	switch cs.Status {
	case ToApply:
		return evaluation{state: untouched}
	case Succeeded:
		start, unknown := from()
		end := start.Add(st.minSuccess)
		if now.Before(end) {
			return evaluation{state: soaking, recheck: end, unknown: unknown && st.minSuccess > 0}
		}
		return evaluation{state: succeeded}
	case TimeOut:
		return evaluation{state: timedOut}
	case Skip:
		return evaluation{state: skipped}
	}
	// Progressing or Failed.
	inFlight := progressing
	if cs.Status == Failed {
		inFlight = failing
	}
	if !st.hasDeadline {
		return evaluation{state: inFlight}
	}
	start, unknown := from()
	deadline := start.Add(st.deadline)
	if now.Before(deadline) {
		return evaluation{state: inFlight, recheck: deadline, unknown: unknown}
	}
	return evaluation{state: timingOut, recheck: deadline}
}

// evaluate evaluates every cluster once, keeping its state in its entry,
// and counts each group's clusters by state. It also returns the clusters
// whose soak or deadline was measured from now, for lint.
func (r *run) evaluate() ([]Counts, unknownTimes) {
	counts := make([]Counts, len(r.f.groups))
	var unknown unknownTimes
	for gi := range r.f.groups {
		g, c := &r.f.groups[gi], &counts[gi]
		for i := g.start; i < g.end; i++ {
			e := &r.f.entries[i]
			if e.status < 0 {
				c.ToApply++
				continue
			}
			ev := r.st.evaluate(&r.statuses[e.status], r.now)
			e.state = ev.state
			if ev.unknown {
				unknown.add(r.f.name(i))
			}
			c.add(ev.state)
		}
	}
	return counts, unknown
}

// unknownTimes names the first few clusters with no lastTransitionTime
// whose soak or deadline was measured from now, and counts them all.
type unknownTimes struct {
	names []string
	n     int
}

func (u *unknownTimes) add(name string) {
	if u.n < maxNamed {
		u.names = append(u.names, name)
	}
	u.n++
}

// add counts one cluster in state s.
func (c *Counts) add(s state) {
	switch s {
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

// inFlight counts the clusters in flight: progressing, failed within the
// deadline, or soaking.
func (c Counts) inFlight() int { return c.Progressing + c.Failed + c.Soaking }

// failures counts the clusters that count against a failure budget.
func (c Counts) failures() int { return c.Failed + c.TimedOut }
