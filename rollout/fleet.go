package rollout

import (
	"cmp"
	"errors"
	"hash/maphash"
	"slices"
	"strconv"

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
// (the caller's slice when it is sorted and clean, else a sorted copy).
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

// index builds the fleet. It reports every problem at once, in input order:
// two groups with one index, an empty cluster name, a cluster in two groups
// (or twice in one), two statuses for one cluster, a status value that is
// none of the six.
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
	for gi, o := range order {
		g := &groups[o]
		if gi > 0 && f.groups[gi-1].key.Index == g.Index {
			errs = append(errs, &FieldError{Field: "groups[].Index", Value: strconv.Itoa(int(g.Index)),
				Want: "a unique group index (two groups, " + strconv.Quote(f.groups[gi-1].key.Name) + " and " + strconv.Quote(g.Name) + ", share it)"})
		}
		names := g.Clusters
		if !slices.IsSorted(names) || (len(names) > 0 && names[0] == "") {
			names = slices.Clone(names)
			slices.Sort(names)
			empty := 0
			for empty < len(names) && names[empty] == "" {
				errs = append(errs, &FieldError{Field: "group " + strconv.Quote(g.Name) + " cluster", Value: "", Want: "a cluster name"})
				empty++
			}
			names = names[empty:]
		}
		span := groupSpan{key: g.GroupKey, start: len(f.entries), names: names}
		for range names {
			f.entries = append(f.entries, entry{group: int32(gi), status: -1})
		}
		span.end = len(f.entries)
		f.groups = append(f.groups, span)
	}
	errs = append(errs, f.join(statuses)...)
	return f, errors.Join(errs...)
}

// Partitions of the hash join hold about this many clusters, so that each
// partition's table stays in the processor's cache however large the fleet.
const partitionSize = 1024

// slot is one cluster (idx >= 0), or one status of a cluster in no group
// (idx = -2-j), in a partition's table; idx -1 is an empty slot.
type slot struct {
	h   uint64
	idx int32
}

// join finds, for every status, the entry of its cluster, and reports
// clusters listed twice and clusters with two statuses. It is a
// partitioned hash join: clusters and statuses are hashed, scattered by
// the top bits of their hash into partitions of about partitionSize, and
// matched partition by partition in a small open-addressing table, with
// every hash match confirmed by comparing the names. Each step reads and
// writes memory in order, so the time per cluster stays flat from a
// thousand clusters to a million, where one big map would miss the cache
// on every access.
func (f *fleet) join(statuses []ClusterStatus) []error {
	seed := maphash.MakeSeed()
	bits := 0
	for (len(f.entries)+len(statuses))>>bits > partitionSize {
		bits++
	}
	part := func(h uint64) int {
		if bits == 0 {
			return 0
		}
		return int(h >> (64 - bits))
	}
	nparts := 1 << bits
	es := scatter(len(f.entries), nparts, part, func(i int) (uint64, bool) { return maphash.String(seed, f.name(i)), true })
	ss := scatter(len(statuses), nparts, part, func(j int) (uint64, bool) {
		return maphash.String(seed, statuses[j].Cluster), statuses[j].Cluster != ""
	})

	var dupClusters [][2]int32 // earlier entry, later entry
	var dupStatuses [][2]int32 // earlier status, later status
	removed := make([]bool, len(statuses))
	var table []slot
	for p := range nparts {
		ents, sts := es.part(p), ss.part(p)
		size := 4
		for size < 2*(len(ents)+len(sts)) {
			size <<= 1
		}
		if cap(table) < size {
			table = make([]slot, size)
		}
		table = table[:size]
		for i := range table {
			table[i].idx = -1
		}
		mask := uint64(size - 1)
		for _, s := range ents {
			i := s.h & mask
			for ; table[i].idx >= 0; i = (i + 1) & mask {
				// Names are read only on a hash match: almost never here.
				if table[i].h == s.h && f.name(int(table[i].idx)) == f.name(int(s.idx)) {
					dupClusters = append(dupClusters, [2]int32{table[i].idx, s.idx})
					break
				}
			}
			if table[i].idx < 0 {
				table[i] = s
			}
		}
		for _, s := range sts {
			name := statuses[s.idx].Cluster // to confirm the hash match
			i := s.h & mask
			for ; table[i].idx != -1; i = (i + 1) & mask {
				if table[i].h != s.h {
					continue
				}
				if t := table[i].idx; t >= 0 && f.name(int(t)) == name {
					break
				} else if t < -1 && statuses[-2-t].Cluster == name {
					break
				}
			}
			switch t := table[i].idx; {
			case t == -1: // a cluster in no group
				removed[s.idx] = true
				table[i] = slot{h: s.h, idx: -2 - s.idx}
			case t < -1:
				dupStatuses = append(dupStatuses, [2]int32{-2 - t, s.idx})
			case f.entries[t].status >= 0:
				dupStatuses = append(dupStatuses, [2]int32{f.entries[t].status, s.idx})
			default:
				f.entries[t].status = s.idx
			}
		}
	}

	var errs []error
	slices.SortFunc(dupClusters, func(a, b [2]int32) int { return cmp.Compare(a[1], b[1]) })
	for _, d := range dupClusters {
		errs = append(errs, f.duplicateCluster(int(d[0]), int(d[1])))
	}
	// Statuses in input order: problems, then the removed ones.
	slices.SortFunc(dupStatuses, func(a, b [2]int32) int { return cmp.Compare(a[1], b[1]) })
	for j := range statuses {
		if statuses[j].Cluster == "" {
			errs = append(errs, &FieldError{Field: "statuses[" + strconv.Itoa(j) + "].Cluster", Value: "", Want: "a cluster name"})
		}
		if st := statuses[j].Status; st < ToApply || st > Skip {
			errs = append(errs, unknownStatus(j, statuses[j].Cluster, st))
		}
	}
	for _, d := range dupStatuses {
		errs = append(errs, &FieldError{Field: "statuses[" + strconv.Itoa(int(d[1])) + "].Cluster", Value: statuses[d[1]].Cluster,
			Want: "one status per cluster (statuses[" + strconv.Itoa(int(d[0])) + "] has it too)"})
	}
	for j, gone := range removed {
		if gone {
			// Exactly as given, Group included: it tells the caller where
			// the cluster was (docs/semantics.md §3.2), as OCM returns it.
			f.removed = append(f.removed, statuses[j])
		}
	}
	return errs
}

