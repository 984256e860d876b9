package placement

import (
	"encoding/binary"
	"slices"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// bucket holds the candidates that are in the same domain of every spread
// constraint: for the constraints, they are interchangeable, so only the
// best ranked of those left matters.
type bucket struct {
	domains []int // by constraint; -1: the cluster has no value for its key
	members []int // positions in the ranking, best first
	next    int
}

// spreadChoose picks up to n clusters from ranked (indices into clusters,
// best first) one at a time. At each step it takes, among the clusters that
// keep every DoNotSchedule constraint within its maxSkew, the one that keeps
// the most important ScheduleAnyway constraints within theirs (earlier
// constraints first), and among those the best ranked. It stops at n, or
// when no cluster keeps the DoNotSchedule constraints. A cluster without a
// value for the key of a DoNotSchedule constraint is never picked; one
// without a value for a ScheduleAnyway key is picked only when no cluster
// keeps that constraint. The result is in ascending index order.
//
// Each step looks at one cluster per combination of domains, so the cost
// is n times the number of such combinations among the candidates.
func spreadChoose(clusters []grouping.Cluster, ranked []int, cs []spreadConstraint, n int) []int {
	buckets, domains := spreadBuckets(clusters, ranked, cs)
	skews := make([]*skew, len(cs))
	for i := range cs {
		skews[i] = newSkew(domains[i])
	}
	out := make([]int, 0, min(n, len(ranked)))
	for len(out) < n && len(buckets) > 0 {
		best, bestMask := -1, -1
		for b, bk := range buckets {
			mask, ok := 0, true
			for i := range cs {
				fits := skews[i].fits(bk.domains[i], cs[i].maxSkew)
				if cs[i].hard {
					if ok = fits; !ok {
						break
					}
				} else if mask <<= 1; fits {
					mask |= 1
				}
			}
			if ok && (mask > bestMask || mask == bestMask && bk.members[bk.next] < buckets[best].members[buckets[best].next]) {
				best, bestMask = b, mask
			}
		}
		if best < 0 {
			break
		}
		bk := buckets[best]
		out = append(out, ranked[bk.members[bk.next]])
		for i, d := range bk.domains {
			if d >= 0 {
				skews[i].add(d)
			}
		}
		if bk.next++; bk.next == len(bk.members) {
			buckets[best] = buckets[len(buckets)-1]
			buckets = buckets[:len(buckets)-1]
		}
	}
	slices.Sort(out)
	return out
}

// spreadBuckets sorts the ranked clusters into buckets by their domains,
// leaving out those without a value for a DoNotSchedule key, and counts the
// domains of each constraint among the clusters kept.
func spreadBuckets(clusters []grouping.Cluster, ranked []int, cs []spreadConstraint) ([]*bucket, []int) {
	ids := make([]map[string]int, len(cs))
	for i := range ids {
		ids[i] = map[string]int{}
	}
	byKey := map[string]*bucket{}
	var buckets []*bucket
	doms := make([]int, len(cs))
	key := make([]byte, 4*len(cs))
	for r, ci := range ranked {
		if !hasHardKeys(&clusters[ci], cs) {
			continue
		}
		for i := range cs {
			doms[i] = -1
			if v, ok := cs[i].topology(&clusters[ci]); ok {
				id, seen := ids[i][v]
				if !seen {
					id = len(ids[i])
					ids[i][v] = id
				}
				doms[i] = id
			}
			binary.LittleEndian.PutUint32(key[4*i:], uint32(doms[i]))
		}
		bk, ok := byKey[string(key)]
		if !ok {
			bk = &bucket{domains: slices.Clone(doms)}
			byKey[string(key)] = bk
			buckets = append(buckets, bk)
		}
		bk.members = append(bk.members, r)
	}
	counts := make([]int, len(cs))
	for i := range ids {
		counts[i] = len(ids[i])
	}
	return buckets, counts
}

// hasHardKeys reports whether cl has a value for the key of every
// DoNotSchedule constraint.
func hasHardKeys(cl *grouping.Cluster, cs []spreadConstraint) bool {
	for i := range cs {
		if _, ok := cs[i].topology(cl); cs[i].hard && !ok {
			return false
		}
	}
	return true
}
