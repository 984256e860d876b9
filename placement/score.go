package placement

import (
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// maxScore is the best score a built-in prioritizer gives, and -maxScore
// the worst.
const maxScore = 100

// scores sums weight × score of every prioritizer for the feasible
// clusters (indices into f.clusters), as OCM's scheduler does: each
// built-in gives a score in [-100, 100], an AddOnPlacementScore its value
// as written. total[k] is the sum for feasible[k]. expires is the earliest
// validUntil of an AddOnPlacementScore that was read and is still valid
// (zero for none): after it, that score counts as 0.
func scores(f *fleet, ps []prioritizer, feasible []int, now time.Time) (total []int64, expires time.Time) {
	total = make([]int64, len(feasible))
	for _, p := range ps {
		switch p.kind {
		case balance:
			balanceScores(f, feasible, p.weight, total)
		case steady:
			for k, i := range feasible {
				if _, ok := f.own[f.clusters[i].Name]; ok {
					total[k] += maxScore * p.weight
				}
			}
		case allocatableCPU:
			allocatableScores(f, clusterv1.ResourceCPU, feasible, p.weight, total)
		case allocatableMemory:
			allocatableScores(f, clusterv1.ResourceMemory, feasible, p.weight, total)
		case addOnScore:
			expires = earliest(expires, addOnScores(f, p, feasible, now, total))
		}
	}
	return total, expires
}

// balanceScores counts the decisions of every other Placement per cluster:
// a cluster with none scores 100, the busiest -100, and the others in
// between, in OCM's floating-point arithmetic.
func balanceScores(f *fleet, feasible []int, weight int64, total []int64) {
	others := 0 // the size of counts, about: a map that grows rehashes
	for _, pd := range f.decisions {
		if !f.isOwn(pd) {
			others += len(pd.Status.Decisions)
		}
	}
	counts := make(map[string]int64, others)
	var most int64
	for _, pd := range f.decisions {
		if f.isOwn(pd) {
			continue
		}
		for _, d := range pd.Status.Decisions {
			counts[d.ClusterName]++
			most = max(most, counts[d.ClusterName])
		}
	}
	for k, i := range feasible {
		s := int64(maxScore)
		if c, ok := counts[f.clusters[i].Name]; ok {
			usage := float64(c) / float64(most)
			s = 2 * int64(float64(maxScore)*(0.5-usage))
		}
		total[k] += s * weight
	}
}

// allocatableScores ranks the feasible clusters that report both the
// allocatable and the capacity of resource from -100 (the least
// allocatable) to 100 (the most); when they all have the same, each scores
// 100. A cluster that does not report both scores 0.
func allocatableScores(f *fleet, resource clusterv1.ResourceName, feasible []int, weight int64, total []int64) {
	alloc := func(i int) (float64, bool) {
		st := &f.managed(i).Status
		a, ok := st.Allocatable[resource]
		if _, hasCapacity := st.Capacity[resource]; !ok || !hasCapacity {
			return 0, false
		}
		return a.AsApproximateFloat64(), true
	}
	lo, hi, seen := 0.0, 0.0, false
	for _, i := range feasible {
		if a, ok := alloc(i); ok {
			if !seen || a < lo {
				lo = a
			}
			if !seen || a > hi {
				hi = a
			}
			seen = true
		}
	}
	for k, i := range feasible {
		a, ok := alloc(i)
		switch {
		case !ok:
		case hi != lo:
			total[k] += int64(((a-lo)/(hi-lo)-0.5)*2.0*100.0) * weight
		default:
			total[k] += maxScore * weight
		}
	}
}

// addOnScores reads, for each feasible cluster, the AddOnPlacementScore
// named p.addOn.ResourceName in the cluster's namespace, and in it the
// last score named p.addOn.ScoreName. A cluster without one, or whose
// AddOnPlacementScore is past its validUntil, scores 0.
func addOnScores(f *fleet, p prioritizer, feasible []int, now time.Time, total []int64) (expires time.Time) {
	byCluster := map[string]*clusterv1alpha1.AddOnPlacementScore{}
	for _, s := range f.scores {
		if s.Name == p.addOn.ResourceName {
			byCluster[s.Namespace] = s
		}
	}
	if len(byCluster) == 0 {
		return time.Time{}
	}
	for k, i := range feasible {
		s, ok := byCluster[f.clusters[i].Name]
		if !ok {
			continue
		}
		if vu := s.Status.ValidUntil; vu != nil {
			if now.After(vu.Time) {
				continue
			}
			if vu.Time.After(now) {
				expires = earliest(expires, vu.Time)
			}
		}
		var v int64
		for _, item := range s.Status.Scores {
			if item.Name == p.addOn.ScoreName {
				v = int64(item.Value)
			}
		}
		total[k] += v * p.weight
	}
	return expires
}
