package sidebyside

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The divergences of docs/compatibility.md that show on a real hub, each
// with the test of whether it explains a difference: what each side did,
// as recorded. Several may explain one difference together (a cluster
// that joins mid-rollout shows W2 in the phase where another that leaves
// shows A8): explain applies them all.

// divergence explains differences: one of docs/compatibility.md's, and
// how to recognise it.
type divergence struct {
	id string
	// match tells whether it explains a whole difference alone.
	match func(difference) bool
	// claims tells whether it explains one soak a side broke (rec is all
	// that side broke in the phase).
	claims func(s side, b soakBreak, rec soakRecord) bool
	// normalize removes from an order what it explains (both sides at
	// once), telling whether it changed anything.
	normalize func(ocm, ours order) (order, order, bool)
	// racy: it shows only when two of OCM's controllers race one way, so
	// a run where it does not show is no failure.
	racy bool
	// hides are the divergences that need not show in a run where this
	// one shows: its race changes the phase they would show in.
	hides []string
}

// explain returns the divergences that together explain d, or false.
func explain(d difference, divs []divergence) ([]string, bool) {
	for _, dv := range divs {
		if dv.match != nil && dv.match(d) {
			return []string{dv.id}, true
		}
	}
	switch d.aspect {
	case "soak":
		ocm, ok1 := d.ocm.(soakRecord)
		ours, ok2 := d.ours.(soakRecord)
		if !ok1 || !ok2 {
			return nil, false
		}
		used := map[string]bool{}
		a, b := unclaimed(ocmSide, ocm, divs, used), unclaimed(oursSide, ours, divs, used)
		return slices.Sorted(maps.Keys(used)), len(used) > 0 && slices.Equal(a, b)
	case "order":
		ocm, ok1 := d.ocm.(order)
		ours, ok2 := d.ours.(order)
		if !ok1 || !ok2 {
			return nil, false
		}
		var ids []string
		for _, dv := range divs {
			if dv.normalize == nil {
				continue
			}
			var changed bool
			if ocm, ours, changed = dv.normalize(ocm, ours); changed {
				ids = append(ids, dv.id)
			}
		}
		return ids, len(ids) > 0 && fmt.Sprint(ocm.waves) == fmt.Sprint(ours.waves)
	}
	return nil, false
}

// unclaimed returns the soaks a side broke that no divergence claims,
// adding the ids of those that claim some to used.
func unclaimed(s side, rec soakRecord, divs []divergence, used map[string]bool) []string {
	var out []string
next:
	for _, b := range rec.byWork {
		for _, dv := range divs {
			if dv.claims != nil && dv.claims(s, b, rec) {
				used[dv.id] = true
				continue next
			}
		}
		out = append(out, b.String())
	}
	return out
}

// w2 explains a soak OCM did not keep for add-ons it had just installed:
// its addonprogressing controller keeps the lastTransitionTime of the
// Progressing condition's earlier reason (WaitingForManifestApplied) when
// the works become ready, so by that time the soak has already run. It
// claims a soak OCM broke by the time the predecessor's work became ready
// when, by the time its add-on's condition says it completed, OCM kept
// every soak before that cluster: the condition's time is older than the
// work's readiness.
//
// It also explains the waves being cut elsewhere in a phase where it
// shows, the clusters starting in the same order: where OCM skipped the
// soaks, its next clusters started as soon as their predecessors applied,
// all at once, where ours waited for each predecessor's own soak (one
// whose condition time falls a second later starts its successor a second
// later).
func w2() divergence {
	claims := func(s side, b soakBreak, rec soakRecord) bool {
		if s != ocmSide {
			return false
		}
		for _, c := range rec.byCondition {
			if c.cluster == b.cluster {
				return false
			}
		}
		return true
	}
	return divergence{id: "W2", claims: claims, normalize: func(ocm, ours order) (order, order, bool) {
		shows := false
		for _, b := range ocm.soak.byWork {
			shows = shows || claims(ocmSide, b, ocm.soak)
		}
		if !shows || !slices.Equal(ocm.sequence(), ours.sequence()) {
			return ocm, ours, false
		}
		ocm.waves, ours.waves = [][]string{ocm.sequence()}, [][]string{ours.sequence()}
		return ocm, ours, true
	}}
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

// a8 explains OCM giving the new config to the add-on of a cluster that
// has just left every placement: OCM's addonconfiguration puts an add-on
// that no strategy placement selects into its "defaults" node, which rolls
// the default configs out to all its add-ons at once, and when it syncs
// before addonmanagement has deleted the add-on, it writes the new desired
// config to it, out of the strategy's order; ours only deletes it. The two
// controllers race, so it shows in some runs only. It removes the leaving
// clusters from both sides' orders, and claims the soaks OCM broke by
// starting them.
func a8(leaving ...string) divergence {
	left := make(map[string]bool, len(leaving))
	for _, c := range leaving {
		left[c] = true
	}
	without := func(o order) (order, bool) {
		var out [][]string
		changed := false
		for _, w := range o.waves {
			kept := slices.DeleteFunc(slices.Clone(w), func(c string) bool { return left[c] })
			changed = changed || len(kept) < len(w)
			if len(kept) > 0 {
				out = append(out, kept)
			}
		}
		o.waves = out
		return o, changed
	}
	return divergence{id: "A8", racy: true,
		claims: func(s side, b soakBreak, _ soakRecord) bool { return s == ocmSide && left[b.cluster] },
		normalize: func(ocm, ours order) (order, order, bool) {
			ocm, changed := without(ocm)
			ours, _ = without(ours)
			return ocm, ours, changed
		}}
}

// d8 explains OCM starting an install's clusters out of the strategy's
// order: its add-on manager's addonmanagement creates the add-ons one by
// one, in no set order, and while a cluster's add-on does not exist it
// has no status entry, which OCM's Progressive ranks after every cluster
// that has one (D8 of docs/compatibility.md), so a later cluster takes its
// slot; the two controllers race, and a loaded machine makes it likelier.
// Ours treats no entry and a ToApply entry alike: the strategy's order.
// It explains OCM's order when, for every two clusters OCM started the
// other way round from ours, the one OCM started later had its add-on
// created after the other's (lateInstalls), and claims the soaks OCM
// broke around those clusters (their slots were taken out of order). Its
// race reshapes the phase, so W2 need not show beside it.
func d8() divergence {
	return divergence{id: "D8", racy: true, hides: []string{"W2"},
		claims: func(s side, b soakBreak, rec soakRecord) bool {
			if s != ocmSide {
				return false
			}
			return rec.lateInstall[b.cluster] || slices.ContainsFunc(b.before, func(c string) bool { return rec.lateInstall[c] })
		},
		normalize: func(ocm, ours order) (order, order, bool) {
			if len(ocm.soak.lateInstall) == 0 {
				return ocm, ours, false
			}
			seq := ours.sequence()
			ocm.waves, ours.waves = [][]string{seq}, [][]string{slices.Clone(seq)}
			return ocm, ours, true
		}}
}
