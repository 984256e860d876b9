package placement

import (
	"fmt"
	"sort"
	"strings"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
)

// shownNames is how many cluster names a warning quotes before "and N
// more".
const shownNames = 5

// numberWarnings explains what spec.numberOfClusters did to the selected
// clusters.
func numberWarnings(number, selected int) []Warning {
	switch {
	case number < selected:
		return []Warning{{Kind: NumberOfClusters, Message: fmt.Sprintf(
			"numberOfClusters is %d and %s selected: OCM keeps the %d with the best prioritizer scores, "+
				"which rolloutkit does not model; it keeps the first %d in name order",
			number, count(selected, "cluster is", "clusters are"), number, number)}}
	case number > selected:
		return []Warning{{Kind: NumberOfClusters, Message: fmt.Sprintf(
			"numberOfClusters is %d but only %s selected: %d cluster decisions unscheduled",
			number, count(selected, "cluster is", "clusters are"), number-selected)}}
	}
	return nil
}

// unsupportedWarnings names the parts of the Placement that are not
// evaluated and could make OCM select other clusters.
func unsupportedWarnings(spec *clusterv1beta1.PlacementSpec, clusters []*clusterv1.ManagedCluster, selected []grouping.Cluster) []Warning {
	var out []Warning
	for i, pr := range spec.Predicates {
		if n := len(pr.RequiredClusterSelector.CelSelector.CelExpressions); n > 0 {
			out = append(out, Warning{Kind: Unsupported, Message: fmt.Sprintf(
				"predicates[%d].requiredClusterSelector.celSelector (%s) is not evaluated: "+
					"the predicate was matched on its label and claim selectors only", i, count(n, "expression"))})
		}
	}
	if len(spec.ClusterSets) > 0 {
		out = append(out, Warning{Kind: Unsupported, Message: fmt.Sprintf(
			"clusterSets %q is not evaluated: every ManagedCluster given was taken as a member of a bound cluster set",
			spec.ClusterSets)})
	}
	var tainted []string
	for _, mc := range clusters {
		if len(mc.Spec.Taints) > 0 && isSelected(selected, mc.Name) {
			tainted = append(tainted, mc.Name)
		}
	}
	if len(tainted) > 0 {
		sort.Strings(tainted)
		out = append(out, Warning{Kind: Unsupported, Message: fmt.Sprintf(
			"taints are not evaluated, and OCM may not select %s with taints: %s",
			count(len(tainted), "selected cluster"), field.Names(tainted, len(tainted), shownNames))})
	}
	return out
}

func isSelected(selected []grouping.Cluster, name string) bool {
	i := sort.Search(len(selected), func(i int) bool { return selected[i].Name >= name })
	return i < len(selected) && selected[i].Name == name
}

// divisionWarnings names the traps of the decision groups: entries that
// matched nothing (and the index shift that follows), entries cut into
// several groups, and clusters that fell into unnamed groups.
func divisionWarnings(gs *clusterv1beta1.GroupStrategy, div grouping.Division) []Warning {
	entries := len(gs.DecisionGroups)
	first := make([]int, entries)
	last := make([]int, entries)
	clusters := make([]int, entries)
	for i := range first {
		first[i] = -1
	}
	unnamedFirst, unnamedLast, unnamedCount := -1, -1, 0
	var unnamed []string // the first few, in name order
	for i, origin := range div.Origins {
		g := div.Groups[i]
		if origin < 0 {
			if len(g.Clusters) > 0 {
				if unnamedFirst < 0 {
					unnamedFirst = int(g.Index)
				}
				unnamedLast = int(g.Index)
				unnamedCount += len(g.Clusters)
				unnamed = append(unnamed, g.Clusters[:min(len(g.Clusters), shownNames-len(unnamed))]...)
			}
			continue
		}
		if first[origin] < 0 {
			first[origin] = int(g.Index)
		}
		last[origin] = int(g.Index)
		clusters[origin] += len(g.Clusters)
	}

	var out []Warning
	for j, dg := range gs.DecisionGroups {
		switch {
		case first[j] < 0:
			msg := fmt.Sprintf("group %q matched no cluster", dg.GroupName)
			var moved []string
			for k := j + 1; k < entries; k++ {
				if first[k] >= 0 {
					moved = append(moved, fmt.Sprintf("%q is now %s", gs.DecisionGroups[k].GroupName, indexRange(first[k], last[k])))
				}
			}
			switch {
			case unnamedFirst >= 0 && unnamedFirst == unnamedLast:
				moved = append(moved, "the unnamed group is now "+indexRange(unnamedFirst, unnamedLast))
			case unnamedFirst >= 0:
				moved = append(moved, "the unnamed groups are now "+indexRange(unnamedFirst, unnamedLast))
			}
			if len(moved) > 0 {
				msg += ": " + strings.Join(moved, ", ")
			}
			out = append(out, Warning{Kind: EmptyNamedGroup, Message: msg})
		case last[j] > first[j]:
			out = append(out, Warning{Kind: SplitGroup, Message: fmt.Sprintf(
				"clustersPerDecisionGroup %q (%s per group) splits group %q (%d clusters) into %d groups, %s",
				gs.ClustersPerDecisionGroup.String(), count(div.Length, "cluster"), dg.GroupName, clusters[j],
				last[j]-first[j]+1, indexRange(first[j], last[j]))})
		}
	}
	if entries > 0 && unnamedCount > 0 {
		where := "group"
		if unnamedLast > unnamedFirst {
			where = "groups"
		}
		out = append(out, Warning{Kind: UnnamedGroup, Message: fmt.Sprintf(
			"%s matched no decision group and will be rolled out last, in the unnamed %s (%s): %s",
			count(unnamedCount, "cluster"), where, indexRange(unnamedFirst, unnamedLast), field.Names(unnamed, unnamedCount, shownNames))})
	}
	return out
}

// indexRange formats "index 3" or "indices 3-5".
func indexRange(first, last int) string {
	if first == last {
		return fmt.Sprintf("index %d", first)
	}
	return fmt.Sprintf("indices %d-%d", first, last)
}

// count formats n with its noun: "1 cluster", "2 clusters". A noun with an
// irregular plural gives it as the third argument.
func count(n int, noun string, plural ...string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case len(plural) > 0:
		return fmt.Sprintf("%d %s", n, plural[0])
	default:
		return fmt.Sprintf("%d %ss", n, noun)
	}
}
