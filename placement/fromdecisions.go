package placement

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
)

// GroupsFromDecisions rebuilds the decision groups from existing
// PlacementDecisions, as OCM's add-on manager reads them: each
// PlacementDecision belongs to the group named by its
// cluster.open-cluster-management.io/decision-group-index label (a
// non-negative int32) and decision-group-name label (missing means the
// empty name). The PlacementDecisions of one group are merged: their
// clusters are de-duplicated and sorted; empty decisions (placeholders) are
// skipped. Groups come in ascending index order; indices need not be
// contiguous. ds may be in any order and is not modified.
//
// The error lists every problem: a nil entry; a missing or malformed index
// label, quoting the value and naming the PlacementDecision; one index with
// two names; PlacementDecisions of more than one Placement.
func GroupsFromDecisions(ds []*clusterv1beta1.PlacementDecision) ([]grouping.Group, error) {
	type group struct {
		name, namedBy string
		clusters      []string
	}
	byIndex := make(map[int32]*group)
	var errs []error
	var owner, ownerSeenIn string
	for i, d := range ds {
		if d == nil {
			errs = append(errs, fmt.Errorf("placementDecisions[%d]: nil PlacementDecision: want a PlacementDecision", i))
			continue
		}
		obj := objectName("placementdecision", d.Namespace, d.Name)
		if o := objectName("placement", d.Namespace, d.Labels[clusterv1beta1.PlacementLabel]); owner == "" {
			owner, ownerSeenIn = o, obj
		} else if o != owner {
			errs = append(errs, fmt.Errorf("%s belongs to %s but %s belongs to %s: want the PlacementDecisions of one Placement",
				obj, o, ownerSeenIn, owner))
		}
		raw, ok := d.Labels[clusterv1beta1.DecisionGroupIndexLabel]
		index, err := parseGroupIndex(raw, ok)
		if err != nil {
			errs = append(errs, err.In(obj))
			continue
		}
		name := d.Labels[clusterv1beta1.DecisionGroupNameLabel]
		g := byIndex[index]
		switch {
		case g == nil:
			g = &group{name: name, namedBy: obj}
			byIndex[index] = g
		case g.name != name:
			errs = append(errs, fmt.Errorf("%s: decision group %d is named %q, but %q in %s: want one name per group index",
				obj, index, name, g.name, g.namedBy))
		}
		for _, dec := range d.Status.Decisions {
			if dec.ClusterName != "" {
				g.clusters = append(g.clusters, dec.ClusterName)
			}
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

// parseGroupIndex parses a decision-group-index label value: decimal digits
// only (no sign), within int32.
func parseGroupIndex(raw string, present bool) (int32, *field.Error) {
	fe := &field.Error{
		Field: fmt.Sprintf("metadata.labels[%q]", clusterv1beta1.DecisionGroupIndexLabel),
		Value: raw,
		Want:  "a decision group index, an integer 0-2147483647",
	}
	if !present {
		fe.Want += " (the label is missing)"
		return 0, fe
	}
	if raw == "" || strings.TrimLeft(raw, "0123456789") != "" {
		return 0, fe
	}
	n, err := strconv.ParseInt(raw, 10, 32)
	if err != nil {
		return 0, fe
	}
	return int32(n), nil
}
