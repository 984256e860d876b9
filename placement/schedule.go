package placement

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
)

// Scheduler schedules Placements as OCM's placement controller does. The
// zero value is ready to use and reads the real clock.
type Scheduler struct {
	// Clock stamps the lastTransitionTime of the conditions whose status
	// changes. Nil means the real clock.
	Clock clock.Clock
}

// Schedule is Scheduler{}.Schedule: it stamps conditions with the real
// clock.
func Schedule(p *clusterv1beta1.Placement, clusters []*clusterv1.ManagedCluster) (Result, error) {
	return Scheduler{}.Schedule(p, clusters)
}

// Schedule selects the clusters of p among clusters, divides them into
// decision groups and writes what OCM's placement controller would: the
// PlacementDecisions and the Placement's status. Neither p nor clusters is
// modified; clusters may be in any order.
//
// A cluster is selected when any of spec.predicates matches it (no
// predicate selects every cluster); within one requiredClusterSelector the
// label and the claim selector must both match. CEL selectors, cluster sets,
// taints and tolerations are not evaluated (a warning says so when they are
// used). spec.numberOfClusters keeps the first N selected clusters in name
// order, where OCM ranks them by prioritizer scores.
//
// Conditions are set as meta.SetStatusCondition does on a copy of
// p.Status.Conditions: a condition whose status does not change keeps its
// lastTransitionTime, one that does is stamped with the Scheduler's clock.
//
// A misconfigured Placement (a selector that does not compile, a bad
// clustersPerDecisionGroup, a negative numberOfClusters) gives an error
// listing every problem, each a *FieldError naming the Placement, AND a
// Result with what OCM would write in that case: PlacementMisconfigured
// True, reason Misconfigured, with OCM's message for the first problem it
// would meet ("Predicate:<apimachinery error>" for a predicate, ":<error>"
// for the decision strategy, where the error is our own for a
// clustersPerDecisionGroup that OCM accepts but the CRD forbids). With a
// bad predicate nothing is selected and there is one empty group; with a
// bad decision strategy the clusters are
// selected but there are no groups and no PlacementDecisions. As in OCM,
// PlacementSatisfied is still computed from the selection, so it can read
// AllDecisionsScheduled next to PlacementMisconfigured True.
//
// A nil Placement, a nil or unnamed ManagedCluster, or two ManagedClusters
// with one name are errors with an empty Result.
func (s Scheduler) Schedule(p *clusterv1beta1.Placement, clusters []*clusterv1.ManagedCluster) (Result, error) {
	if p == nil {
		return Result{}, errors.New("nil Placement: want a Placement to schedule")
	}
	obj := objectName("placement", p.Namespace, p.Name)
	cfg := parseConfig(&p.Spec)
	all, inputErrs := readClusters(clusters, usesClaims(&p.Spec))
	if len(inputErrs) > 0 {
		errs := make([]error, 0, len(inputErrs)+1)
		for _, e := range inputErrs {
			errs = append(errs, fmt.Errorf("%s: %w", obj, e))
		}
		return Result{}, errors.Join(append(errs, cfg.err(obj))...)
	}
	now := clock.NowOf(s.Clock)

	var selected []grouping.Cluster
	unscheduled := 0
	var warnings []Warning
	// As in OCM, a bad predicate stops scheduling: nothing is selected.
	if len(cfg.predicateErrs)+len(cfg.numberErrs) == 0 {
		selected, unscheduled, warnings = cfg.choose(all)
		warnings = append(warnings, unsupportedWarnings(&p.Spec, clusters, selected)...)
	}

	res := Result{Clusters: names(selected)}
	res.Status.NumberOfSelectedClusters = int32(len(selected))
	res.Status.DecisionGroups = []clusterv1beta1.DecisionGroupStatus{}
	if len(cfg.strategyErrs) == 0 {
		// selected is sorted with unique names: Divide cannot fail.
		div, err := cfg.strategy.Divide(selected)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", obj, err)
		}
		res.Groups = div.Groups
		res.Decisions, res.Status.DecisionGroups = decisions(p, div.Groups)
		if !cfg.misconfigured() {
			warnings = append(warnings, divisionWarnings(&p.Spec.DecisionStrategy.GroupStrategy, div)...)
		}
	}

	misconfigured := misconfiguredCondition("")
	if cfg.misconfigured() {
		misconfigured = misconfiguredCondition(cfg.ocmMessage())
	}
	res.Status.Conditions = setConditions(p.Status.Conditions, now,
		misconfigured, satisfiedCondition(len(selected), unscheduled))
	if cfg.misconfigured() {
		return res, cfg.err(obj)
	}
	res.Warnings = warnings
	return res, nil
}

// choose selects the clusters of all (sorted by name, and ours to reorder)
// that the predicates match, keeps the first numberOfClusters of them, and
// counts the decisions left unscheduled.
func (c *config) choose(all []grouping.Cluster) (selected []grouping.Cluster, unscheduled int, warnings []Warning) {
	selected = all[:0] // filter in place
	for _, cl := range all {
		if c.selects(cl) {
			selected = append(selected, cl)
		}
	}
	if c.number < 0 {
		return selected, 0, nil
	}
	warnings = numberWarnings(c.number, len(selected))
	if c.number < len(selected) {
		selected = selected[:c.number]
	}
	return selected, c.number - len(selected), warnings
}

// readClusters reads what grouping needs of each ManagedCluster, sorted by
// name, and reports nil entries, empty names and
// duplicates. It does not call grouping.FromManagedCluster: that copies the
// label maps, which makes Schedule about 3× slower at 10k clusters. Here
// the label maps are shared with the ManagedClusters, as nothing writes to
// them, and claims are read only when some selector looks at them.
func readClusters(clusters []*clusterv1.ManagedCluster, withClaims bool) ([]grouping.Cluster, []error) {
	var errs []error
	read := make([]grouping.Cluster, 0, len(clusters))
	for i, mc := range clusters {
		switch {
		case mc == nil:
			errs = append(errs, fmt.Errorf("clusters[%d]: nil ManagedCluster: want a ManagedCluster", i))
			continue
		case mc.Name == "":
			errs = append(errs, fmt.Errorf("clusters[%d]: ManagedCluster with an empty name: want metadata.name", i))
			continue
		}
		c := grouping.Cluster{Name: mc.Name, Labels: mc.Labels}
		if withClaims && len(mc.Status.ClusterClaims) > 0 {
			c.Claims = make(map[string]string, len(mc.Status.ClusterClaims))
			for _, cl := range mc.Status.ClusterClaims {
				c.Claims[cl.Name] = cl.Value
			}
		}
		read = append(read, c)
	}
	slices.SortFunc(read, func(a, b grouping.Cluster) int { return strings.Compare(a.Name, b.Name) })
	for _, name := range grouping.DuplicateNames(read) {
		errs = append(errs, fmt.Errorf("duplicate ManagedCluster %q: want each cluster once", name))
	}
	return read, errs
}

// usesClaims reports whether any selector of spec looks at cluster claims.
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
