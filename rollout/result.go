package rollout

import (
	"strconv"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// Result is what Plan decides. To a controller, it says:
//
//   - ToRollout: these clusters must have the new config (for OCM's add-on
//     manager: write it as their desired config). [Result.Starting] are
//     those that start now; the others are already in flight (Progressing,
//     Failed and retrying within the deadline, or Succeeded and soaking) and
//     only need the config kept in place.
//   - TimedOut: these passed progressDeadline at this call; record them as
//     TimeOut. They count as failures.
//   - Removed: these are in no group any more; forget them.
//   - MaxFailureBreach: the rollout halts. Nothing new starts until the
//     failures are resolved; clusters in flight carry on.
//   - RecheckAfter: when to call Plan again if nothing else happens. Zero
//     means nothing to wait for on the clock, not that the rollout is done:
//     call Plan again when a status, a group or a gate changes.
//     [Result.Done] says whether the rollout is over.
//   - Groups: every group's phase and what it waits for, as values a
//     program branches on (GroupProgress.Wait), and as a Reason made from
//     them for people, e.g. in a status condition or a log.
//   - Warnings: what in the configuration will likely surprise, by kind.
type Result struct {
	// ToRollout are the clusters to apply the config to, or to keep applying
	// it to: untouched ones that start now (status ToApply; see Starting)
	// and those still in flight (Progressing, Failed within the deadline,
	// Succeeded while soaking). Ordered by group index, then cluster name.
	ToRollout []ClusterStatus
	// TimedOut are the clusters whose progressDeadline passed at this call,
	// with status TimeOut and the deadline as RecheckTime. Same order.
	TimedOut []ClusterStatus
	// Removed are the statuses of clusters that are in no group, in input
	// order, exactly as the caller gave them: Group and RecheckTime are the
	// caller's (Group tells where the cluster was). They take no further
	// part in the plan; a controller clears what it wrote for them.
	Removed []ClusterStatus
	// MaxFailureBreach reports that failures exceed maxFailures: in some
	// group (ProgressivePerGroup; none tolerated in a mandatory group) or
	// over all clusters (Progressive). Failures are counted in every group
	// at every call, wherever the rollout stands, and a breach starts
	// nothing new: ToRollout then holds only clusters already in flight.
	// Never set for type All.
	MaxFailureBreach bool
	// RecheckAfter is when to call Plan again: the nearest end of a soak, a
	// deadline, or a gate's change. Zero means nothing to wait for on the
	// clock: call Plan again when a status changes (or the groups, or a
	// gate such as an approval). It does not mean done; see Done.
	RecheckAfter time.Duration
	// Groups explains every group, in index order: its phase, counts, what
	// it waits for (Wait: an earlier group, a cluster soaking or in flight,
	// a gate, a breach, a window slot; which one, and until when) and a
	// Reason made from those.
	Groups []GroupProgress
	// Warnings name configurations and inputs that will likely surprise:
	// unknown transition times, mandatory groups that match nothing, a
	// failure budget that can never trip, a soak without a deadline. See
	// WarningKind. Their order is fixed: by kind, in the order of the
	// WarningKind constants.
	Warnings []Warning
}

// WarningKind classifies a [Warning]. Its values are stable and meant for
// machines: filter or count on them, show the Message to people.
type WarningKind string

// The kinds of warnings Plan gives.
const (
	// UnknownTransitionTime: clusters have no lastTransitionTime, so their
	// soak or deadline is measured from now and restarts at every call.
	UnknownTransitionTime WarningKind = "UnknownTransitionTime"
	// UnmatchedMandatoryGroup: a mandatoryDecisionGroups entry matches no
	// decision group, and is ignored.
	UnmatchedMandatoryGroup WarningKind = "UnmatchedMandatoryGroup"
	// FailureBudgetNeverTrips: maxFailures is at least the number of
	// clusters it applies to, so the failure check can never trip.
	FailureBudgetNeverTrips WarningKind = "FailureBudgetNeverTrips"
	// SoakWithoutDeadline: minSuccessTime is set but progressDeadline is
	// None, so one cluster stuck Progressing holds the rollout forever.
	SoakWithoutDeadline WarningKind = "SoakWithoutDeadline"
)

// Warning is one thing in a rollout's configuration or inputs that is
// valid but likely to surprise: its kind and a message for people.
type Warning struct {
	Kind    WarningKind
	Message string
}

// String formats the warning as "Kind: message".
func (w Warning) String() string { return string(w.Kind) + ": " + w.Message }

// Starting returns the clusters of ToRollout that start now: those that
// had no status or ToApply, listed with status ToApply. The rest of
// ToRollout is in flight. The order is ToRollout's; nil when none start.
func (r Result) Starting() []ClusterStatus {
	n := 0
	for i := range r.ToRollout {
		if r.ToRollout[i].Status == ToApply {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]ClusterStatus, 0, n)
	for _, cs := range r.ToRollout {
		if cs.Status == ToApply {
			out = append(out, cs)
		}
	}
	return out
}

// Done reports whether the rollout is over: every group is Complete (its
// clusters succeeded and soaked, were skipped, or timed out within the
// failure budget). A halted, blocked or waiting rollout is not done, even
// when RecheckAfter is zero.
func (r Result) Done() bool {
	for _, g := range r.Groups {
		if g.Phase != Complete {
			return false
		}
	}
	return true
}

// Phase is where a group stands in the rollout.
type Phase int

const (
	// Waiting: an earlier group is not complete, so this one has not started.
	Waiting Phase = iota
	// Active: the group has clusters to start or in flight.
	Active
	// Complete: every cluster of the group succeeded (and soaked), was
	// skipped, or timed out within the failure budget. A Failed cluster
	// still inside its deadline is in flight, so its group is Active (though
	// ProgressivePerGroup may already start the next group: a failure within
	// budget does not hold the rollout).
	Complete
	// Blocked: the group could start, but a gate holds it.
	Blocked
	// Breached: the group's failures exceed its budget (for Progressive,
	// the fleet's failures exceed maxFailures and the group has some); the
	// rollout halts and nothing new starts anywhere.
	Breached
)

// String returns the phase's name.
func (p Phase) String() string {
	switch p {
	case Waiting:
		return "Waiting"
	case Active:
		return "Active"
	case Complete:
		return "Complete"
	case Blocked:
		return "Blocked"
	case Breached:
		return "Breached"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// Counts counts a group's clusters by evaluated status. Each cluster is
// counted once.
type Counts struct {
	// ToApply counts clusters that have not started (no status, or ToApply).
	ToApply int
	// Progressing counts clusters working on the config within the deadline.
	Progressing int
	// Soaking counts Succeeded clusters still inside minSuccessTime.
	Soaking int
	// Succeeded counts Succeeded clusters past their soak.
	Succeeded int
	// Failed counts Failed clusters within the deadline.
	Failed int
	// TimedOut counts clusters given as TimeOut or past their deadline.
	TimedOut int
	// Skipped counts Skip clusters.
	Skipped int
}

// GroupProgress explains one group: its phase, its counts, what it waits
// for as structured values (Wait, InFlight), and a Reason made from them.
// A program branches on Phase and Wait, never on the text of Reason.
type GroupProgress struct {
	grouping.GroupKey
	// Mandatory reports that the group is one of the strategy's
	// mandatoryDecisionGroups, rolled out first with no failure tolerated.
	Mandatory bool
	// Phase is where the group stands.
	Phase Phase
	// Size is the number of clusters in the group.
	Size int
	// Counts counts its clusters by evaluated status.
	Counts Counts
	// Starting counts the clusters of Counts.ToApply that start at this
	// call (they are in Result.Starting).
	Starting int
	// MaxFailures is the number of failures (Failed or TimeOut) the group's
	// budget allows: maxFailures of the group's size (ProgressivePerGroup),
	// of all clusters, shared by every group (Progressive), 0 for a
	// mandatory group, and -1 for type All, which has no failure budget.
	MaxFailures int
	// InFlight is, for an Active group, its first cluster in flight (in
	// name order) and how many more there are; zero when none is.
	InFlight ClusterRef
	// Wait says what the group waits for: see WaitKind. Its Kind is
	// WaitNone when the group waits for nothing (it is Complete, or Active
	// with every cluster started).
	Wait Wait
	// Reason is one line a person can act on, made from the fields above
	// (see Explanation), e.g.
	// `waiting for group "dev": "dev-cluster" soaking until 12:07:00 (5m0s left)`.
	// An active group whose clusters have not all started says what they
	// wait for, e.g. `rolling out: 1 progressing, 1 not started; waiting for
	// "stg-1" progressing, deadline 12:15:00 (15m0s left)`. Its wording is
	// for people and may change: read Wait instead.
	Reason string
}

// String formats the group as `dev#0 Active: rolling out: ...`, so that a
// printed GroupProgress shows its phase and reason, not only its key.
func (g GroupProgress) String() string {
	return g.GroupKey.String() + " " + g.Phase.String() + ": " + g.Reason
}

// WaitKind is what a group waits for before it can start (more of) its
// clusters, or before it can be complete.
type WaitKind int

const (
	// WaitNone: the group waits for nothing (it is Complete, or all its
	// clusters have started), or for nothing that can be named.
	WaitNone WaitKind = iota
	// WaitGroup: an earlier group of the walk is not done. Wait.Group is
	// that group, and Wait.Cluster the cluster it waits for (soaking, in
	// flight or starting now), or Wait.Gates what holds that group.
	WaitGroup
	// WaitMandatory: as WaitGroup, but the group waited for is mandatory:
	// the mandatory groups go first (docs/semantics.md §3.7).
	WaitMandatory
	// WaitCluster: clusters of the same group that joined it while others
	// of it were in flight wait for those (docs/semantics.md §3.5).
	// Wait.Group is the group itself, Wait.Cluster the first in flight.
	WaitCluster
	// WaitGate: a gate holds the group; Wait.Gates says why.
	WaitGate
	// WaitBreach: the failure budget is exceeded and nothing new starts.
	// For a Breached group, Wait.Cluster is its first failure (and
	// Wait.RolloutFailures the rollout's, for Progressive).
	WaitBreach
	// WaitWindow: Progressive's window of maxConcurrency slots is full;
	// Wait.Window is its size.
	WaitWindow
)

// String returns the kind's name.
func (k WaitKind) String() string {
	switch k {
	case WaitNone:
		return "None"
	case WaitGroup:
		return "Group"
	case WaitMandatory:
		return "Mandatory"
	case WaitCluster:
		return "Cluster"
	case WaitGate:
		return "Gate"
	case WaitBreach:
		return "Breach"
	case WaitWindow:
		return "Window"
	}
	return "WaitKind(" + strconv.Itoa(int(k)) + ")"
}

// Wait is what a group waits for, as values: the group, cluster or gates
// it waits for and until when. Fields that do not apply to Kind are zero.
type Wait struct {
	// Kind is what the group waits for.
	Kind WaitKind
	// Group is the group waited for (WaitGroup, WaitMandatory), or the
	// group itself (WaitCluster).
	Group grouping.GroupKey
	// Cluster is the cluster waited for (WaitGroup, WaitMandatory,
	// WaitCluster), or a Breached group's first failure (WaitBreach).
	Cluster ClusterRef
	// Gates are the reasons of the gates that hold the group (WaitGate) or
	// the group waited for (WaitGroup, WaitMandatory), in Planner.Gates
	// order; "a gate holds the group" when none gave a reason.
	Gates []string
	// HeldBy are the indices in Planner.Gates of the gates that hold the
	// group (WaitGate) or the group waited for (WaitGroup, WaitMandatory),
	// in that order: a caller that built the gates knows which kind each
	// is, without reading their reasons.
	HeldBy []int
	// Until is when the wait may end on the clock: the end of Cluster's
	// soak or its deadline, or when a holding gate may answer otherwise.
	// Zero when no time is known: the wait ends on a status change, an
	// approval, or the end of a breach.
	Until time.Time
	// RolloutFailures counts the failures of the whole rollout when a
	// non-mandatory group of type Progressive is Breached (WaitBreach):
	// that budget is shared by all clusters. It is 0 where the budget is
	// the group's own, whose failures Counts holds.
	RolloutFailures int
	// Window is the size of Progressive's window (WaitWindow).
	Window int
}

// ClusterRef names a cluster in an explanation and says where it stands.
type ClusterRef struct {
	// Name is the cluster's name; empty when there is none.
	Name string
	// Status is its evaluated status: ToApply (starting now), Progressing,
	// Failed (retrying until its deadline), Succeeded (soaking until
	// Until, or done when Until is zero) or TimeOut.
	Status Status
	// Until is the end of its soak (Succeeded), its deadline (Progressing,
	// Failed; zero when there is none) or the deadline that passed at this
	// call (TimeOut; zero when it was given as TimeOut).
	Until time.Time
	// Others counts the other clusters of its group in the same case (in
	// flight, or failed), not named.
	Others int
}

// Sooner returns the sooner of two recheck times, as RecheckAfter gives
// them: the smaller positive one of a and b, 0 when neither is positive
// (0 means nothing to wait for). A caller that plans several rollouts at
// once rechecks at the Sooner of their RecheckAfter.
func Sooner(a, b time.Duration) time.Duration {
	if a <= 0 || (b > 0 && b < a) {
		return max(b, 0)
	}
	return a
}
