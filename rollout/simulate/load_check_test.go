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

// checkLoad checks what the load test adds to the property checks
// (scenario.check), and returns the first broken rule, or "". Every check
// reads the timeline and the strategy only, never the planner's code.
func (lc *loadCase) checkLoad(r simulate.Result) string {
	times := make(map[grouping.GroupKey]simulate.GroupTimes, len(r.Groups))
	for _, g := range r.Groups {
		times[g.GroupKey] = g
	}
	for _, check := range []func(simulate.Result, map[grouping.GroupKey]simulate.GroupTimes) string{
		lc.checkGroupOrder, lc.checkMandatoryFirst, lc.checkWindowAlways, lc.checkGates, lc.checkHalted, lc.checkDuration,
	} {
		if msg := check(r, times); msg != "" {
			return msg
		}
	}
	return ""
}

// since formats t as an offset from the simulated start.
func (lc *loadCase) since(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return "+" + t.Sub(lc.opts.Start).String()
}

// checkGroupOrder: ProgressivePerGroup starts a group only once every
// earlier group of the walk (mandatory ones first, then by index) is
// complete (docs/semantics.md §3.5). A group with no failure so far is complete
// when the planner reports it so; a group with failures within its budget
// does not hold the walk, though its Failed clusters keep it Active, and
// checkPerGroup checks those from the replayed states.
func (lc *loadCase) checkGroupOrder(r simulate.Result, times map[grouping.GroupKey]simulate.GroupTimes) string {
	if lc.kind != clusterv1alpha1.ProgressivePerGroup {
		return ""
	}
	firstFailure := make(map[grouping.GroupKey]time.Time)
	for _, e := range r.Events {
		if _, seen := firstFailure[e.Group]; !seen && (e.Kind == simulate.Failed || e.Kind == simulate.TimedOut) {
			firstFailure[e.Group] = e.At
		}
	}
	for pos, k := range lc.keys {
		started := times[k].Started
		if started.IsZero() {
			continue
		}
		for _, e := range lc.keys[:pos] {
			if f, failed := firstFailure[e]; failed && !f.After(started) {
				continue
			}
			if f := times[e].Finished; f.IsZero() || f.After(started) {
				return fmt.Sprintf("group %s started at %s, before earlier group %s completed (%s)", k, lc.since(started), e, lc.since(f))
			}
		}
	}
	return ""
}

// checkMandatoryFirst: with either progressive type, no cluster outside the
// mandatory groups is applied before every mandatory group has completed
// (docs/semantics.md §3.5-3.7).
func (lc *loadCase) checkMandatoryFirst(r simulate.Result, times map[grouping.GroupKey]simulate.GroupTimes) string {
	if lc.kind == clusterv1alpha1.All || len(lc.mandatory) == 0 {
		return ""
	}
	for _, e := range r.Events {
		if e.Kind != simulate.Applied || lc.mandatory[e.Group] {
			continue
		}
		for k := range lc.mandatory {
			if f := times[k].Finished; f.IsZero() || f.After(e.At) {
				return fmt.Sprintf("%s (group %s, not mandatory) applied at %s, before mandatory group %s completed (%s)",
					e.Cluster, e.Group, lc.since(e.At), k, lc.since(f))
			}
		}
		return "" // events come in time order: this was the first
	}
	return ""
}

// checkWindowAlways: Progressive never has more non-mandatory clusters in
// flight (progressing, failed within the deadline, soaking) than its
// window, at any instant, not only when it starts some (checkBatch). Only a
// time-out frees a slot that the same cluster takes again when it
// recovers (docs/semantics.md §3.6: every in-flight cluster holds a slot, even
// beyond the window), so the check applies to timelines without one.
func (lc *loadCase) checkWindowAlways(r simulate.Result, _ map[grouping.GroupKey]simulate.GroupTimes) string {
	if lc.kind != clusterv1alpha1.Progressive || len(eventsOf(r, simulate.TimedOut)) > 0 {
		return ""
	}
	type change struct {
		at    time.Time
		delta int
	}
	var changes []change
	for _, e := range r.Events {
		if lc.mandatory[e.Group] {
			continue
		}
		switch e.Kind {
		case simulate.Applied:
			changes = append(changes, change{e.At, +1})
		case simulate.Succeeded, simulate.Recovered: // then it soaks
			changes = append(changes, change{e.At.Add(lc.soak), -1})
		}
	}
	slices.SortStableFunc(changes, func(a, b change) int { return a.at.Compare(b.at) })
	inFlight := 0
	for i, c := range changes {
		inFlight += c.delta
		// Count once every change at this instant is made: a slot freed at
		// an instant can be taken at that instant.
		if (i+1 == len(changes) || !changes[i+1].at.Equal(c.at)) && inFlight > lc.scenario.window {
			return fmt.Sprintf("from %s, %d clusters are in flight, over the window of %d", lc.since(c.at), inFlight, lc.scenario.window)
		}
	}
	return ""
}

