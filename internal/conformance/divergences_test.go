package conformance

import (
	"slices"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// divergence is one documented difference from OCM (docs/compatibility.md)
// that random scenarios can reach. Applies is a predicate on the input: a
// disagreement between the planners is allowed only when the predicate of
// some divergence holds.
type divergence struct {
	ID      string
	Summary string
	Test    string // the deterministic test that shows it
	Applies func(a *analysis) bool
	// Normalize, when set, erases exactly this divergence from a result
	// (ocm tells which planner's): where only such divergences apply, the
	// normalized results must agree.
	Normalize func(a *analysis, o *outcome, ocm bool)
}

// divergences are those the parity test knows. D1 (empty type), D12
// (deadline spelling) and D14 (negative ints) are input rewrites and
// validation, checked by the parity test itself; they are listed here for
// the counts.
var divergences = []divergence{
	{ID: "D1", Summary: "empty type means All (OCM errors)", Test: "TestDivergence_EmptyTypeIsAll"},
	{ID: "D2", Summary: "percentages rounded up exactly (OCM: float)", Test: "TestDivergence_PercentIsExact", Applies: percentDiffers},
	{ID: "D3", Summary: "int maxFailures above the size means all (OCM: 0)", Test: "TestDivergence_MaxFailuresAboveSizeMeansAll", Applies: intAboveSize},
	{ID: "D4", Summary: "PerGroup: a tolerated timeout does not release the next group while a cluster still rolls", Test: "TestDivergence_PerGroupTimeoutReleasesNextGroup", Applies: perGroupTimeoutRelease},
	{ID: "D5", Summary: "mandatory phase: a timeout elsewhere does not stall it", Test: "TestDivergence_MandatoryPhaseStallsOnTimeout", Applies: mandatoryTimeoutStall},
	{ID: "D6", Summary: "Progressive: failures counted past a full window", Test: "TestDivergence_ProgressiveCountsFailuresPastWindow", Applies: failuresPastWindow},
	{ID: "D7", Summary: "Progressive: every in-flight cluster listed", Test: "TestDivergence_ProgressiveListsEveryInFlightCluster", Applies: inFlightPastWindow},
	{ID: "D8", Summary: "Progressive: ToApply entries ranked like untouched clusters", Test: "TestDivergence_ProgressiveToApplyEntryNotRankedFirst", Applies: toApplyRankedFirst},
	{ID: "D9", Summary: "Progressive+mandatory: only mandatory clusters hold the mandatory phase", Test: "TestDivergence_ProgressiveMandatoryWaitsForAllInFlight", Applies: mandatoryWaitsForAll},
	{ID: "D10", Summary: "a breach starts nothing (OCM lists the breached group's untouched clusters)", Test: "TestDivergence_BreachStartsNothing", Applies: breachListsUntouched, Normalize: dropBreachedUntouched},
	{ID: "D11", Summary: "a failed mandatory group halts the rollout (OCM forgets it)", Test: "TestDivergence_MandatoryFailureHalts", Applies: mandatoryFailureForgotten},
	{ID: "D12", Summary: "progressDeadline is any Go duration (OCM's pattern rejects \"1.5h\")", Test: "TestDivergence_DeadlineIsAnyGoDuration"},
	{ID: "D13", Summary: "a listed ToApply entry keeps its transition time (OCM's group walk drops it)", Test: "TestDivergence_ToApplyKeepsTransitionTime", Applies: toApplyDropsLTT, Normalize: eraseToApplyLTT},
	{ID: "D14", Summary: "a negative int maxFailures/maxConcurrency is an error (OCM: 0 / all)", Test: "TestDivergence_InvalidInputsAreErrors"},
	{ID: "D18", Summary: "failures counted in every group at every call (OCM: only where its walk gets)", Test: "TestDivergence_FailuresCountedEverywhere",
		Applies: breachOutsideOCMWalk, Normalize: eraseUnseenBreach},
}

// D2: a percentage that the strategy uses comes out differently in OCM's
// floating point and our exact arithmetic, where it matters: a group's
// failures fall between the two budgets, or the fleet's, or the window
// differs.
func percentDiffers(a *analysis) bool {
	mf := a.cfg.MaxFailures
	between := func(fails, x, y int) bool { return fails > min(x, y) && fails <= max(x, y) }
	switch {
	case a.rest != nil && mf.Type == intstr.String:
		for _, gi := range a.rest.groups {
			c := a.counts[gi]
			if between(c.failures, ocmPortion(mf, c.size, 0), ourPortion(mf, c.size)) {
				return true
			}
		}
	case a.window != nil:
		if mf.Type == intstr.String && between(a.failures, ocmPortion(mf, a.total, 0), ourPortion(mf, a.total)) {
			return true
		}
		return a.maxConc.Type == intstr.String && ocmPortion(a.maxConc, a.restSize, a.restSize) != a.ourWindow()
	}
	return false
}

// D3: an int maxFailures above the size it applies to (a group walked by
// OCM, or the fleet for Progressive) while there are failures there.
func intAboveSize(a *analysis) bool {
	mf := a.cfg.MaxFailures
	if mf.Type != intstr.Int || mf.IntVal <= 0 {
		return false
	}
	n := int(mf.IntVal)
	if a.rest != nil {
		for _, gi := range a.rest.groups {
			if c := a.counts[gi]; n > c.size && c.failures > 0 {
				return true
			}
		}
	}
	return a.window != nil && n > a.total && a.failures > 0
}

// D4: ProgressivePerGroup, and OCM's walk went past a group only because it
// subtracted timed-out clusters from what was still rolling.
func perGroupTimeoutRelease(a *analysis) bool {
	return a.rest != nil && a.rest.released
}

// D5: a progressive type with mandatory groups, whose mandatory phase would
// be over (nothing listed, no breach), but a cluster outside it times out
// now, so OCM returns the mandatory phase's result.
func mandatoryTimeoutStall(a *analysis) bool {
	return a.mand != nil && a.timingOutR > 0 && a.mand.listed == 0 && !a.mand.breach
}

// D6: Progressive, OCM stopped reading statuses when its window filled, and
// the failures it did not read would change its breach.
func failuresPastWindow(a *analysis) bool {
	p := a.window
	if p == nil || p.cut == len(a.entries) {
		return false
	}
	return (a.failures > p.budget) != (p.seenFailures > p.budget)
}

// D7: Progressive, and a cluster in flight or timing out comes after the
// point where OCM's window filled.
func inFlightPastWindow(a *analysis) bool {
	p := a.window
	if p == nil {
		return false
	}
	for _, name := range a.entries[p.cut:] {
		if cl := a.classOf[name]; cl.inFlight() || cl == cTimingOut {
			return true
		}
	}
	return false
}

// D8: Progressive, OCM listed a ToApply entry from the statuses, and the
// ranking matters: not every cluster fits the window, or there is a breach.
func toApplyRankedFirst(a *analysis) bool {
	p := a.window
	if p == nil || !p.toApplyAppended {
		return false
	}
	untouched, inFlight := 0, 0
	for _, gi := range a.restOrder {
		untouched += a.counts[gi].untouched
		inFlight += a.counts[gi].inFlight
	}
	ourBudget := min(ourPortion(a.cfg.MaxFailures, a.total), a.total)
	return p.window < inFlight+untouched || a.failures > p.budget || a.failures > ourBudget
}

// D9: Progressive with mandatory groups, a non-mandatory cluster in flight,
// and we would go past the first mandatory group (nothing to start there, no
// failure, no mandatory cluster in flight) where OCM stops.
func mandatoryWaitsForAll(a *analysis) bool {
	if a.kind != clusterv1alpha1.Progressive || a.mand == nil {
		return false
	}
	first := a.counts[a.mandOrder[0]]
	return a.inFlight > a.inFlightM && a.inFlightM == 0 && first.untouched == 0 && first.failures == 0
}

// D10: the walk whose result OCM returns stopped on a breach in a group
// that has untouched clusters, which OCM lists.
func breachListsUntouched(a *analysis) bool {
	w := a.returnedWalk()
	return w != nil && w.breach && a.counts[w.groups[len(w.groups)-1]].untouched > 0
}

// D11: a mandatory group's failures exceed its budget of 0, but OCM's
// mandatory phase lists nothing and nothing times out, so OCM drops its
// result, breach included, and goes on with the other groups.
func mandatoryFailureForgotten(a *analysis) bool {
	return a.mand != nil && a.mand.breach && !a.mandReturned
}

// D13: the walk whose result OCM returns lists a ToApply entry that has a
// transition time; OCM's group walk writes a fresh status without it.
func toApplyDropsLTT(a *analysis) bool {
	w := a.returnedWalk()
	if w == nil {
		return false
	}
	for _, gi := range w.groups {
		if a.counts[gi].toApplyWithLTT > 0 {
			return true
		}
	}
	return false
}

// D18: our breach comes from failures that OCM never counts at this call:
// for ProgressivePerGroup, a group over its budget that none of OCM's walks
// reached (its walk stopped earlier, e.g. at the group before a Failed
// cluster's); for Progressive, any breach while OCM returns its mandatory
// phase's result without one.
func breachOutsideOCMWalk(a *analysis) bool {
	switch a.kind {
	case clusterv1alpha1.ProgressivePerGroup:
		visited := make([]bool, len(a.counts))
		for _, w := range []*walk{a.mand, a.rest} {
			if w != nil {
				for _, gi := range w.groups {
					visited[gi] = true
				}
			}
		}
		for gi, c := range a.counts {
			if !visited[gi] && c.failures > a.ourGroupBudget(gi) {
				return true
			}
		}
	case clusterv1alpha1.Progressive:
		return a.mandReturned && !a.mand.breach && a.ourProgressiveBreach()
	}
	return false
}

// eraseUnseenBreach gives OCM's result the breach it did not see (D18): a
// breach, and none of the clusters it would start. Ours lists only the
// clusters in flight, as OCM does besides those.
func eraseUnseenBreach(_ *analysis, o *outcome, ocm bool) {
	if !ocm {
		return
	}
	o.Breach = true
	o.ToRollout = slices.DeleteFunc(o.ToRollout, func(r row) bool { return r.Status == rollout.ToApply })
}

// dropBreachedUntouched removes from OCM's list the untouched clusters of the
// group its walk breached on (D10).
func dropBreachedUntouched(a *analysis, o *outcome, ocm bool) {
	if !ocm {
		return
	}
	w := a.returnedWalk()
	key := a.keys[w.groups[len(w.groups)-1]]
	o.ToRollout = slices.DeleteFunc(o.ToRollout, func(r row) bool { return r.Group == key && r.Status == rollout.ToApply })
}

// eraseToApplyLTT forgets the transition time of listed ToApply entries in
// the groups OCM's returned walk went through (D13).
func eraseToApplyLTT(a *analysis, o *outcome, _ bool) {
	walked := map[grouping.GroupKey]bool{}
	for _, gi := range a.returnedWalk().groups {
		walked[a.keys[gi]] = true
	}
	for i, r := range o.ToRollout {
		if r.Status == rollout.ToApply && walked[r.Group] {
			o.ToRollout[i].LTT = "none"
		}
	}
}
