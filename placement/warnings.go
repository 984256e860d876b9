package placement

import (
	"fmt"
	"strings"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
)

// shownNames is how many cluster names a warning quotes before "and N
// more".
const shownNames = 5

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
