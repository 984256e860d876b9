package placement

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// config is a Placement's spec, parsed once: the compiled predicates, the
// number of clusters, the tolerations, the prioritizers, the spread
// constraints and the group strategy, or the problems found.
type config struct {
	predicates []grouping.Selector
	// number is spec.numberOfClusters; -1 when unset.
	number       int
	tolerations  []clusterv1beta1.Toleration
	prioritizers []prioritizer
	spread       []spreadConstraint
	strategy     *grouping.Strategy
	// length is spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup
	// as given, for OCM's message about it.
	length intstr.IntOrString

	// Problems, each in spec order; not yet placed in the Placement.
	numberErrs, predicateErrs, prioritizerErrs, tolerationErrs []error
	// strategyErr joins the problems of the group strategy; lengthErr is
	// the first of them when it is about clustersPerDecisionGroup.
	strategyErr error
	lengthErr   *field.Error
	// OCM's messages for the first problem of the predicates, the
	// prioritizers, the tolerations and the decision groups' selectors.
	predicateMessage, prioritizerMessage, tolerationMessage, groupsMessage string
	// refusals are what rolloutkit does not model (CEL selectors) or OCM
	// does not read (a bad spreadPolicy): OCM would write a status, but
	// there is none to give.
	refusals []error
}

func parseConfig(spec *clusterv1beta1.PlacementSpec) config {
	c := config{number: -1, length: spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup}
	c.refusals = celRefusals(spec.Predicates)
	c.prioritizers, c.prioritizerErrs, c.prioritizerMessage = parsePrioritizers(spec.PrioritizerPolicy)
	var spreadErrs []error
	c.spread, spreadErrs = parseSpread(spec.SpreadPolicy)
	c.refusals = append(c.refusals, spreadErrs...)
	c.tolerations = spec.Tolerations
	c.tolerationErrs, c.tolerationMessage = checkTolerations(spec.Tolerations)
	if n := spec.NumberOfClusters; n != nil {
		if *n < 0 {
			c.numberErrs = append(c.numberErrs, field.Invalid(field.NewPath("spec", "numberOfClusters"), *n, "want a non-negative integer"))
		} else {
			c.number = int(*n)
		}
	}
	c.parsePredicates(spec.Predicates)
	c.parseGroupStrategy(spec.DecisionStrategy.GroupStrategy)
	return c
}

// parsePredicates compiles spec.predicates; a predicate that does not
// compile is left out, its problems kept.
func (c *config) parsePredicates(predicates []clusterv1beta1.ClusterPredicate) {
	c.predicates = make([]grouping.Selector, 0, len(predicates))
	for i, pr := range predicates {
		rs := pr.RequiredClusterSelector
		sel, err := grouping.NewSelector(rs.LabelSelector, rs.ClaimSelector,
			field.NewPath("spec", "predicates").Index(i).Child("requiredClusterSelector"))
		if err != nil {
			c.predicateErrs = append(c.predicateErrs, err)
			if ocm := ocmSelectorError(rs.LabelSelector, rs.ClaimSelector); ocm != nil && c.predicateMessage == "" {
				c.predicateMessage = ocm.Error()
			}
			continue
		}
		c.predicates = append(c.predicates, sel)
	}
}

// parseGroupStrategy compiles spec.decisionStrategy.groupStrategy.
func (c *config) parseGroupStrategy(gs clusterv1beta1.GroupStrategy) {
	path := field.NewPath("spec", "decisionStrategy", "groupStrategy")
	c.strategy, c.strategyErr = grouping.Compile(gs, path)
	if c.strategyErr == nil {
		return
	}
	if first := (*field.Error)(nil); errors.As(c.strategyErr, &first) && first.Field == path.Child("clustersPerDecisionGroup").String() {
		c.lengthErr = first
	}
	for _, dg := range gs.DecisionGroups {
		if err := ocmSelectorError(dg.ClusterSelector.LabelSelector, dg.ClusterSelector.ClaimSelector); err != nil {
			c.groupsMessage = err.Error()
			break
		}
	}
}

