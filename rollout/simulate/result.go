package simulate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
)

// Result is the timeline of one simulated rollout.
type Result struct {
	// Start is the simulated start.
	Start time.Time
	// End is when the simulation stopped: when the rollout completed, when
	// it was found halted or stuck, or Start+Limit.
	End time.Time
	// Outcome is how the rollout ended.
	Outcome Outcome
	// Reason is one line a person can act on, starting with the outcome,
	// e.g. `halted: group "stg": 1 failed or timed out, maxFailures allows 0
	// in this group: "stg-cluster" timed out at 00:22:00`.
	Reason string
	// Events is the timeline, in the order things happened.
	Events []Event
	// Groups says when every group started and finished, in index order.
	Groups []GroupTimes
	// Plans counts the planner calls.
	Plans int
}

// Outcome is how a simulated rollout ended.
type Outcome int

const (
	// Completed: every group is complete.
	Completed Outcome = iota
	// Halted: failures exceed maxFailures and nothing pending can change
	// that.
	Halted
	// Stuck: nothing can change and the rollout is not complete, e.g. a
	// silent cluster with no progressDeadline, or a gate that never opens.
	Stuck
	// TimeLimit: the simulation gave up before the rollout ended, at
	// Options.Limit of simulated time or Options.MaxPlans planner calls.
	TimeLimit
)

// String returns the outcome's name.
func (o Outcome) String() string {
	switch o {
	case Completed:
		return "Completed"
	case Halted:
		return "Halted"
	case Stuck:
		return "Stuck"
	case TimeLimit:
		return "TimeLimit"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// GroupTimes is when one group started (its first cluster was applied) and
// finished (the planner first reported it Complete). Either is zero when it
// did not happen; a group with no clusters finishes without starting.
type GroupTimes struct {
	grouping.GroupKey
	// Started is when the group's first cluster was applied.
	Started time.Time
	// Finished is when the planner first reported the group Complete.
	Finished time.Time
}

// Event is one thing that happened in a simulated rollout.
type Event struct {
	// At is when it happened.
	At time.Time
	// Kind is what happened.
	Kind EventKind
	// Cluster is the cluster concerned; empty for group and breach events.
	Cluster string
	// Group is the group concerned (the cluster's, for a cluster event).
	Group grouping.GroupKey
	// Detail adds what the planner or the cluster said, e.g. why a group is
	// held; it may be empty. For a group event it is the group's
	// rollout.GroupProgress.Explanation.
	Detail string
}

// EventKind is what an Event reports.
type EventKind int

const (
	// Applied: the configuration was applied to an untouched cluster.
	Applied EventKind = iota
	// Progressing: the cluster reported Progressing (at once when applied).
	Progressing
	// Succeeded: the cluster reported Succeeded after ApplyDuration.
	Succeeded
	// Failed: the cluster reported Failed after ApplyDuration.
	Failed
	// TimedOut: the planner reported the cluster timed out. Once per
	// time-out: again only after the cluster changed status and timed out
	// anew.
	TimedOut
	// Recovered: a failed or silent cluster turned Succeeded.
	Recovered
	// GroupStarted: the first cluster of the group was applied.
	GroupStarted
	// GroupCompleted: the planner first reported the group Complete.
	GroupCompleted
	// Breach: the planner reported a failure-budget breach, which was not
	// reported at the previous step. Group is the breached group; Detail
	// its failures, as the planner explains them.
	Breach
	// GateHeld: a gate started holding the group back (phase Blocked).
	// Once per hold.
	GateHeld
	// BreachCleared: a breach is no longer reported, e.g. a cluster
	// recovered. Group is the group the Breach event named.
	BreachCleared
)

// String returns the kind's name.
func (k EventKind) String() string {
	if name, _, ok := k.names(); ok {
		return name
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// names returns the kind's name and its verb in a timeline.
func (k EventKind) names() (name, verb string, ok bool) {
	switch k {
	case Applied:
		return "Applied", "applied", true
	case Progressing:
		return "Progressing", "progressing", true
	case Succeeded:
		return "Succeeded", "succeeded", true
	case Failed:
		return "Failed", "failed", true
	case TimedOut:
		return "TimedOut", "timed out", true
	case Recovered:
		return "Recovered", "recovered", true
	case GroupStarted:
		return "GroupStarted", "started", true
	case GroupCompleted:
		return "GroupCompleted", "completed", true
	case Breach:
		return "Breach", "breach", true
	case GateHeld:
		return "GateHeld", "held", true
	case BreachCleared:
		return "BreachCleared", "breach cleared", true
	}
	return "", "", false
}

// Timeline renders the result as text, one event a line, each with its
// offset from Start, then a last line with the reason:
//
//	+00:00 applied dev-cluster (dev)
//	+07:00 completed group dev: 1 succeeded
//	+21:00 completed: all 3 groups complete (7 planner calls)
//
// Offsets are +MM:SS, or +H:MM:SS from one hour on. Cluster and group
// names that are not plain Kubernetes names are quoted, so that no name
// can forge a line. A group is shown by its
// name, by #index when it has none, and as name#index when several groups
// share its name.
func (r Result) Timeline() string {
	labels := GroupLabels(r.Groups)
	label := func(k grouping.GroupKey) string {
		if l, ok := labels[k]; ok {
			return l
		}
		return k.String()
	}
	var b strings.Builder
	for _, e := range r.Events {
		b.WriteString(offset(e.At.Sub(r.Start)))
		b.WriteByte(' ')
		g := label(e.Group)
		_, verb, ok := e.Kind.names()
		if !ok {
			verb = e.Kind.String()
		}
		switch e.Kind {
		case GroupStarted, GroupCompleted, GateHeld:
			b.WriteString(verb + " group " + g)
		case Breach, BreachCleared:
			b.WriteString(verb + " in group " + g)
		default:
			b.WriteString(verb + " " + field.Name(e.Cluster) + " (" + g + ")")
		}
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s %s (%d planner calls)\n", offset(r.End.Sub(r.Start)), r.Reason, r.Plans)
	return b.String()
}

// GroupLabels names every group for a timeline: its name when that is
// unique, else name#index (#index when unnamed); a name that is not a plain
// Kubernetes name is quoted. Timeline uses it, and so can a caller that
// renders Result.Events its own way.
func GroupLabels(groups []GroupTimes) map[grouping.GroupKey]string {
	names := make(map[string]int, len(groups))
	for _, g := range groups {
		names[g.Name]++
	}
	labels := make(map[grouping.GroupKey]string, len(groups))
	for _, g := range groups {
		if g.Name != "" && names[g.Name] == 1 {
			labels[g.GroupKey] = field.Name(g.Name)
		} else {
			labels[g.GroupKey] = g.GroupKey.String()
		}
	}
	return labels
}

// offset formats d as +MM:SS, or +H:MM:SS from one hour on.
func offset(d time.Duration) string {
	d = d.Truncate(time.Second)
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	if h > 0 {
		return fmt.Sprintf("+%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("+%02d:%02d", m, s)
}
