package simulate_test

import (
	"fmt"
	"slices"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// phase is a replayed cluster's state at one instant, by docs/semantics.md §3.3.
type phase int

const (
	untouched phase = iota
	progressing
	failing // Failed within the deadline: in flight and a failure
	soaking
	done
	timedOut
)

var phaseNames = [...]string{"untouched", "progressing", "failing", "soaking", "done", "timed out"}

func (p phase) String() string { return phaseNames[p] }

// replayed is a cluster as the timeline tells it.
type replayed struct {
	group     grouping.GroupKey
	applied   bool
	appliedAt time.Time
	status    rollout.Status
	since     time.Time
	timedOut  bool // a TimedOut event since the last transition
}

// state evaluates c at t: a soak ends, and a deadline passes, at the exact
// instant (docs/semantics.md §3.3).
func (sc *scenario) state(c *replayed, t time.Time) phase {
	switch {
	case !c.applied:
		return untouched
	case c.status == rollout.Succeeded && t.Before(c.since.Add(sc.soak)):
		return soaking
	case c.status == rollout.Succeeded:
		return done
	case sc.hasDeadline && !t.Before(c.since.Add(sc.deadline)):
		return timedOut
	case c.status == rollout.Failed:
		return failing
	}
	return progressing
}

func (sc *scenario) behavior(name string) simulate.Behavior {
	if b, ok := sc.fleet.Behaviors[name]; ok {
		return b
	}
	return sc.fleet.Default
}

// replay holds the state of one check.
type replay struct {
	sc         *scenario
	clusters   map[string]*replayed
	groupStart map[grouping.GroupKey]time.Time
	groupDone  map[grouping.GroupKey]time.Time
	breach     bool
	batch      map[string]bool // clusters started by the current planner call
}

// before is c's state at t as the planner saw it when it started the
// current batch: clusters of the batch were still untouched.
func (rp *replay) before(name string, t time.Time) phase {
	if rp.batch[name] {
		return untouched
	}
	return rp.sc.state(rp.clusters[name], t)
}

// check replays r's events and returns the first broken rule, or "".
func (sc *scenario) check(r simulate.Result) string {
	rp := &replay{sc: sc, clusters: map[string]*replayed{}, groupStart: map[grouping.GroupKey]time.Time{},
		groupDone: map[grouping.GroupKey]time.Time{}, batch: map[string]bool{}}
	for name, k := range sc.group {
		rp.clusters[name] = &replayed{group: k}
	}
	prev, batch := r.Start, time.Time{}
	inBatch := false
	for i, e := range r.Events {
		if e.At.Before(prev) || e.At.After(r.End) {
			return fmt.Sprintf("event %d at %s is out of order (previous %s, end %s)", i, e.At, prev, r.End)
		}
		prev = e.At
		starting := e.Kind == simulate.GroupStarted || e.Kind == simulate.Applied || e.Kind == simulate.Progressing
		if inBatch && (!starting || !e.At.Equal(batch)) {
			if msg := rp.checkBatch(batch); msg != "" {
				return msg
			}
			inBatch = false
			clear(rp.batch)
		}
		if e.Kind == simulate.Applied {
			inBatch, batch = true, e.At
		}
		if msg := rp.event(r, i); msg != "" {
			return fmt.Sprintf("event %d (%s %s %s at +%s): %s", i, e.Kind, e.Cluster, e.Group, e.At.Sub(r.Start), msg)
		}
	}
	if inBatch {
		if msg := rp.checkBatch(batch); msg != "" {
			return msg
		}
	}
	return rp.checkEnd(r)
}

// event applies and checks event i.
func (rp *replay) event(r simulate.Result, i int) string {
	sc, e := rp.sc, r.Events[i]
	c := rp.clusters[e.Cluster]
	if e.Cluster != "" && (c == nil || c.group != e.Group) {
		return "an unknown cluster, or the wrong group"
	}
	b := sc.behavior(e.Cluster)
	switch e.Kind {
	case simulate.GroupStarted:
		if _, ok := rp.groupStart[e.Group]; ok {
			return "the group started twice"
		}
		rp.groupStart[e.Group] = e.At
		if i+1 >= len(r.Events) || r.Events[i+1].Kind != simulate.Applied || r.Events[i+1].Group != e.Group {
			return "not followed by an Applied event of the group"
		}
	case simulate.Applied:
		if c.applied {
			return "applied twice"
		}
		if rp.breach {
			return "applied while a breach holds"
		}
		if s, ok := rp.groupStart[c.group]; !ok {
			return "applied before its group started"
		} else if sc.kind == clusterv1alpha1.ProgressivePerGroup && !s.Equal(e.At) {
			return fmt.Sprintf("ProgressivePerGroup starts a group's clusters together, but this group started at %s", s)
		}
		if msg := rp.checkStart(e.Cluster, e.At); msg != "" {
			return msg
		}
		c.applied, c.appliedAt, c.status, c.since = true, e.At, rollout.Progressing, e.At
		rp.batch[e.Cluster] = true
	case simulate.Progressing:
		if p := r.Events[i-1]; p.Kind != simulate.Applied || p.Cluster != e.Cluster {
			return "Progressing does not follow its Applied event"
		}
	case simulate.Succeeded, simulate.Failed:
		if !c.applied || c.status != rollout.Progressing || b.Silent || b.Fail != (e.Kind == simulate.Failed) {
			return fmt.Sprintf("unexpected for behaviour %+v in status %s", b, c.status)
		}
		if want := c.appliedAt.Add(b.ApplyDuration); !e.At.Equal(want) {
			return fmt.Sprintf("want it at %s, ApplyDuration after the apply", want)
		}
		c.status, c.since, c.timedOut = rollout.Succeeded, e.At, false
		if e.Kind == simulate.Failed {
			c.status = rollout.Failed
		}
	case simulate.Recovered:
		if !c.applied || c.status == rollout.Succeeded || b.RecoverAfter == 0 || !e.At.Equal(c.appliedAt.Add(b.RecoverAfter)) {
			return fmt.Sprintf("unexpected for behaviour %+v in status %s applied at %s", b, c.status, c.appliedAt)
		}
		c.status, c.since, c.timedOut = rollout.Succeeded, e.At, false
	case simulate.TimedOut:
		if st := sc.state(c, e.At); st != timedOut || c.timedOut {
			return "the cluster is " + st.String() + ", or timed out already"
		}
		if want := c.since.Add(sc.deadline); !e.At.Equal(want) {
			return fmt.Sprintf("want it at the deadline %s", want)
		}
		c.timedOut = true
	case simulate.Breach:
		if sc.kind == clusterv1alpha1.All || rp.breach {
			return "All never breaches, and a breach is reported once"
		}
		rp.breach = true
	case simulate.BreachCleared:
		if !rp.breach {
			return "no breach to clear"
		}
		rp.breach = false
	case simulate.GroupCompleted:
		if _, ok := rp.groupDone[e.Group]; ok {
			return "completed twice"
		}
		rp.groupDone[e.Group] = e.At
		for _, n := range sc.members[e.Group] {
			if st := sc.state(rp.clusters[n], e.At); st != done && st != timedOut {
				return fmt.Sprintf("%s is %s", n, st)
			}
		}
	case simulate.GateHeld:
		if !sc.gated {
			return "no gate to hold it"
		}
	default:
		return "unknown kind"
	}
	return ""
}

// checkStart checks the strategy's rule for starting cluster name at t.
func (rp *replay) checkStart(name string, t time.Time) string {
	sc := rp.sc
	g := rp.clusters[name].group
	switch sc.kind {
	case clusterv1alpha1.All:
		if !sc.gated && !t.Equal(sc.opts.Start) {
			return "All starts every cluster at once"
		}
	case clusterv1alpha1.ProgressivePerGroup:
		return rp.checkPerGroup(g, t)
	case clusterv1alpha1.Progressive:
		return rp.checkProgressive(g, t)
	}
	return ""
}

// checkPerGroup: a group starts only when every earlier group of the walk
// is done, or failed within its budget, including its soak; and nothing
// else is in flight but Failed clusters of those earlier groups
// (docs/semantics.md §3.5).
func (rp *replay) checkPerGroup(g grouping.GroupKey, t time.Time) string {
	sc := rp.sc
	pos := slices.Index(sc.keys, g)
	for _, earlier := range sc.keys[:pos] {
		failures := 0
		for _, n := range sc.members[earlier] {
			switch st := rp.before(n, t); st {
			case done:
			case failing, timedOut:
				failures++
			default:
				return fmt.Sprintf("group %s starts before earlier group %s is complete: %s is %s", g, earlier, n, st)
			}
		}
		budget := 0
		if size := len(sc.members[earlier]); !sc.mandatory[earlier] {
			budget = min(portionOf(sc.maxFailures, size), size)
		}
		if failures > budget {
			return fmt.Sprintf("group %s starts while earlier group %s has %d failures, over its budget %d", g, earlier, failures, budget)
		}
	}
	for n, c := range rp.clusters {
		if c.group == g {
			continue
		}
		switch st := rp.before(n, t); {
		case st == progressing || st == soaking:
			return fmt.Sprintf("group %s starts while %s (group %s) is %s", g, n, c.group, st)
		case st == failing && slices.Index(sc.keys, c.group) > pos:
			return fmt.Sprintf("group %s starts while %s of a later group is failing", g, n)
		}
	}
	return ""
}

// checkProgressive: mandatory groups go first, one after the other, with no
// failure; the others only once every mandatory cluster is done, and never
// while failures exceed maxFailures (docs/semantics.md §3.6).
func (rp *replay) checkProgressive(g grouping.GroupKey, t time.Time) string {
	sc := rp.sc
	pos := slices.Index(sc.keys, g)
	failures := 0
	for n, c := range rp.clusters {
		st := rp.before(n, t)
		if st == failing || st == timedOut {
			failures++
		}
		switch {
		case !sc.mandatory[c.group] && sc.mandatory[g] && st != untouched:
			return fmt.Sprintf("mandatory group %s starts after %s, which is not mandatory", g, n)
		case !sc.mandatory[c.group]:
		case c.group == g:
		case !sc.mandatory[g] && st != done,
			slices.Index(sc.keys, c.group) < pos && st != done,
			st != done && st != untouched:
			return fmt.Sprintf("group %s starts while mandatory %s (group %s) is %s", g, n, c.group, st)
		}
	}
	if budget := min(portionOf(sc.maxFailures, sc.total), sc.total); !sc.mandatory[g] && failures > budget {
		return fmt.Sprintf("group %s starts with %d failures, over the budget %d", g, failures, budget)
	}
	return ""
}

// checkBatch checks the clusters started at one instant: the Progressive
// window is never exceeded, and, with no gate, slots go in name order.
func (rp *replay) checkBatch(t time.Time) string {
	sc := rp.sc
	if sc.kind != clusterv1alpha1.Progressive {
		return ""
	}
	inFlight := 0
	var started, waiting []string
	for n, c := range rp.clusters {
		if sc.mandatory[c.group] {
			continue
		}
		switch st := sc.state(c, t); {
		case rp.batch[n], st == progressing, st == failing, st == soaking:
			inFlight++
		case st == untouched:
			waiting = append(waiting, n)
		}
		if c.applied {
			started = append(started, n)
		}
	}
	if inFlight > sc.window {
		return fmt.Sprintf("at +%s %d clusters are in flight, over the window of %d", t.Sub(sc.opts.Start), inFlight, sc.window)
	}
	if !sc.gated && len(started) > 0 && len(waiting) > 0 && slices.Max(started) > slices.Min(waiting) {
		return fmt.Sprintf("at +%s %s started before %s", t.Sub(sc.opts.Start), slices.Max(started), slices.Min(waiting))
	}
	return ""
}

// checkEnd checks the outcome against the replayed end state.
func (rp *replay) checkEnd(r simulate.Result) string {
	sc := rp.sc
	if sc.healthy && r.Outcome != simulate.Completed {
		return "a healthy fleet did not complete: " + r.Reason
	}
	if r.End.After(sc.opts.Start.Add(sc.limit())) {
		return "ended after the time limit"
	}
	noDeadline := false
	for n, c := range rp.clusters {
		st := sc.state(c, r.End)
		if st == timedOut && !c.timedOut {
			return fmt.Sprintf("%s passed its deadline with no TimedOut event", n)
		}
		if r.Outcome == simulate.TimeLimit {
			continue
		}
		switch {
		case st == soaking:
			return fmt.Sprintf("ended %s while %s soaks", r.Outcome, n)
		case (st == progressing || st == failing) && sc.hasDeadline:
			return fmt.Sprintf("ended %s while %s is %s before its deadline", r.Outcome, n, st)
		case st == progressing || st == failing:
			noDeadline = true
		}
	}
	switch r.Outcome {
	case simulate.Stuck:
		if !noDeadline && !sc.gated {
			return "stuck, with no cluster in flight for ever and no gate: " + r.Reason
		}
	case simulate.Completed:
		for n, c := range rp.clusters {
			if st := sc.state(c, r.End); st != done && st != timedOut {
				return fmt.Sprintf("completed, but %s is %s", n, st)
			}
		}
	case simulate.Halted:
		if !rp.breach {
			return "halted with no breach holding"
		}
	}
	for _, gt := range r.Groups {
		if s := rp.groupStart[gt.GroupKey]; !s.Equal(gt.Started) {
			return fmt.Sprintf("group %s: Started %s, want %s", gt.GroupKey, gt.Started, s)
		}
		if f := rp.groupDone[gt.GroupKey]; !f.Equal(gt.Finished) {
			return fmt.Sprintf("group %s: Finished %s, want %s", gt.GroupKey, gt.Finished, f)
		}
		if r.Outcome == simulate.Completed && gt.Finished.IsZero() {
			return fmt.Sprintf("completed, but group %s never finished", gt.GroupKey)
		}
	}
	return ""
}

// limit is the simulation's time limit: Options.Limit, or 30 days when it
// is zero.
func (sc *scenario) limit() time.Duration {
	if sc.opts.Limit > 0 {
		return sc.opts.Limit
	}
	return 30 * 24 * time.Hour
}