// checkGates: no cluster is applied while a gate holds its group: never
// under Paused, never in a group Approval does not admit, never outside the
// Window (by its own reading of the days and hours).
func (lc *loadCase) checkGates(r simulate.Result, _ map[grouping.GroupKey]simulate.GroupTimes) string {
	for _, e := range r.Events {
		if e.Kind != simulate.Applied {
			continue
		}
		switch {
		case lc.paused:
			return fmt.Sprintf("%s applied at %s, while the rollout is paused", e.Cluster, lc.since(e.At))
		case lc.approved != nil && !lc.approved[e.Group]:
			return fmt.Sprintf("%s applied at %s, but its group %s is not approved", e.Cluster, lc.since(e.At), e.Group)
		case lc.hours != nil && !lc.hours.inside(e.At):
			return fmt.Sprintf("%s applied at %s (%s), outside the window %s", e.Cluster, lc.since(e.At), e.At.Format("Mon 15:04"), lc.hours)
		}
	}
	return ""
}

// checkHalted: a rollout halts only on a breach that the final states show:
// for ProgressivePerGroup a group over its budget, for Progressive a
// mandatory group with a failure or the fleet over its budget; All never
// breaches.
func (lc *loadCase) checkHalted(r simulate.Result, _ map[grouping.GroupKey]simulate.GroupTimes) string {
	if r.Outcome != simulate.Halted {
		return ""
	}
	failures := make(map[grouping.GroupKey]int, len(lc.members))
	total := 0
	for n, c := range lc.replayEnd(r) {
		if st := lc.state(c, r.End); st == failing || st == timedOut {
			failures[lc.group[n]]++
			total++
		}
	}
	switch lc.kind {
	case clusterv1alpha1.ProgressivePerGroup:
		for _, k := range lc.keys {
			budget := 0
			if size := len(lc.members[k]); !lc.mandatory[k] {
				budget = min(portionOf(lc.maxFailures, size), size)
			}
			if failures[k] > budget {
				return ""
			}
		}
	case clusterv1alpha1.Progressive:
		for k := range lc.mandatory {
			if failures[k] > 0 {
				return ""
			}
		}
		if total > min(portionOf(lc.maxFailures, lc.total), lc.total) {
			return ""
		}
	}
	return fmt.Sprintf("halted at %s with %d failures, within every budget", lc.since(r.End), total)
}

// replayEnd is every cluster's status at the end, from the events alone.
func (lc *loadCase) replayEnd(r simulate.Result) map[string]*replayed {
	clusters := make(map[string]*replayed, len(lc.group))
	for n, k := range lc.group {
		clusters[n] = &replayed{group: k}
	}
	for _, e := range r.Events {
		c := clusters[e.Cluster]
		switch e.Kind {
		case simulate.Applied:
			c.applied, c.appliedAt, c.status, c.since = true, e.At, rollout.Progressing, e.At
		case simulate.Succeeded, simulate.Recovered:
			c.status, c.since = rollout.Succeeded, e.At
		case simulate.Failed:
			c.status, c.since = rollout.Failed, e.At
		}
	}
	return clusters
}

// checkDuration: a healthy fleet behind gates that open completes (checked
// by scenario.check) within the time its strategy implies, and no sooner
// than its longest apply.
func (lc *loadCase) checkDuration(r simulate.Result, _ map[grouping.GroupKey]simulate.GroupTimes) string {
	if !lc.healthy || r.Outcome != simulate.Completed {
		return ""
	}
	took := r.End.Sub(r.Start)
	if lc.cannotTimeOut() && took < lc.maxApply() {
		return fmt.Sprintf("completed in %s, less than the longest apply %s", took, lc.maxApply())
	}
	b, ok := lc.durationBounds()
	switch {
	case !ok:
	case b.exact && took != b.hi:
		return fmt.Sprintf("completed in %s, want exactly %s (%s)", took, b.hi, b.why)
	case took > b.hi:
		return fmt.Sprintf("completed in %s, over the bound %s (%s)", took, b.hi, b.why)
	case took < b.lo:
		return fmt.Sprintf("completed in %s, under the lower bound %s (%s)", took, b.lo, b.why)
	}
	return ""
}

