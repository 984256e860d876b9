package placement

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// GroupsFromDecisions rebuilds the decision groups from existing
// PlacementDecisions, as OCM's add-on manager reads them: each
// PlacementDecision belongs to the group named by its
// cluster.open-cluster-management.io/decision-group-index label (a
// non-negative int32) and decision-group-name label (missing means the
// empty name). The PlacementDecisions of one group are merged: their
// clusters are de-duplicated and sorted; empty decisions (placeholders) are
// skipped. Groups come in ascending index order; indices need not be
// contiguous. decisions may be in any order and is not modified.
//
// The error lists every problem: a nil entry; then, under the name of
// each PlacementDecision that has them, its problems, each a *field.Error
// about one of its labels: a missing or malformed index label (quoting the
// value), a name label that differs from another PlacementDecision's of
// the same index, a placement label that differs from the first
// PlacementDecision's.
//
//	placementdecision "ns/p-decision-1": metadata.labels[cluster.open-cluster-management.io/decision-group-index]: Invalid value: "one": want a decision group index, an integer 0-2147483647
func GroupsFromDecisions(decisions []*clusterv1beta1.PlacementDecision) ([]grouping.Group, error) {
	byIndex := make(map[int32]*decidedGroup)
	var errs []error
	var first *clusterv1beta1.PlacementDecision // the first of them, whose Placement they all must be of
	for i, d := range decisions {
		if d == nil {
			errs = append(errs, fmt.Errorf("decisions[%d]: nil PlacementDecision: want a PlacementDecision", i))
			continue
		}
		if first == nil {
			first = d
		}
		if problems := readDecision(d, first, byIndex); len(problems) > 0 {
			errs = append(errs, ifield.About(ifield.Object("placementdecision", d.Namespace, d.Name), problems...))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	indices := make([]int32, 0, len(byIndex))
	for i := range byIndex {
		indices = append(indices, i)
	}
	slices.Sort(indices)
	out := make([]grouping.Group, 0, len(indices))
	for _, i := range indices {
		g := byIndex[i]
		slices.Sort(g.clusters)
		clusters := slices.Clip(slices.Compact(g.clusters))
		if len(clusters) == 0 {
			clusters = nil
		}
		out = append(out, grouping.Group{GroupKey: grouping.GroupKey{Name: g.name, Index: i}, Clusters: clusters})
	}
	return out, nil
}

// decidedGroup is a decision group as its PlacementDecisions say: its
// name, the PlacementDecision that first named it, its clusters.
type decidedGroup struct {
	name     string
	namedBy  *clusterv1beta1.PlacementDecision
	clusters []string
}

// readDecision adds d's clusters to its group in byIndex, and returns the
// problems of d's labels: a Placement other than first's, an index label
// that is missing or malformed, a name that its group has not.
func readDecision(d, first *clusterv1beta1.PlacementDecision, byIndex map[int32]*decidedGroup) []error {
	var problems []error
	if owner := placementOf(d); owner != placementOf(first) {
		problems = append(problems, field.Invalid(labelPath(clusterv1beta1.PlacementLabel), d.Labels[clusterv1beta1.PlacementLabel],
			"want the PlacementDecisions of one Placement: "+ifield.Object("placementdecision", first.Namespace, first.Name)+
				" is of "+placementOf(first)))
	}
	index, err := parseGroupIndex(d.Labels)
	if err != nil {
		return append(problems, err)
	}
	name := d.Labels[clusterv1beta1.DecisionGroupNameLabel]
	g := byIndex[index]
	switch {
	case g == nil:
		g = &decidedGroup{name: name, namedBy: d}
		byIndex[index] = g
	case g.name != name:
		return append(problems, field.Invalid(labelPath(clusterv1beta1.DecisionGroupNameLabel), name,
			fmt.Sprintf("want one name per group index: group %d is named %q in %s",
				index, g.name, ifield.Object("placementdecision", g.namedBy.Namespace, g.namedBy.Name))))
	}
	for _, dec := range d.Status.Decisions {
		if dec.ClusterName != "" {
			g.clusters = append(g.clusters, dec.ClusterName)
		}
	}
	return problems
}

// placementOf names the Placement that d says it is of.
func placementOf(d *clusterv1beta1.PlacementDecision) string {
	return ifield.Object("placement", d.Namespace, d.Labels[clusterv1beta1.PlacementLabel])
}

func labelPath(key string) *field.Path { return field.NewPath("metadata", "labels").Key(key) }

// parseGroupIndex parses the decision-group-index label: decimal digits
// only (no sign), within int32.
func parseGroupIndex(labels map[string]string) (int32, *field.Error) {
	const want = "a decision group index, an integer 0-2147483647"
	raw, ok := labels[clusterv1beta1.DecisionGroupIndexLabel]
	if !ok {
		return 0, field.Required(labelPath(clusterv1beta1.DecisionGroupIndexLabel), want)
	}
	if raw != "" && strings.TrimLeft(raw, "0123456789") == "" {
		if n, err := strconv.ParseInt(raw, 10, 32); err == nil {
			return int32(n), nil
		}
	}
	return 0, field.Invalid(labelPath(clusterv1beta1.DecisionGroupIndexLabel), raw, "want "+want)
}
