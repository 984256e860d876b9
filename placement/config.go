package placement

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
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
	numberErrs, predicateErrs, prioritizerErrs, tolerationErrs, strategyErrs []error
	// OCM's messages for the first prioritizer and toleration problem.
	prioritizerMessage, tolerationMessage string
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
			c.numberErrs = append(c.numberErrs, &field.Error{
				Field: "numberOfClusters", Value: strconv.Itoa(int(*n)), Want: "a non-negative integer",
			})
		} else {
			c.number = int(*n)
		}
	}
	c.predicates = make([]grouping.Selector, 0, len(spec.Predicates))
	for i, pr := range spec.Predicates {
		path := fmt.Sprintf("predicates[%d].requiredClusterSelector", i)
		sel, err := grouping.NewSelector(path, pr.RequiredClusterSelector.LabelSelector, pr.RequiredClusterSelector.ClaimSelector)
		if err != nil {
			c.predicateErrs = append(c.predicateErrs, grouping.Problems(err)...)
			continue
		}
		c.predicates = append(c.predicates, sel)
	}
	s, err := grouping.Compile(spec.DecisionStrategy.GroupStrategy)
	c.strategy = s
	c.strategyErrs = grouping.Problems(err)
	return c
}

// misconfigured reports whether any field of the spec is unusable, in a
// way OCM's scheduler reports (or would, for a negative numberOfClusters).
func (c *config) misconfigured() bool {
	return len(c.numberErrs)+len(c.predicateErrs)+len(c.prioritizerErrs)+len(c.tolerationErrs)+len(c.strategyErrs) > 0
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

// err joins every problem, each naming the Placement, in spec order.
func (c *config) err(obj string) error {
	var errs []error
	for _, list := range [][]error{c.numberErrs, c.predicateErrs, c.prioritizerErrs, c.tolerationErrs, c.strategyErrs} {
		for _, e := range list {
			errs = append(errs, inObject(obj, e))
		}
	}
	return errors.Join(errs...)
}

// ocmMessage is the PlacementMisconfigured message OCM's scheduling
// controller would write: "<plugin>:<message>" for the problem it meets
// first, or "" when it meets none. Its filters run first, "Predicate" and
// then "TaintToleration", and each checks its part of the spec only when
// some cluster is left to filter (predicatesChecked: there is a
// candidate; tolerationsChecked: a candidate matched the predicates); then
// the prioritizer policy (no plugin name). It stops at the first problem,
// and a decision strategy problem (found after scheduling, with no plugin
// name) overrides them all.
func (c *config) ocmMessage(predicatesChecked, tolerationsChecked bool) string {
	switch {
	case len(c.strategyErrs) > 0:
		if !isSelectorError(c.strategyErrs[0]) && c.length.Type == intstr.String && !ocmAcceptsLength(c.length.StrVal) {
			// calculateLength's error.
			return ":" + c.length.StrVal + " invalid type: string is not a percentage"
		}
		return ":" + ocmText(c.strategyErrs[0])
	case len(c.predicateErrs) > 0 && predicatesChecked:
		return "Predicate:" + ocmText(c.predicateErrs[0])
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

// ocmText is OCM's text for one problem: apimachinery's error for a
// selector. For a clustersPerDecisionGroup that OCM accepts but the CRD
// pattern forbids (a negative integer, "0%", "150%", "7.5%"), OCM writes
// nothing, and the text is our own.
func ocmText(problem error) string {
	var se *grouping.SelectorError
	if errors.As(problem, &se) {
		return se.Cause.Error()
	}
	return problem.Error()
}

func isSelectorError(problem error) bool {
	var se *grouping.SelectorError
	return errors.As(problem, &se)
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

// inObject names obj as the object holding the field of problem.
func inObject(obj string, problem error) error {
	switch e := problem.(type) {
	case *grouping.SelectorError:
		return e.In(obj)
	case *field.Error:
		return e.In(obj)
	default:
		return fmt.Errorf("%s: %w", obj, problem)
	}
}

// objectName formats `kind "namespace/name"` (or `kind "name"` with no
// namespace) as errors name objects.
func objectName(kind, namespace, name string) string {
	if namespace == "" {
		return fmt.Sprintf("%s %q", kind, name)
	}
	return fmt.Sprintf("%s %q", kind, namespace+"/"+name)
}