// misconfigured reports whether any field of the spec is unusable, in a
// way OCM's scheduler reports (or would, for a negative numberOfClusters).
func (c *config) misconfigured() bool {
	return len(c.numberErrs)+len(c.predicateErrs)+len(c.prioritizerErrs)+len(c.tolerationErrs) > 0 || c.strategyErr != nil
}

// selects reports whether any predicate matches cl: predicates are ORed,
// and no predicate at all selects every cluster.
func (c *config) selects(cl grouping.Cluster) bool {
	if len(c.predicates) == 0 {
		return true
	}
	for i := range c.predicates {
		if c.predicates[i].Matches(cl) {
			return true
		}
	}
	return false
}

// problems lists every problem of the spec, in spec order: each a
// *field.Error, or a join of them for a selector or the group strategy.
func (c *config) problems() []error {
	errs := slices.Concat(c.numberErrs, c.predicateErrs, c.prioritizerErrs, c.tolerationErrs)
	if c.strategyErr != nil {
		errs = append(errs, c.strategyErr)
	}
	return errs
}

// ocmMessage is the PlacementMisconfigured message OCM's scheduling
// controller would write: "<plugin>:<message>" for the problem it meets
// first, or "" when it meets none. Its filters run first, "Predicate" and
// then "TaintToleration", and each checks its part of the spec only when
// some cluster is left to filter (predicatesChecked: there is a
// candidate; tolerationsChecked: a candidate matched the predicates); then
// the prioritizer policy (no plugin name). It stops at the first problem,
// and a decision strategy problem (found after scheduling, with no plugin
// name) overrides them all: clustersPerDecisionGroup first, then the
// decision groups' selectors in spec order.
func (c *config) ocmMessage(predicatesChecked, tolerationsChecked bool) string {
	switch {
	case c.lengthErr != nil:
		if c.length.Type == intstr.String && !ocmAcceptsLength(c.length.StrVal) {
			// calculateLength's error.
			return ":" + c.length.StrVal + " invalid type: string is not a percentage"
		}
		// OCM accepts what the CRD forbids (a negative integer, "0%",
		// "150%"): the message is our own.
		return ":" + c.lengthErr.Error()
	case c.strategyErr != nil:
		return ":" + c.groupsMessage
	case len(c.predicateErrs) > 0 && predicatesChecked:
		return "Predicate:" + c.predicateMessage
	case len(c.tolerationErrs) > 0 && tolerationsChecked:
		return "TaintToleration:" + c.tolerationMessage
	case len(c.prioritizerErrs) > 0:
		return ":" + c.prioritizerMessage
	case len(c.numberErrs) > 0:
		// OCM does not check numberOfClusters (a negative one makes its
		// controller panic); say what is wrong in our own words.
		return c.numberErrs[0].Error()
	}
	return ""
}

// ocmSelectorError is the error OCM meets first when it compiles a label
// and claim selector pair (helpers.NewClusterSelector), nil when there is
// none: metav1.LabelSelectorAsSelector's error for the first requirement
// that does not compile, the label selector before the claim selector,
// matchLabels before matchExpressions. OCM takes matchLabels in a map's
// order; here they are taken by key, so that the message is stable.
func ocmSelectorError(label metav1.LabelSelector, claim clusterv1beta1.ClusterClaimSelector) error {
	for _, sel := range []metav1.LabelSelector{label, {MatchExpressions: claim.MatchExpressions}} {
		for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
			one := metav1.LabelSelector{MatchLabels: map[string]string{k: sel.MatchLabels[k]}}
			if _, err := metav1.LabelSelectorAsSelector(&one); err != nil {
				return err
			}
		}
		if _, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: sel.MatchExpressions}); err != nil {
			return err
		}
	}
	return nil
}

// ocmAcceptsLength reports whether OCM's calculateLength parses the
// clustersPerDecisionGroup string s: a float, then '%'.
func ocmAcceptsLength(s string) bool {
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return false
	}
	_, err := strconv.ParseFloat(num, 64)
	return err == nil
}
