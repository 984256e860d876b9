package grouping

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// Strategy is a compiled GroupStrategy: its group length and its
// decisionGroups entries with their selectors. Build it with [Compile]; it
// is read-only and safe for concurrent use. The zero Strategy (and a nil
// one) is the empty GroupStrategy: every cluster in one unnamed group.
type Strategy struct {
	length  ifield.Portion
	entries []entry
}

type entry struct {
	name     string
	selector Selector
}

// Compile validates a GroupStrategy and compiles its selectors once. path
// is where gs sits in its object, e.g. spec.decisionStrategy.groupStrategy
// of a Placement (nil: paths start at the GroupStrategy's fields). The
// error joins a *field.Error for every problem: a clustersPerDecisionGroup
// that its CRD pattern ^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$ does not
// admit (a positive integer, as an integer or a string, or a percentage
// 1%-100%; the integer 0, the Go zero value, means unset: all clusters),
// and each problem of a decisionGroups entry's selector (see
// [NewSelector]).
func Compile(gs clusterv1beta1.GroupStrategy, path *field.Path) (*Strategy, error) {
	s, errs := compile(gs, path)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

func compile(gs clusterv1beta1.GroupStrategy, path *field.Path) (*Strategy, []error) {
	var errs []error
	length, err := parseLength(gs.ClustersPerDecisionGroup, path)
	if err != nil {
		errs = append(errs, err)
	}
	s := &Strategy{length: length, entries: make([]entry, 0, len(gs.DecisionGroups))}
	for i, dg := range gs.DecisionGroups {
		at := func() *field.Path { return path.Child("decisionGroups").Index(i).Child("groupClusterSelector") }
		sel, serrs := newSelector(dg.ClusterSelector.LabelSelector, dg.ClusterSelector.ClaimSelector, at)
		if len(serrs) > 0 {
			errs = append(errs, serrs...)
			continue
		}
		s.entries = append(s.entries, entry{name: dg.GroupName, selector: sel})
	}
	return s, errs
}

// groupLength returns the group length L for total clusters: the parsed
// clustersPerDecisionGroup, or total when it is unset or above total.
// [Division.Length] tells it to callers.
func (s *Strategy) groupLength(total int) int {
	if s == nil {
		return total
	}
	l := s.length.Of(total)
	if l <= 0 || l > total {
		return total
	}
	return l
}

// Division is what [Strategy.Divide] found: the groups, and for each group
// the decisionGroups entry it came from.
type Division struct {
	// Groups are the decision groups in index order.
	Groups []Group
	// Origins[i] is the index in spec.decisionStrategy.groupStrategy.decisionGroups
	// of the entry whose selector made Groups[i], or -1 for a group of
	// clusters that matched no entry (and for the single empty group made
	// when there is no cluster).
	Origins []int
	// Length is the group length L the clusters were cut by.
	Length int
}

// Divide divides clusters into decision groups (see the package
// documentation for the rules). clusters is not modified and may be in any
// order. An empty cluster name or a name given twice is an error: a
// *field.Error whose path is the cluster's place in clusters,
// clusters[3].Name.
func (s *Strategy) Divide(clusters []Cluster) (Division, error) {
	sorted, errs := sortClusters(clusters)
	if len(errs) > 0 {
		return Division{}, errors.Join(errs...)
	}
	if s == nil {
		s = &Strategy{}
	}
	return s.divideSorted(sorted), nil
}

// divideSorted assigns each cluster (sorted by name, names unique) to the
// first entry that matches it, in one pass. Every bucket is then sorted
// already, and all group cluster lists share one backing array.
func (s *Strategy) divideSorted(sorted []Cluster) Division {
	n := len(sorted)
	unclassified := len(s.entries)
	bucket := make([]int32, n)
	counts := make([]int, len(s.entries)+1)
	for i := range sorted {
		b := unclassified
		for j := range s.entries {
			if s.entries[j].selector.Matches(sorted[i]) {
				b = j
				break
			}
		}
		bucket[i] = int32(b)
		counts[b]++
	}

	starts := make([]int, len(counts))
	next := make([]int, len(counts))
	pos := 0
	for b, c := range counts {
		starts[b], next[b] = pos, pos
		pos += c
	}
	names := make([]string, n)
	for i := range sorted {
		b := bucket[i]
		names[next[b]] = sorted[i].Name
		next[b]++
	}

	length := s.groupLength(n)
	d := Division{Length: length}
	if length > 0 {
		d.Groups = make([]Group, 0, n/length+len(counts))
		d.Origins = make([]int, 0, cap(d.Groups))
	}
	for b, c := range counts {
		name, origin := "", -1
		if b < unclassified {
			name, origin = s.entries[b].name, b
		}
		for lo := starts[b]; lo < starts[b]+c; lo += length {
			hi := min(lo+length, starts[b]+c)
			d.Groups = append(d.Groups, Group{
				GroupKey: GroupKey{Name: name, Index: int32(len(d.Groups))},
				// A full slice expression, so that appending to one group
				// cannot overwrite the next.
				Clusters: names[lo:hi:hi],
			})
			d.Origins = append(d.Origins, origin)
		}
	}
	if len(d.Groups) == 0 {
		d.Groups = []Group{{}}
		d.Origins = []int{-1}
	}
	return d
}

// Divide divides clusters into the decision groups of gs: [Compile]
// followed by [Strategy.Divide]. The error joins the problems of both the
// strategy and the cluster list, each a *field.Error: the strategy's paths
// start at gs's fields (clustersPerDecisionGroup,
// decisionGroups[1].groupClusterSelector...), the clusters' at clusters.
// No groups are returned with it.
func Divide(gs clusterv1beta1.GroupStrategy, clusters []Cluster) ([]Group, error) {
	s, errs := compile(gs, nil)
	sorted, cerrs := sortClusters(clusters)
	errs = append(errs, cerrs...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s.divideSorted(sorted).Groups, nil
}