// unknownStatus is the error for status j, of cluster, whose value is none
// of OCM's six: it is not guessed to be Progressing (docs/semantics.md §3.1).
func unknownStatus(j int, cluster string, st Status) error {
	return &FieldError{Field: "statuses[" + strconv.Itoa(j) + "].Status", Value: st.String(),
		Want: "one of ToApply, Progressing, Succeeded, Failed, TimeOut or Skip for cluster " + strconv.Quote(cluster)}
}

func (f *fleet) duplicateCluster(first, second int) error {
	name := f.name(second)
	a, b := f.groups[f.entries[first].group].key, f.groups[f.entries[second].group].key
	want := "each cluster once in its group, not twice in " + b.String()
	if a != b {
		want = "each cluster in one group, not in both " + a.String() + " and " + b.String()
	}
	return &FieldError{Field: "groups", Value: name, Want: want}
}

// partitioned is a counting sort of n keys into partitions: slots of
// partition p are slots[offs[p]:offs[p+1]], in key order.
type partitioned struct {
	slots []slot
	offs  []int32
}

func (pt partitioned) part(p int) []slot { return pt.slots[pt.offs[p]:pt.offs[p+1]] }

// scatter hashes keys 0..n-1 (skipping those hash reports as absent) and
// sorts them into nparts partitions by part(hash).
func scatter(n, nparts int, part func(uint64) int, hash func(int) (uint64, bool)) partitioned {
	hs := make([]uint64, n)
	offs := make([]int32, nparts+1)
	keep := 0
	for i := range n {
		h, ok := hash(i)
		if !ok {
			hs[i] = 0
			continue
		}
		hs[i] = h | 1 // never 0, so 0 marks a skipped key
		offs[part(hs[i])+1]++
		keep++
	}
	for p := range nparts {
		offs[p+1] += offs[p]
	}
	slots := make([]slot, keep)
	next := slices.Clone(offs[:nparts])
	for i, h := range hs {
		if h == 0 {
			continue
		}
		p := part(h)
		slots[next[p]] = slot{h: h, idx: int32(i)}
		next[p]++
	}
	return partitioned{slots: slots, offs: offs}
}
