package simulate

import (
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Behavior is how one simulated cluster reacts once the configuration is
// applied to it. The zero value succeeds at once.
type Behavior struct {
	// ApplyDuration is how long the cluster stays Progressing before it
	// reports Succeeded (or Failed). It must not be negative.
	ApplyDuration time.Duration
	// Fail makes the cluster report Failed instead of Succeeded.
	Fail bool
	// Silent makes the cluster never report after Progressing: it stays
	// Progressing, with the apply time as its last transition time. Silent
	// and Fail exclude each other.
	Silent bool
	// RecoverAfter, when positive, makes a failing or silent cluster turn
	// Succeeded this long after it was applied. With Fail it must be longer
	// than ApplyDuration: the cluster fails first, then recovers. It must be
	// zero unless Fail or Silent is set.
	RecoverAfter time.Duration
}

// Fleet is the simulated fleet: its decision groups and how each cluster
// behaves.
type Fleet struct {
	// Groups are the decision groups, e.g. from grouping.Divide or
	// placement.Schedule. Clusters need not be sorted. A fleet with no groups
	// (or only empty ones) completes at once.
	Groups []grouping.Group
	// Behaviors gives named clusters their own behaviour. Every key must be
	// a cluster of Groups.
	Behaviors map[string]Behavior
	// Default is the behaviour of every cluster not in Behaviors.
	Default Behavior
}

// Options configures a simulation.
type Options struct {
	// Strategy is the rollout strategy under test, validated as
	// rollout.Validate does.
	Strategy clusterv1alpha1.RolloutStrategy
	// Planner supplies DefaultConcurrency and Gates. Its Clock is ignored:
	// the simulation drives the planner with its own fake clock.
	Planner rollout.Planner
	// Start is the simulated start. Zero means Monday 2026-01-05 00:00 UTC,
	// so that offsets and the planner's clock times read alike.
	Start time.Time
	// Limit is how much simulated time the rollout may take before the
	// simulation gives up with Outcome TimeLimit. Zero means 30 days.
	Limit time.Duration
	// MaxPlans caps the planner calls, a guard against gates that ask to be
	// rechecked every instant. Reaching it ends the simulation with Outcome
	// TimeLimit. Zero means 100,000 plus 10 per cluster.
	MaxPlans int
}

// Defaults, in one place.
const (
	defaultLimit           = 30 * 24 * time.Hour
	defaultPlans           = 100_000
	defaultPlansPerCluster = 10
)

// defaultStart is the start of a simulation whose Options.Start is zero.
func defaultStart() time.Time { return time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC) }

// Run simulates the rollout of opts.Strategy over fleet, from opts.Start
// until the rollout completes, halts, is stuck, or passes opts.Limit, and
// returns its timeline.
//
// Inputs are validated first and every problem is returned at once, as
// *field.Error values (k8s.io/apimachinery/pkg/util/validation/field)
// joined with errors.Join, their paths rooted at Run's arguments: a
// negative or contradictory Behavior field
// (fleet.Behaviors[stg-cluster].RecoverAfter), a Behaviors key that names
// no cluster of the fleet, a negative opts.Limit or opts.MaxPlans, and
// whatever Planner.Plan rejects in the strategy
// (opts.Strategy.progressive.maxFailures), the groups (fleet.Groups[1].Index)
// or the planner's DefaultConcurrency (opts.Planner.DefaultConcurrency). The
// inputs are never modified; the same inputs give the same Result.
func Run(opts Options, fleet Fleet) (Result, error) {
	s, err := newSim(opts, fleet)
	if err != nil {
		return Result{}, err
	}
	return s.run()
}
