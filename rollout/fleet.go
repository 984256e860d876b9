package rollout

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"time"

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

// groupSpan is one group: its key and its entries[start:end].
type groupSpan struct {
	key        grouping.GroupKey
	start, end int
	mandatory  bool
}

func (g groupSpan) size() int { return g.end - g.start }

// entry is one cluster of one group and, once evaluated, its state.
// There is one per cluster, so the fields are ordered to pack into 56
// bytes rather than 64: at 100,000 clusters that is 0.8 MB less per Plan.
type entry struct {
	name    string
	recheck time.Time
	group   int32 // position in fleet.groups
	status  int32 // index into the statuses, or -1 when the cluster has none
	state   state
	listed  bool
}

// index builds the fleet. It reports every problem at once: a cluster in two
// groups, two groups with one index, an empty cluster name, two statuses for
// one cluster.
func index(groups []grouping.Group, statuses []ClusterStatus) (fleet, error) {
	var errs []error
	order := make([]int, len(groups))
	total := 0
	for i := range groups {
		order[i] = i
		total += len(groups[i].Clusters)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(groups[a].Index, groups[b].Index) })

	f := fleet{groups: make([]groupSpan, 0, len(groups)), entries: make([]entry, 0, total)}
	pos := make(map[string]int32, total)
	for gi, o := range order {
		g := &groups[o]
		if gi > 0 && f.groups[gi-1].key.Index == g.Index {
			errs = append(errs, &FieldError{Field: "groups[].Index", Value: strconv.Itoa(int(g.Index)),
				Want: "a unique group index (two groups, " + strconv.Quote(f.groups[gi-1].key.Name) + " and " + strconv.Quote(g.Name) + ", share it)"})
		}
		span := groupSpan{key: g.GroupKey, start: len(f.entries)}
		names := g.Clusters
		if !slices.IsSorted(names) {
			names = slices.Clone(names)
			slices.Sort(names)
		}
		for _, name := range names {
			if name == "" {
				errs = append(errs, &FieldError{Field: "group " + strconv.Quote(g.Name) + " cluster", Value: "", Want: "a cluster name"})
				continue
			}
			if prev, dup := pos[name]; dup {
				want := "each cluster once in its group, not twice in " + g.GroupKey.String()
				if pg := int(f.entries[prev].group); pg != gi {
					want = "each cluster in one group, not in both " + f.groups[pg].key.String() + " and " + g.GroupKey.String()
				}
				errs = append(errs, &FieldError{Field: "groups", Value: name, Want: want})
				continue
			}
			pos[name] = int32(len(f.entries))
			f.entries = append(f.entries, entry{name: name, group: int32(gi), status: -1})
		}
		span.end = len(f.entries)
		f.groups = append(f.groups, span)
	}

	var removedAt map[string]int
	for i := range statuses {
		name := statuses[i].Cluster
		if name == "" {
			errs = append(errs, &FieldError{Field: "statuses[" + strconv.Itoa(i) + "].Cluster", Value: "", Want: "a cluster name"})
			continue
		}
		p, ok := pos[name]
		if !ok {
			if removedAt == nil {
				removedAt = make(map[string]int)
			}
			if j, dup := removedAt[name]; dup {
				errs = append(errs, duplicateStatus(name, j, i))
				continue
			}
			removedAt[name] = i
			r := statuses[i]
			r.Group, r.RecheckTime = grouping.GroupKey{}, time.Time{}
			f.removed = append(f.removed, r)
			continue
		}
		e := &f.entries[p]
		if e.status >= 0 {
			errs = append(errs, duplicateStatus(name, int(e.status), i))
			continue
		}
		e.status = int32(i)
	}
	return f, errors.Join(errs...)
}

func duplicateStatus(name string, first, second int) error {
	return &FieldError{Field: "statuses[" + strconv.Itoa(second) + "].Cluster", Value: name,
		Want: "one status per cluster (statuses[" + strconv.Itoa(first) + "] has it too)"}
}
