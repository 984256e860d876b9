package placement

import (
	"time"
)

// choice is what the scheduler chose, and what it met on the way.
type choice struct {
	// available counts the candidates: members of the eligible cluster
	// sets that are not being deleted.
	available int
	// tolerationsChecked: some candidate matched the predicates, so OCM
	// would check the tolerations.
	tolerationsChecked bool
	// chosen are the selected clusters, indices into fleet.clusters in
	// ascending (name) order.
	chosen []int
	// unscheduled is numberOfClusters less the clusters chosen, or 0
	// without numberOfClusters.
	unscheduled int
	// byScore is what OCM v1.2.0 would choose, ignoring spreadPolicy; set
	// only when a spreadPolicy was applied.
	byScore []int
	// drops are the clusters matched by the predicates that a taint
	// dropped, in name order.
	drops []drop
	// expiring are the chosen clusters kept only by tolerations that
	// expire, in name order.
	expiring []timed
	// recheck is when the choice may change on its own (zero: never).
	recheck time.Time
}

// choose runs OCM's scheduling pipeline: the candidates of the cluster
// sets, the predicates, the taints, the prioritizers and numberOfClusters.
// Like OCM, it stops with nothing chosen at a problem of a predicate (or
// of numberOfClusters), of a toleration (when OCM checks them) or of the
// prioritizer policy.
func (c *config) choose(f *fleet, sets *boundSets, now time.Time) choice {
	var ch choice
	stopped := len(c.predicateErrs)+len(c.numberErrs) > 0
	var matched []int
	if !stopped {
		matched = make([]int, 0, len(f.clusters))
	}
	for i := range f.clusters {
		if f.meta[i].deleting || !sets.member(f.clusters[i].Labels) {
			continue
		}
		ch.available++
		if !stopped && c.selects(f.clusters[i]) {
			matched = append(matched, i)
		}
	}
	if stopped {
		if ch.available == 0 && len(c.numberErrs) == 0 && len(c.prioritizerErrs) == 0 {
			// OCM checks the predicates only when some candidate exists.
			// With none it goes on with nothing chosen, and still looks
			// again when a toleration of its current decisions expires.
			ch.recheck = recheckOf(f, c.tolerations, nil, now)
		}
		return ch
	}
	ch.tolerationsChecked = len(matched) > 0
	if len(c.tolerationErrs) > 0 && ch.tolerationsChecked || len(c.prioritizerErrs) > 0 {
		return ch
	}
	feasible, drops := filterTaints(f, c.tolerations, matched, now)
	ch.drops = drops
	var scoresExpire time.Time
	ch.chosen, ch.byScore, scoresExpire = c.rank(f, feasible, now)
	if c.number >= 0 {
		ch.unscheduled = c.number - len(ch.chosen)
	}
	times := timesOf(f, c.tolerations, ch.chosen, now)
	ch.expiring = expiringOf(times)
	ch.recheck = earliest(scoresExpire, recheckOf(f, c.tolerations, times, now))
	return ch
}

// rank keeps the best numberOfClusters of feasible (all of them without
// numberOfClusters), spread by the spread constraints when there are any.
// It scores the clusters only when the scores can change the choice. It
// returns the chosen clusters in ascending order, what OCM would choose
// when a spread was applied, and when an AddOnPlacementScore in use
// expires.
func (c *config) rank(f *fleet, feasible []int, now time.Time) (chosen, byScore []int, expires time.Time) {
	n := c.number
	if n < 0 {
		n = len(feasible)
	}
	if len(c.spread) == 0 && n >= len(feasible) {
		return feasible, nil, time.Time{}
	}
	total, expires := scores(f, c.prioritizers, feasible, now)
	byScore = best(feasible, total, n)
	if len(c.spread) == 0 {
		return byScore, nil, expires
	}
	return spreadChoose(f.clusters, rankOrder(feasible, total), c.spread, n), byScore, expires
}
