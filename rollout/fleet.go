package rollout

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// fleet is the Plan inputs indexed once: every cluster of every group as an
// entry, ordered by group index then cluster name, so that output order is
// iteration order.
type fleet struct {
	groups  []groupSpan
	entries []entry
	removed []ClusterStatus
}

// groupSpan is one group: its key, its entries[start:end] and their names
// (sorted by grouping.InOrder, past any empty names).
type groupSpan struct {
	key        grouping.GroupKey
	start, end int
	names      []string
	mandatory  bool
}

func (g groupSpan) size() int { return g.end - g.start }

// name is the cluster name of entry i.
func (f *fleet) name(i int) string {
	g := &f.groups[f.entries[i].group]
	return g.names[i-g.start]
}

// entry is one cluster of one group and, once evaluated, its state. There
// is one per cluster, so it is kept small and free of pointers: 12 bytes
// that the garbage collector never scans. The name lives in the group's
// names, and the recheck time is recomputed for the few entries that need
// it.
type entry struct {
	group  int32 // position in fleet.groups
	status int32 // index into the statuses, or -1 when the cluster has none
	state  state
	listed bool
}

// index builds the fleet. It reports every problem at once, in input order
// (inputerrors.go): two groups with one index, an empty cluster name, a
// cluster in two groups (or twice in one), two statuses for one cluster, a
// status value that is none of the six.
func index(groups []grouping.Group, statuses []ClusterStatus) (fleet, []error) {
	var errs []error
	in := &inputs{groups: groups}
	ordered := grouping.InOrder(groups)
	total := 0
	for i := range ordered {
		total += len(ordered[i].Clusters)
	}

	f := fleet{groups: make([]groupSpan, 0, len(ordered)), entries: make([]entry, 0, total)}
	for gi := range ordered {
		g := &ordered[gi]
		if gi > 0 && f.groups[gi-1].key.Index == g.Index {
			errs = append(errs, in.duplicateIndex(gi-1, gi))
		}
		// Sorted, so the empty names come first.
		names := g.Clusters
		for nth := 0; len(names) > 0 && names[0] == ""; nth++ {
			errs = append(errs, field.Required(in.cluster(gi, "", nth), "a cluster name"))
			names = names[1:]
		}
		span := groupSpan{key: g.GroupKey, start: len(f.entries), names: names}
		for range names {
			f.entries = append(f.entries, entry{group: int32(gi), status: -1})
		}
		span.end = len(f.entries)
		f.groups = append(f.groups, span)
	}
	errs = append(errs, f.join(statuses, in)...)
	return f, errs
}

// join finds, for every status, the entry of its cluster, and reports
// clusters listed twice and clusters with two statuses. The names of the
// entries and then of the statuses go into one nameIndex (index.go), so a
// status whose name first occurs at an entry belongs to it, one whose name
// first occurs at itself is of a cluster in no group, and every other
// repeat is a duplicate. Problems come in input order: the duplicate
// clusters, the statuses' bad fields, then their duplicates.
func (f *fleet) join(statuses []ClusterStatus, in *inputs) []error {
	n := len(f.entries)
	names := newNameIndex(n+len(statuses), func(k int) string {
		if k < n {
			return f.name(k)
		}
		return statuses[k-n].Cluster
	})
	var errs []error
	for i := range n {
		if first, named := names.first(i); named && first != i {
			errs = append(errs, f.duplicateCluster(in, first, i))
		}
	}
	errs = append(errs, statusErrors(statuses)...)
	for j := range statuses {
		first, named := names.first(n + j)
		switch {
		case !named: // reported by statusErrors
		case first == n+j:
			// A cluster in no group, kept exactly as given, Group included:
			// it tells the caller where the cluster was (docs/semantics.md
			// §3.2), as OCM returns it.
			f.removed = append(f.removed, statuses[j])
		case first >= n:
			errs = append(errs, duplicateStatus(statuses, first-n, j))
		case f.entries[first].status >= 0:
			errs = append(errs, duplicateStatus(statuses, int(f.entries[first].status), j))
		default:
			f.entries[first].status = int32(j)
		}
	}
	return errs
}
