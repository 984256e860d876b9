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
// in place) whose taints the tolerations tolerate at now, and returns the
// clusters dropped, in the order of matched.
func filterTaints(f *fleet, ts []clusterv1beta1.Toleration, matched []int, now time.Time) (feasible []int, drops []drop) {
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
	}
	return feasible, drops
}

// timesOf returns the chosen clusters (ascending) that tolerations with
// tolerationSeconds keep, with when they stop, in the same order. A chosen
// cluster is read as one of the Placement's decisions, which it is once
// the result is written: a NoSelectIfNew taint then needs no toleration.
func timesOf(f *fleet, ts []clusterv1beta1.Toleration, chosen []int, now time.Time) []timed {
	if !expiring(ts) {
		return nil
	}
	var out []timed
	for _, i := range chosen {
		if !f.meta[i].tainted {
			continue
		}
		if t := tolerate(f.managed(i), ts, always, now); t.tolerated && (!t.requeue.IsZero() || !t.until.IsZero()) {
			out = append(out, timed{cluster: i, requeue: t.requeue, until: t.until})
		}
	}
	return out
}

// expiringOf returns the clusters of times that stop being tolerated some
// day.
func expiringOf(times []timed) []timed {
	var out []timed
	for _, t := range times {
		if !t.until.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

// recheckOf is when OCM's scheduler would look at the Placement again for
// its tolerations: the earliest expiry of a toleration that keeps a
// cluster of the Placement's own decisions, each taint counting the first
// toleration that tolerates it. The chosen clusters (times) count too, as
// OCM counts them at its next pass, once they are in the decisions: a
// first schedule already says when.
func recheckOf(f *fleet, ts []clusterv1beta1.Toleration, times []timed, now time.Time) time.Time {
	if !expiring(ts) {
		return time.Time{}
	}
	var at time.Time
	for _, t := range times {
		at = earliest(at, t.requeue)
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

// expiring reports whether some toleration has tolerationSeconds.
func expiring(ts []clusterv1beta1.Toleration) bool {
	for i := range ts {
		if ts[i].TolerationSeconds != nil {
			return true
		}
	}
	return false
}

func always() bool { return true }
