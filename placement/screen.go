package placement

import "time"

// screened is what the scheduler learns of one cluster by visiting it:
// whether it is a candidate (in an eligible cluster set, not being
// deleted), whether the predicates select it, and whether a taint then
// drops it (which taint, and whether a toleration of it expired).
type screened struct {
	candidate, matched, dropped, expired bool
	taint                                int32
}

// screen visits every cluster of f once and returns, by name order, what
// it learned of each: the cluster sets, the predicates when predicates is
// set, the taints when taints is set (each only for the clusters that got
// past the step before, as OCM's pipeline takes them).
//
// It visits the clusters in input order, not in name order: a list or an
// informer's cache usually holds the ManagedClusters, their labels and
// their taints in memory in the order it returns them, and in name order
// nearly every visit of a large hub would miss the processor's cache. The
// answers are kept in name order for the passes that follow, which read
// only them. At 100,000 clusters this takes a fifth off ScheduleHub
// (BenchmarkScheduleHubPaired).
func screen(f *fleet, sets *boundSets, c *config, predicates, taints bool, now time.Time) []screened {
	seen := make([]screened, len(f.clusters))
	for _, i32 := range f.inInput {
		i := int(i32)
		s := &seen[i]
		if f.meta[i].deleting || !sets.member(f.clusters[i].Labels) {
			continue
		}
		s.candidate = true
		if !predicates || !c.selects(f.clusters[i]) {
			continue
		}
		s.matched = true
		if !taints || !f.meta[i].tainted {
			continue
		}
		if t := tolerate(f.managed(i), c.tolerations, func() bool { return f.inDecisions(i) }, now); !t.tolerated {
			s.dropped, s.taint, s.expired = true, int32(t.blocking), t.expired
		}
	}
	return seen
}
