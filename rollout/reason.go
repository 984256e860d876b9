package rollout

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The text of GroupProgress.Reason, made from its structured fields: the
// planner fills those, and the words are only ever written here, never read
// back.

// Explanation is the text of Reason after the words that open it
// ("complete: ", "halted: ", "held: ", "rolling out: ", "waiting for "),
// made from the group's fields as of now, the time the plan was made (it
// says how long is left until a time): for a Complete group its counts,
// e.g. `2 succeeded`; for a Breached one its failures, e.g.
// `1 failed or timed out, maxFailures allows 0 in this group: "stg-1" timed out at 12:22:00`;
// for a Blocked one the reasons of the gates that hold it.
func (g GroupProgress) Explanation(now time.Time) string {
	switch g.Phase {
	case Breached:
		return g.breachText(now)
	case Complete:
		return countsText(g.Counts, g.MaxFailures >= 0)
	case Blocked:
		return strings.Join(g.Wait.Gates, "; ")
	case Active:
		return g.activeText(now)
	}
	return g.Wait.text(now)
}

// Summary is the group's Reason as it reads at any time: with absolute
// times (in UTC, with the date) and no countdowns ("5m0s left"), so that it
// changes only when the group's phase, counts or waits change. It is the
// text to keep in an object's status, which must not be rewritten at every
// call only because time passed.
func (g GroupProgress) Summary() string { return g.reason(time.Time{}) }

// reason is the group's Reason: the words that open it, then its
// Explanation.
func (g GroupProgress) reason(now time.Time) string {
	switch g.Phase {
	case Breached:
		return "halted: " + g.Explanation(now)
	case Complete:
		return "complete: " + g.Explanation(now)
	case Blocked:
		return "held: " + g.Explanation(now)
	case Active:
		return "rolling out: " + g.Explanation(now)
	}
	return g.Wait.lead() + g.Explanation(now)
}

// breachText counts a breached group's failures against its budget and
// names the first.
func (g GroupProgress) breachText(now time.Time) string {
	scope := fmt.Sprintf("maxFailures allows %d in this group", g.MaxFailures)
	switch {
	case g.Mandatory:
		scope = "a mandatory group tolerates none"
	case g.Wait.RolloutFailures > 0:
		scope = fmt.Sprintf("%d failed or timed out in the rollout, maxFailures allows %d", g.Wait.RolloutFailures, g.MaxFailures)
	}
	return fmt.Sprintf("%d failed or timed out, %s: %s", g.Counts.Failed+g.Counts.TimedOut, scope, g.Wait.Cluster.text(now))
}

// activeText counts an active group's clusters, then says what it waits
// for and names its first cluster in flight.
func (g GroupProgress) activeText(now time.Time) string {
	c := g.Counts
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+what)
		}
	}
	add(g.Starting, "starting now")
	add(c.Progressing, "progressing")
	add(c.Failed, "failed (retrying until the deadline)")
	add(c.Soaking, "soaking")
	add(c.ToApply-g.Starting, "not started")
	add(c.Succeeded, "succeeded")
	s := strings.Join(parts, ", ")
	w := g.Wait
	switch w.Kind {
	case WaitGate:
		s += "; held: " + strings.Join(w.Gates, "; ")
	case WaitWindow:
		s += fmt.Sprintf("; window of %d full", w.Window)
	case WaitCluster:
		return s + "; waiting for " + w.Cluster.text(now)
	}
	if g.InFlight.Name != "" {
		s += "; " + g.InFlight.text(now)
	}
	switch w.Kind {
	case WaitGroup, WaitMandatory, WaitBreach:
		s += "; " + w.lead() + w.text(now)
	}
	return s
}

// lead is the words that open what a group waiting for w says.
func (w Wait) lead() string {
	switch w.Kind {
	case WaitNone:
		return "waiting"
	case WaitBreach:
		return "halted: "
	}
	return "waiting for "
}

// text says what a group that has not started waits for.
func (w Wait) text(now time.Time) string {
	switch w.Kind {
	case WaitBreach:
		return "the failure budget is exceeded, nothing new starts"
	case WaitWindow:
		return fmt.Sprintf("a free slot: all %d in use", w.Window)
	case WaitGate:
		return strings.Join(w.Gates, "; ")
	case WaitCluster:
		return w.Cluster.text(now)
	case WaitGroup, WaitMandatory:
		what := w.Group.Label()
		if w.Kind == WaitMandatory {
			what = "mandatory " + what
		}
		why := w.Cluster.text(now)
		if len(w.Gates) > 0 {
			why = "held: " + strings.Join(w.Gates, "; ")
		}
		return what + ": " + why
	}
	return ""
}

// text says where the cluster stands, quoting its name, and how many
// others are alike; "" for the zero ClusterRef.
func (c ClusterRef) text(now time.Time) string {
	if c.Name == "" {
		return ""
	}
	s := strconv.Quote(c.Name)
	switch {
	case c.Status == ToApply:
		s += " starting now"
	case c.Status == Succeeded && !c.Until.IsZero():
		s += " soaking until " + until(now, c.Until)
	case c.Status == Progressing || c.Status == Failed:
		verb := " progressing"
		if c.Status == Failed {
			verb = " failed"
		}
		if c.Until.IsZero() {
			s += verb + ", no deadline"
		} else {
			s += verb + ", deadline " + until(now, c.Until)
		}
	case c.Status == TimeOut && !c.Until.IsZero():
		s += " timed out at " + clockTime(now, c.Until)
	case c.Status == TimeOut:
		s += " timed out"
	default:
		s += " done"
	}
	if c.Others > 0 {
		s += fmt.Sprintf(" (and %d more)", c.Others)
	}
	return s
}

// until formats a future time as "12:07:00 (5m0s left)"; with a zero now,
// as "2026-03-01 12:07:00", with no countdown (see Summary).
func until(now, t time.Time) string {
	if now.IsZero() {
		return clockTime(now, t)
	}
	return clockTime(now, t) + " (" + t.Sub(now).Round(time.Second).String() + " left)"
}

// clockTime formats t in now's location, with the date when it is not today.
func clockTime(now, t time.Time) string {
	t = t.In(now.Location())
	if y, m, d := t.Date(); y != now.Year() || m != now.Month() || d != now.Day() {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

// countsText counts a complete group's clusters; budgeted says the
// strategy has a failure budget that the timeouts were within.
func countsText(c Counts, budgeted bool) string {
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
