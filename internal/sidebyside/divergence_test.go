package sidebyside

import (
	"fmt"
	"slices"
	"strings"
)

// The divergences of docs/compatibility.md that show on a real hub, each
// with the test of whether it explains a difference. A matcher looks at the
// difference only: what each side did, as recorded.

// w2 explains a soak OCM did not keep for add-ons it had just installed:
// its addonprogressing controller keeps the lastTransitionTime of the
// Progressing condition's earlier reason (WaitingForManifestApplied) when
// the works become ready, so by that time the soak has already run. It
// holds when OCM broke a soak by the real time of the apply, kept every
// soak by the time its add-ons' conditions say they completed (so that
// time is earlier than the apply), and ours kept every soak.
//
// It also explains the waves being cut elsewhere in such a phase, the
// clusters starting in the same order: where OCM skipped the soaks, its
// next clusters started as soon as their predecessors applied, all at
// once, where ours waited for each predecessor's own soak (a predecessor
// whose condition time falls a second later starts its successor a second
// later).
func w2() divergence {
	return divergence{id: "W2", match: func(d difference) bool {
		switch d.aspect {
		case "soak":
			ocm, ok1 := d.ocm.(soakRecord)
			ours, ok2 := d.ours.(soakRecord)
			return ok1 && ok2 && skippedSoaks(ocm, ours)
		case "order":
			ocm, ok1 := d.ocm.(order)
			ours, ok2 := d.ours.(order)
			return ok1 && ok2 && skippedSoaks(ocm.soak, ours.soak) && slices.Equal(ocm.sequence(), ours.sequence())
		}
		return false
	}}
}

// skippedSoaks tells whether OCM broke soaks by the real time of the
// applies and kept them by its add-ons' condition times, while ours kept
// every soak.
func skippedSoaks(ocm, ours soakRecord) bool {
	return len(ocm.byApply) > 0 && len(ocm.byCondition) == 0 && len(ours.byApply) == 0
}

// a1 explains the text of the install progression's message: ours says
// "selected clusters N. configured addons " before the words OCM v1.2.0
// writes. Its numbers are compared on their own ("progression counts").
func a1() divergence {
	return divergence{id: "A1", match: func(d difference) bool {
		ocm, ok1 := d.ocm.(string)
		ours, ok2 := d.ours.(string)
		if d.aspect != "progression message" || !ok1 || !ok2 {
			return false
		}
		n, ok := parseProgress(ours)
		if _, okOCM := parseProgress(ocm); !ok || !okOCM {
			return false
		}
		prefix := fmt.Sprintf("selected clusters %d. configured addons ", n.total)
		return strings.HasPrefix(ours, prefix) && !strings.HasPrefix(ocm, "selected clusters")
	}}
}

// d5 explains a rollout OCM stalls and ours goes on with: with mandatory
// decision groups, while any cluster is past its deadline OCM returns its
// mandatory phase's result, so nothing after the mandatory groups starts;
// ours counts the timed-out cluster against its own group's budget and,
// within it, goes on. stalled are the clusters OCM never starts for that
// reason. It explains OCM's order being ours cut short before waves of
// stalled clusters only, the stalled clusters' add-ons keeping the config
// they had, and fewer add-ons done in the install progression's counts.
func d5(stalled ...string) divergence {
	isStalled := make(map[string]bool, len(stalled))
	for _, c := range stalled {
		isStalled[c] = true
	}
	return divergence{id: "D5", match: func(d difference) bool {
		switch {
		case d.aspect == "order":
			o1, ok1 := d.ocm.(order)
			o2, ok2 := d.ours.(order)
			if !ok1 || !ok2 {
				return false
			}
			ocm, ours := o1.waves, o2.waves
			if len(ocm) >= len(ours) || fmt.Sprint(ocm) != fmt.Sprint(ours[:len(ocm)]) {
				return false
			}
			for _, w := range ours[len(ocm):] {
				for _, c := range w {
					if !isStalled[c] {
						return false
					}
				}
			}
			return true
		case strings.HasPrefix(d.aspect, "add-on "):
			return isStalled[strings.TrimPrefix(d.aspect, "add-on ")]
		case d.aspect == "progression counts":
			ocm, ok1 := d.ocm.(progressCounts)
			ours, ok2 := d.ours.(progressCounts)
			if !ok1 || !ok2 || ours.done-ocm.done != len(stalled) {
				return false
			}
			ocm.done = ours.done
			return ocm == ours
		}
		return false
	}}
}
