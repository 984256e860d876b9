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
	named, unnamed, shown := spansOf(len(gs.DecisionGroups), div)
	var out []Warning
	for j, dg := range gs.DecisionGroups {
		switch s := named[j]; {
		case s.first < 0:
			out = append(out, emptyGroupWarning(gs, j, named, unnamed))
		case s.last > s.first:
			out = append(out, Warning{Kind: SplitGroup, Message: fmt.Sprintf(
				"clustersPerDecisionGroup %q (%s per group) splits group %q (%d clusters) into %d groups, %s",
				gs.ClustersPerDecisionGroup.String(), count(div.Length, "cluster"), dg.GroupName, s.clusters,
				s.last-s.first+1, indexRange(s.first, s.last))})
		}
	}
	if len(named) > 0 && unnamed.clusters > 0 {
		where := "group"
		if unnamed.last > unnamed.first {
			where = "groups"
		}
		out = append(out, Warning{Kind: UnnamedGroup, Message: fmt.Sprintf(
			"%s matched no decision group and will be rolled out last, in the unnamed %s (%s): %s",
			count(unnamed.clusters, "cluster"), where, indexRange(unnamed.first, unnamed.last), field.Names(shown, unnamed.clusters, shownNames))})
	}
	return out
}

// span is where the groups of one decisionGroups entry, or the unnamed
// groups, landed: the first and last group index (first < 0: nowhere) and
// how many clusters they hold.
type span struct{ first, last, clusters int }

func (s *span) add(index, clusters int) {
	if s.first < 0 {
		s.first = index
	}
	s.last = index
	s.clusters += clusters
}

// spansOf reads a division: the span of each of the entries
// decisionGroups entries, the span of the unnamed groups that hold
// clusters, and the first shownNames unnamed clusters in name order.
func spansOf(entries int, div grouping.Division) (named []span, unnamed span, shown []string) {
	named = make([]span, entries)
	for i := range named {
		named[i].first = -1
	}
	unnamed.first = -1
	for i, origin := range div.Origins {
		g := div.Groups[i]
		switch {
		case origin >= 0:
			named[origin].add(int(g.Index), len(g.Clusters))
		case len(g.Clusters) > 0:
			unnamed.add(int(g.Index), len(g.Clusters))
			shown = append(shown, g.Clusters[:min(len(g.Clusters), shownNames-len(shown))]...)
		}
	}
	return named, unnamed, shown
}

// emptyGroupWarning says that decisionGroups[j] matched no cluster, and
// where the later groups moved to.
func emptyGroupWarning(gs *clusterv1beta1.GroupStrategy, j int, named []span, unnamed span) Warning {
	msg := fmt.Sprintf("group %q matched no cluster", gs.DecisionGroups[j].GroupName)
	var moved []string
	for k := j + 1; k < len(named); k++ {
		if named[k].first >= 0 {
			moved = append(moved, fmt.Sprintf("%q is now %s", gs.DecisionGroups[k].GroupName, indexRange(named[k].first, named[k].last)))
		}
	}
	switch {
	case unnamed.first >= 0 && unnamed.first == unnamed.last:
		moved = append(moved, "the unnamed group is now "+indexRange(unnamed.first, unnamed.last))
	case unnamed.first >= 0:
		moved = append(moved, "the unnamed groups are now "+indexRange(unnamed.first, unnamed.last))
	}
	if len(moved) > 0 {
		msg += ": " + strings.Join(moved, ", ")
	}
	return Warning{Kind: EmptyNamedGroup, Message: msg}
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
