package placement

import (
	"time"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// drop is a cluster matched by the predicates that a taint dropped.
type drop struct {
	cluster int // index into fleet.clusters
	taint   int // index into its spec.taints
	expired bool
}

// timed is a cluster that tolerations with tolerationSeconds keep, and
// when they stop (see tolerance).
type timed struct {
	cluster        int
	requeue, until time.Time
}

// filterTaints keeps the clusters of matched (ascending indices, filtered
// in place) whose taints the tolerations tolerate at now. It also returns
// the clusters dropped, and the clusters kept by tolerations that expire,
// both in the order of matched.
func filterTaints(f *fleet, ts []clusterv1beta1.Toleration, matched []int, now time.Time) (feasible []int, drops []drop, times []timed) {
	feasible = matched[:0]
	for _, i := range matched {
		if !f.meta[i].tainted {
			feasible = append(feasible, i)
			continue
		}
		t := tolerate(f.managed(i), ts, func() bool { return f.inDecisions(i) }, now)
		if !t.tolerated {
			drops = append(drops, drop{cluster: i, taint: t.blocking, expired: t.expired})
			continue
		}
		feasible = append(feasible, i)
		if !t.requeue.IsZero() || !t.until.IsZero() {
			times = append(times, timed{cluster: i, requeue: t.requeue, until: t.until})
		}
	}
	return feasible, drops, times
}

// expiringOf returns the chosen clusters (ascending) that times says stop
// being tolerated some day.
func expiringOf(chosen []int, times []timed) []timed {
	var out []timed
	k := 0
	for _, t := range times {
		for k < len(chosen) && chosen[k] < t.cluster {
			k++
		}
		if k < len(chosen) && chosen[k] == t.cluster && !t.until.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

// recheckOf is when OCM's scheduler would look at the Placement again for
// its tolerations: the earliest expiry of a toleration that keeps a
// cluster of the Placement's own decisions, each taint counting the first
// toleration that tolerates it. The chosen clusters count too, so that a
// first schedule, before any decision is written, already says when.
func recheckOf(f *fleet, ts []clusterv1beta1.Toleration, chosen []int, times []timed, now time.Time) time.Time {
	expiring := false
	for i := range ts {
		expiring = expiring || ts[i].TolerationSeconds != nil
	}
	if !expiring {
		return time.Time{}
	}
	var at time.Time
	k := 0
	for _, t := range times {
		for k < len(chosen) && chosen[k] < t.cluster {
			k++
		}
		if k < len(chosen) && chosen[k] == t.cluster {
			at = earliest(at, t.requeue)
		}
	}
	for name := range f.own {
		if i := f.find(name); i >= 0 {
			if t := tolerate(f.managed(i), ts, always, now); t.tolerated {
				at = earliest(at, t.requeue)
			}
		}
	}
	return at
}

func always() bool { return true }
