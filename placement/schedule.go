package placement

import (
	"errors"
	"fmt"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// Scheduler schedules Placements as OCM's placement controller does. The
// zero value is ready to use and reads the real clock.
type Scheduler struct {
	// Clock is now: it stamps the lastTransitionTime of the conditions
	// whose status changes, and it is the time at which tolerationSeconds
	// and the validUntil of AddOnPlacementScores are read. Nil means the
	// real clock.
	Clock clock.PassiveClock
}

// Schedule is Scheduler{}.Schedule: it reads the real clock.
func Schedule(p *clusterv1beta1.Placement, clusters []*clusterv1.ManagedCluster) (Result, error) {
	return Scheduler{}.Schedule(p, clusters)
}

// Schedule selects the clusters of p among clusters, divides them into
// decision groups and writes what OCM's placement controller would: the
// PlacementDecisions and the Placement's status. Neither p nor clusters is
// modified; clusters may be in any order.
//
// Every cluster given is a candidate, as if bound to p's namespace through
// the global ManagedClusterSet (spec.clusterSets is not consulted), and no
// other PlacementDecision exists on the hub; [Scheduler.ScheduleHub] takes
// the whole hub. As in OCM, a cluster being deleted is not a candidate. A
// candidate is selected when any of spec.predicates matches it (no
// predicate selects every candidate; within one requiredClusterSelector
// the label and the claim selector must both match) and the Placement
// tolerates its taints; spec.numberOfClusters then keeps the best by the
// prioritizers' scores, ties going to the first name.
//
// Conditions are set as meta.SetStatusCondition does on a copy of
// p.Status.Conditions: a condition whose status does not change keeps its
// lastTransitionTime, one that does is stamped with the Scheduler's clock.
//
// A misconfigured Placement (a selector that does not compile, a bad
// clustersPerDecisionGroup, a negative numberOfClusters, a toleration or a
// prioritizerPolicy OCM refuses) gives an error listing every problem, each
// an apimachinery *field.Error whose path points into the Placement
// (spec.numberOfClusters, spec.predicates[0].requiredClusterSelector...),
// joined with errors.Join under the Placement's name, given once
// (`placement "ns/name": ...`), AND a Result with what OCM would write in
// that case: PlacementMisconfigured
// True, reason Misconfigured, with OCM's message for the first problem it
// would meet ("Predicate:<apimachinery error>" for a predicate,
// "TaintToleration:<message>" for a toleration, ":<message>" for the
// prioritizer policy and for the decision strategy, where the error is our
// own for a clustersPerDecisionGroup that OCM accepts but the CRD
// forbids). With a bad predicate, toleration or prioritizer policy nothing
// is selected and there is one empty group; with a bad decision strategy
// the clusters are selected but there are no groups and no
// PlacementDecisions. As in OCM, PlacementSatisfied is still computed from
// the selection, so it can read AllDecisionsScheduled next to
// PlacementMisconfigured True. Result.Misconfigured is then true: the
// caller writes Status and Decisions, and reports the error.
//
// A nil Placement, a nil or unnamed ManagedCluster, two ManagedClusters
// with one name, CEL selectors (which rolloutkit does not evaluate) and a
// malformed spreadPolicy are errors with an empty Result (Misconfigured
// false): nothing is to be written.
func (s Scheduler) Schedule(p *clusterv1beta1.Placement, clusters []*clusterv1.ManagedCluster) (Result, error) {
	if p == nil {
		return Result{}, errors.New("nil Placement: want a Placement to schedule")
	}
	obj := ifield.Object("placement", p.Namespace, p.Name)
	cfg := parseConfig(&p.Spec)
	f, errs := readFleet(p, clusters, nil, nil, usesClaims(&p.Spec))
	if len(errs) > 0 || len(cfg.refusals) > 0 {
		return Result{}, refuse(obj, errs, &cfg)
	}
	sets := everyCluster()
	return s.schedule(p, &cfg, &f, &sets, obj)
}

// schedule chooses the clusters and writes the Result.
func (s Scheduler) schedule(p *clusterv1beta1.Placement, cfg *config, f *fleet, sets *boundSets, obj string) (Result, error) {
	now := clock.NowOf(s.Clock)
	ch := cfg.choose(f, sets, now)
	warnings := scheduleWarnings(cfg, f, sets, p.Spec.ClusterSets, &ch)
	// ch.chosen ascends: gather the chosen clusters in place, over what
	// the warnings have read.
	selected := f.clusters[:len(ch.chosen)]
	for k, i := range ch.chosen {
		selected[k] = f.clusters[i]
	}

	res := Result{Clusters: names(selected)}
	res.Status.NumberOfSelectedClusters = int32(len(selected))
	res.Status.DecisionGroups = []clusterv1beta1.DecisionGroupStatus{}
	var div grouping.Division
	if cfg.strategyErr == nil {
		// selected is sorted with unique names: Divide cannot fail.
		var err error
		if div, err = cfg.strategy.Divide(selected); err != nil {
			return Result{}, fmt.Errorf("%s: %w", obj, err)
		}
		res.Groups = div.Groups
		res.Decisions, res.Status.DecisionGroups = decisions(p, div.Groups)
	}

	misconfigured := misconfiguredCondition("")
	if cfg.misconfigured() {
		misconfigured = misconfiguredCondition(cfg.ocmMessage(ch.available > 0, ch.tolerationsChecked))
	}
	res.Status.Conditions = setConditions(p.Status.Conditions, now, misconfigured,
		satisfiedCondition(sets, p.Spec.ClusterSets, ch.available, len(selected), ch.unscheduled))
	if !ch.recheck.IsZero() {
		res.RecheckAfter = ch.recheck.Sub(now)
	}
	if cfg.misconfigured() {
		res.Misconfigured = true
		return res, ifield.About(obj, cfg.problems()...)
	}
	res.Warnings = append(warnings, divisionWarnings(&p.Spec.DecisionStrategy.GroupStrategy, div)...)
	return res, nil
}

// usesClaims reports whether any selector or spread constraint of spec
// looks at cluster claims.
func usesClaims(spec *clusterv1beta1.PlacementSpec) bool {
	for _, pr := range spec.Predicates {
		if len(pr.RequiredClusterSelector.ClaimSelector.MatchExpressions) > 0 {
			return true
		}
	}
	for _, dg := range spec.DecisionStrategy.GroupStrategy.DecisionGroups {
		if len(dg.ClusterSelector.ClaimSelector.MatchExpressions) > 0 {
			return true
		}
	}
	for _, sc := range spec.SpreadPolicy.SpreadConstraints {
		if sc.TopologyKeyType == clusterv1beta1.TopologyKeyTypeClaim {
			return true
		}
	}
	return false
}

func names(clusters []grouping.Cluster) []string {
	if len(clusters) == 0 {
		return nil
	}
	out := make([]string, len(clusters))
	for i := range clusters {
		out[i] = clusters[i].Name
	}
	return out
}