// cannotTimeOut reports that every cluster reports its outcome by the
// progressDeadline, so that a healthy fleet never times out. At the
// deadline itself the cluster's report comes first.
func (lc *loadCase) cannotTimeOut() bool {
	return !lc.hasDeadline || lc.maxApply() <= lc.deadline
}

// bounds is how long a healthy rollout may take, from its start.
type bounds struct {
	lo, hi time.Duration
	exact  bool // it takes exactly hi
	why    string
}

// durationBounds derives, from the rules alone, how long a healthy fleet
// takes, with the waits its Window implies (nextOpen). It reports false
// when it derives nothing: Progressive with clusters that may time out (a
// time-out frees a slot, and its recovery takes one again, beyond the
// window).
//
// All starts every cluster when the window first opens and takes its
// longest apply; minSuccessTime does not apply. With time-outs it can
// finish sooner: a timed-out cluster counts as complete.
//
// ProgressivePerGroup walks the groups (mandatory ones first): each starts
// at once, at the first open instant after every cluster before it is done,
// and is done after its longest apply plus the soak. A group never waits
// longer, even if some cluster times out: once every earlier cluster is
// done, nothing holds the walk.
//
// Progressive walks the mandatory groups the same way, exactly. Then the
// others share a window of w slots, taken in name order: a slot is held
// for the cluster's apply plus the soak, at most p = the longest apply plus
// the soak, and freed at the instant its soak ends, when the simulation
// asks the planner again. By induction the k-th cluster (from 0) starts by
// nextOpen(max(start(k-1), start(k-w) + p)): by then every cluster before
// k-w+1 is done, so at most w-1 hold a slot. Without a window that is the
// mandatory phase plus ceil(n/w)*p. It takes at least the longest of its
// jobs, and at least their total over w, since at most w run at once.
func (lc *loadCase) durationBounds() (bounds, bool) {
	start := lc.opts.Start
	noTimeOut := lc.cannotTimeOut()
	groupApply := func(k grouping.GroupKey) time.Duration {
		var d time.Duration
		for _, n := range lc.members[k] {
			d = max(d, lc.behavior(n).ApplyDuration)
		}
		return d
	}
	// walk is when the walk over groups finishes, each taking its longest
	// apply plus the soak from the instant the window admits it.
	walk := func(keep func(grouping.GroupKey) bool) time.Time {
		t := start
		for _, k := range lc.keys {
			if keep(k) && len(lc.members[k]) > 0 {
				t = lc.hours.nextOpen(t).Add(groupApply(k) + lc.soak)
			}
		}
		return t
	}
	switch lc.kind {
	case clusterv1alpha1.All:
		hi := lc.hours.nextOpen(start).Add(lc.maxApply()).Sub(start)
		return bounds{hi: hi, exact: noTimeOut, why: "All: the first open instant plus the longest apply"}, true
	case clusterv1alpha1.ProgressivePerGroup:
		hi := walk(func(grouping.GroupKey) bool { return true }).Sub(start)
		return bounds{hi: hi, exact: noTimeOut, why: "the sum over the groups of the longest apply plus the soak, each from the first open instant"}, true
	}
	if !noTimeOut {
		return bounds{}, false
	}
	t := walk(func(k grouping.GroupKey) bool { return lc.mandatory[k] })
	var rest []string
	for n, k := range lc.group {
		if !lc.mandatory[k] {
			rest = append(rest, n)
		}
	}
	if len(rest) == 0 {
		return bounds{hi: t.Sub(start), exact: true, why: "mandatory groups only: the sum of their longest apply plus the soak"}, true
	}
	slices.Sort(rest)
	var p, work time.Duration
	for _, n := range rest {
		d := lc.behavior(n).ApplyDuration + lc.soak
		p, work = max(p, d), work+d
	}
	w := lc.scenario.window
	starts := make([]time.Time, len(rest))
	for k := range starts {
		from := t
		if k > 0 {
			from = latest(from, starts[k-1])
		}
		if k >= w {
			from = latest(from, starts[k-w].Add(p))
		}
		starts[k] = lc.hours.nextOpen(from)
	}
	ws := time.Duration(w)
	lo := t.Sub(start) + max(p, (work+ws-1)/ws)
	return bounds{lo: lo, hi: starts[len(starts)-1].Add(p).Sub(start),
		why: fmt.Sprintf("mandatory groups until %s, then %d clusters over %d slots of at most %s each", lc.since(t), len(rest), w, p)}, true
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
