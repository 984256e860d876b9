package rollout

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// maxNamed is how many names a reason or warning lists before "and N more".
const maxNamed = 3

// explain gives every group its phase and a one-line reason.
func (r *run) explain() []GroupProgress {
	out := make([]GroupProgress, len(r.f.groups))
	for gi, g := range r.f.groups {
		o := &r.out[gi]
		gp := GroupProgress{GroupKey: g.key, Mandatory: g.mandatory, Size: g.size(), Counts: o.counts}
		gp.Phase, gp.Reason = r.phase(gi)
		out[gi] = gp
	}
	return out
}

func (r *run) phase(gi int) (Phase, string) {
	o, c := &r.out[gi], r.out[gi].counts
	switch {
	case o.breached:
		return Breached, r.breachReason(gi)
	case c.ToApply+c.Progressing+c.Soaking+c.Failed == 0:
		return Complete, "complete: " + summary(c, r.st.kind != clusterv1alpha1.All)
	case o.held && c.ToApply > o.started:
		return Blocked, o.reason
	case o.started > 0 || c.Progressing+c.Soaking+c.Failed > 0:
		return Active, "rolling out: " + r.activeSummary(gi)
	}
	return Waiting, r.waitReason(gi)
}

func (r *run) breachReason(gi int) string {
	c := r.out[gi].counts
	failures := c.Failed + c.TimedOut
	scope := fmt.Sprintf("maxFailures allows %d in this group", r.out[gi].budget)
	if r.f.groups[gi].mandatory {
		scope = "a mandatory group tolerates none"
	} else if r.st.kind == clusterv1alpha1.Progressive {
		scope = fmt.Sprintf("%d failed or timed out in the rollout, maxFailures allows %d", r.failures, r.budget)
	}
	return fmt.Sprintf("halted: %d failed or timed out, %s: %s", failures, scope, r.describeWhere(gi, func(e *entry) bool { return e.state.failure() }))
}

func (r *run) activeSummary(gi int) string {
	o := &r.out[gi]
	c := o.counts
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+what)
		}
	}
	add(o.started, "starting now")
	add(c.Progressing, "progressing")
	add(c.Failed, "failed (retrying until the deadline)")
	add(c.Soaking, "soaking")
	add(c.ToApply-o.started, "not started")
	add(c.Succeeded, "succeeded")
	s := strings.Join(parts, ", ")
	if o.held {
		s += "; " + o.reason
	}
	waiting := c.ToApply > o.started && !o.held
	if waiting && !r.breach && r.st.kind == clusterv1alpha1.Progressive && o.reached {
		s += fmt.Sprintf("; window of %d full", r.window)
		waiting = false
	}
	first, n := r.firstWhere(gi, func(e *entry) bool { return e.listed && e.state != untouched })
	if waiting && r.holder == first && first >= 0 && !r.breach {
		// Clusters that joined the group while others of it are in flight
		// wait for them (docs/semantics.md §3.5): name what they wait for.
		return s + "; waiting for " + r.describeN(first, n)
	}
	if d := r.describeN(first, n); d != "" {
		s += "; " + d
	}
	if waiting {
		s += "; " + r.waitReason(gi)
	}
	return s
}

// waitReason says what group gi waits for: the end of a breach, a free slot
// of Progressive's window, or the cluster (or gate) that holds the walk.
func (r *run) waitReason(gi int) string {
	switch {
	case r.breach:
		return "halted: the failure budget is exceeded, nothing new starts"
	case r.st.kind == clusterv1alpha1.Progressive && r.out[gi].reached:
		return fmt.Sprintf("waiting for a free slot: all %d in use", r.window)
	case r.stop >= 0:
		s := r.f.groups[r.stop]
		if r.holder >= 0 && !r.out[r.stop].held {
			s = r.f.groups[r.f.entries[r.holder].group]
		}
		what := "group"
		if s.mandatory {
			what = "mandatory group"
		}
		why := ""
		switch {
		case r.out[r.stop].held:
			why = r.out[r.stop].reason
		case r.holder >= 0:
			why = r.describe(r.holder)
		}
		return fmt.Sprintf("waiting for %s: %s", what[:len(what)-len("group")]+groupLabel(s.key), why)
	}
	return "waiting"
}

// describeWhere describes the first entry of group gi that satisfies keep,
// and says how many more there are.
func (r *run) describeWhere(gi int, keep func(*entry) bool) string {
	return r.describeN(r.firstWhere(gi, keep))
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

// describeN describes entry first and says how many more of n there are;
// "" when first is -1.
func (r *run) describeN(first, n int) string {
	if first < 0 {
		return ""
	}
	s := r.describe(first)
	if n > 1 {
		s += fmt.Sprintf(" (and %d more)", n-1)
	}
	return s
}

// describe says where entry i stands, quoting its name.
func (r *run) describe(i int) string {
	e := &r.f.entries[i]
	name := strconv.Quote(r.f.name(i))
	recheck := r.recheck(i)
	switch e.state {
	case untouched:
		if e.listed {
			return name + " starting now"
		}
		return name + " not started"
	case soaking:
		return name + " soaking until " + r.until(recheck)
	case progressing, failing:
		verb := " progressing"
		if e.state == failing {
			verb = " failed"
		}
		if recheck.IsZero() {
			return name + verb + ", no deadline"
		}
		return name + verb + ", deadline " + r.until(recheck)
	case timingOut:
		return name + " timed out at " + r.clockTime(recheck)
	case timedOut:
		return name + " timed out"
	}
	return name + " done"
}

// until formats a future time as "12:07:00 (5m0s left)".
func (r *run) until(t time.Time) string {
	return r.clockTime(t) + " (" + t.Sub(r.now).Round(time.Second).String() + " left)"
}

// clockTime formats t in now's location, with the date when it is not today.
func (r *run) clockTime(t time.Time) string {
	t = t.In(r.now.Location())
	if y, m, d := t.Date(); y != r.now.Year() || m != r.now.Month() || d != r.now.Day() {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

// summary counts a complete group's clusters; budgeted says the strategy
// has a failure budget that the timeouts were within.
func summary(c Counts, budgeted bool) string {
	timedOut := "timed out"
	if budgeted {
		timedOut += " (within maxFailures)"
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.Succeeded, "succeeded"}, {c.Skipped, "skipped"}, {c.TimedOut, timedOut}} {
		if p.n > 0 {
			parts = append(parts, strconv.Itoa(p.n)+" "+p.what)
		}
	}
	if len(parts) == 0 {
		return "no clusters"
	}
	return strings.Join(parts, ", ")
}
