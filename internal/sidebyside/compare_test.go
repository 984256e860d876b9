package sidebyside

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// Soaks are checked twice (soakRecord): from when each predecessor's work
// became ready, as the recorder saw it, and from its add-on's Completed
// condition, the time a controller measures the soak from.
//
// readyTolerance is how early, by the first, a kept soak may still seem to
// end: a condition's lastTransitionTime is stored in whole seconds, so a
// controller may start the next cluster up to a second before the soak has
// run in real time, and the recorder sees a work become ready a little
// after the controller does (more on a loaded machine).
//
// conditionTolerance is the same by the second, which has neither: the
// recorder sees a start after the controller makes it.
const (
	readyTolerance     = 1500 * time.Millisecond
	conditionTolerance = 100 * time.Millisecond
)

// phaseOutcome is what one side did in one phase.
type phaseOutcome struct {
	starts map[string]time.Time // first time each cluster had the target desired
	ready  map[string]time.Time // first time its work, rendered for the target, was ready
	// since is, for each cluster, the lastTransitionTime of its add-on's
	// Progressing condition when it first had the target applied: the time
	// a controller measures the soak from.
	since     map[string]time.Time
	waves     [][]string           // the clusters started together, in order
	created   []string             // add-ons created in the phase
	createdAt map[string]time.Time // when each of them was created
	deleted   []string             // add-ons deleted in the phase
}

// outcomes computes what a side did in each of the run's phases from the
// recorded history of its add-on.
func (r *run) outcomes(s side) []phaseOutcome {
	events, _ := r.rec.history(s.addon)
	works := r.rec.workHistory(s.addon)
	out := make([]phaseOutcome, len(r.phases))
	state := map[string]addonState{}
	i := 0
	for pi, p := range r.phases {
		end := time.Now().Add(time.Hour)
		if pi+1 < len(r.phases) {
			end = r.phases[pi+1].start
		}
		o := phaseOutcome{starts: map[string]time.Time{}, ready: map[string]time.Time{}, since: map[string]time.Time{}, createdAt: map[string]time.Time{}}
		applied := map[string]bool{}
		for _, w := range works {
			if _, ok := o.ready[w.cluster]; !ok && w.ready && w.target == p.target && !w.at.Before(p.start) && w.at.Before(end) {
				o.ready[w.cluster] = w.at
			}
		}
		for ; i < len(events) && events[i].at.Before(end); i++ {
			e := events[i]
			prev := state[e.cluster]
			state[e.cluster] = e.state
			if e.at.Before(p.start) {
				continue
			}
			switch {
			case !prev.exists && e.state.exists:
				o.created = append(o.created, e.cluster)
				o.createdAt[e.cluster] = e.at
			case prev.exists && !e.state.exists:
				o.deleted = append(o.deleted, e.cluster)
			}
			if _, ok := o.starts[e.cluster]; !ok && e.state.desired == p.target && prev.desired != p.target {
				o.starts[e.cluster] = e.at
			}
			if !applied[e.cluster] && e.state.applied == p.target && prev.applied != p.target {
				applied[e.cluster] = true
				if c := e.state.progressing; c != nil {
					o.since[e.cluster] = c.LastTransitionTime.Time
				}
			}
		}
		o.waves = waves(o.starts, r.setup.apply/2)
		slices.Sort(o.created)
		slices.Sort(o.deleted)
		out[pi] = o
	}
	return out
}

// waves orders the clusters by the time they started and cuts the order
// where two starts are more than gap apart: the clusters of one wave were
// started by one decision of the controller (its writes follow one
// another), the next wave by a later one.
func waves(starts map[string]time.Time, gap time.Duration) [][]string {
	names := slices.Collect(maps.Keys(starts))
	sort.Slice(names, func(i, j int) bool {
		if !starts[names[i]].Equal(starts[names[j]]) {
			return starts[names[i]].Before(starts[names[j]])
		}
		return names[i] < names[j]
	})
	var out [][]string
	for i, n := range names {
		if i == 0 || starts[n].Sub(starts[names[i-1]]) > gap {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], n)
	}
	for _, w := range out {
		slices.Sort(w)
	}
	return out
}

// soakBreak is a cluster started before a predecessor had soaked.
type soakBreak struct {
	cluster string
	// before is the predecessor, group by group; with a Progressive
	// window, the clusters that held its slots.
	before []string
	early  time.Duration // how much too early, for a person
}

func (b soakBreak) String() string {
	return fmt.Sprintf("%s started %.1fs before %v soaked", b.cluster, b.early.Seconds(), b.before)
}

// soakBreaks lists the clusters a side started before their predecessors
// had soaked, each predecessor's soak measured from from(cluster): group
// by group, a cluster of a later group started less than the soak after a
// cluster of an earlier group that started before it (a cluster that joins
// an earlier group later is no predecessor of those already started); with
// a Progressive window, a cluster started
// while the window was full (every cluster started and not yet soaked
// holds a slot). Predecessors that never applied the config are left out.
func (r *run) soakBreaks(o phaseOutcome, from map[string]time.Time, tolerance time.Duration) []soakBreak {
	soak := r.setup.soak
	var out []soakBreak
	for c, s := range o.starts {
		if r.setup.window > 0 {
			var held []string
			var early time.Duration
			for x, sx := range o.starts {
				if x == c || sx.After(s) {
					continue
				}
				a, ok := from[x]
				switch {
				case !ok:
					held = append(held, x)
				case a.Add(soak).After(s.Add(tolerance)):
					held = append(held, x)
					early = max(early, a.Add(soak).Sub(s))
				}
			}
			if len(held)+1 > r.setup.window {
				slices.Sort(held)
				out = append(out, soakBreak{cluster: c, before: held, early: early})
			}
			continue
		}
		for d, a := range from {
			if sd, started := o.starts[d]; started && sd.Before(s) && groupOf(d) < groupOf(c) && a.Add(soak).After(s.Add(tolerance)) {
				out = append(out, soakBreak{cluster: c, before: []string{d}, early: a.Add(soak).Sub(s)})
			}
		}
	}
	slices.SortFunc(out, func(a, b soakBreak) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// difference is one thing the two sides did differently.
type difference struct {
	phase  string // the phase, or "end" for the state the run ended in
	aspect string // what was compared: order, soak, installed, removed, add-on <cluster>, progression ...
	ocm    any    // what OCM's side did
	ours   any    // what ours did
}

func (d difference) String() string {
	return fmt.Sprintf("%s, %s:\n    OCM:        %v\n    rolloutkit: %v", d.phase, d.aspect, d.ocm, d.ours)
}

// comparison is the result of comparing the two sides of a run: how many
// things were compared, and the differences.
type comparison struct {
	compared    int
	differences []difference
}

// check compares one aspect of the two sides; values are equal when they
// print the same.
func (c *comparison) check(phase, aspect string, ocm, ours any) {
	c.compared++
	if fmt.Sprint(ocm) != fmt.Sprint(ours) {
		c.differences = append(c.differences, difference{phase: phase, aspect: aspect, ocm: ocm, ours: ours})
	}
}

// soakKept is what a side that kept every soak did.
const soakKept = "every soak kept"

// compare compares what the two sides did in every phase, and where they
// ended.
func (r *run) compare() comparison {
	var c comparison
	ocm, ours := r.outcomes(ocmSide), r.outcomes(oursSide)
	for i, p := range r.phases {
		a, b := ocm[i], ours[i]
		sa, sb := r.soak(a), r.soak(b)
		sa.lateInstall = lateInstalls(order{waves: a.waves}.sequence(), order{waves: b.waves}.sequence(), a.createdAt)
		c.check(p.name, "order", order{a.waves, sa}, order{b.waves, sb})
		c.check(p.name, "soak", sa, sb)
		c.check(p.name, "installed", a.created, b.created)
		c.check(p.name, "removed", a.deleted, b.deleted)
	}
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	v := view{r.rec}
	clusters := map[string]bool{}
	for _, s := range sides {
		for cl := range r.rec.current[s.addon] {
			clusters[cl] = true
		}
	}
	for _, cl := range slices.Sorted(maps.Keys(clusters)) {
		c.check("end", "add-on "+cl, describeAddon(v.addon(ocmSide.addon, cl)), describeAddon(v.addon(oursSide.addon, cl)))
	}
	po, pr := v.progression(ocmSide.addon), v.progression(oursSide.addon)
	co, cr := progressingCondition(po), progressingCondition(pr)
	no, _ := parseProgress(co.Message)
	nr, _ := parseProgress(cr.Message)
	c.check("end", "progression condition", co.Status+" "+co.Reason, cr.Status+" "+cr.Reason)
	c.check("end", "progression counts", no, nr)
	c.check("end", "progression configs", describeConfigs(po), describeConfigs(pr))
	c.check("end", "progression message", co.Message, cr.Message)
	c.check("end", "progression reasons", reasons(r.rec.cmas[ocmSide.addon]), reasons(r.rec.cmas[oursSide.addon]))
	return c
}

// order is the waves in which a side started the clusters, with how it
// kept the soaks between them (which a divergence in the soaks changes).
type order struct {
	waves [][]string
	soak  soakRecord
}

func (o order) String() string { return fmt.Sprint(o.waves) }

// sequence is the clusters of o in the order they started (a wave's in
// name order).
func (o order) sequence() []string {
	var out []string
	for _, w := range o.waves {
		out = append(out, w...)
	}
	return out
}

// soakRecord is how a side kept the soaks of a phase: the breaks measured
// from when each predecessor's work became ready, and those from when its
// add-on's condition says it completed, the time a controller measures
// from.
type soakRecord struct {
	byWork, byCondition []soakBreak
	// lateInstall, on OCM's side, are the clusters of the phase it started
	// out of ours's order, when the creation of their add-ons explains
	// every one of them (lateInstalls); empty otherwise.
	lateInstall map[string]bool
}

func (s soakRecord) String() string {
	if len(s.byWork) == 0 {
		return soakKept
	}
	parts := make([]string, len(s.byWork))
	for i, b := range s.byWork {
		parts[i] = b.String()
	}
	return strings.Join(parts, "; ")
}

func (r *run) soak(o phaseOutcome) soakRecord {
	return soakRecord{byWork: r.soakBreaks(o, o.ready, readyTolerance), byCondition: r.soakBreaks(o, o.since, conditionTolerance)}
}

func describeAddon(s addonState) string {
	if !s.exists {
		return "none"
	}
	return fmt.Sprintf("desired %.8s applied %.8s", s.desired, s.applied)
}

// describeConfigs gives an install progression's configs: desired, last
// applied and last known good.
func describeConfigs(p addonv1alpha1.InstallProgression) string {
	var refs []string
	for _, ref := range p.ConfigReferences {
		refs = append(refs, fmt.Sprintf("desired %.8s last applied %.8s last known good %.8s",
			hashOf(ref.DesiredConfig), hashOf(ref.LastAppliedConfig), hashOf(ref.LastKnownGoodConfig)))
	}
	return strings.Join(refs, ", ")
}

func hashOf(h *addonv1alpha1.ConfigSpecHash) string {
	if h == nil {
		return "none"
	}
	return h.SpecHash
}

// reasons are the successive reasons of an add-on's install progression
// condition, each change once.
func reasons(events []cmaEvent) []string {
	var out []string
	for _, e := range events {
		if len(e.progressions) == 0 {
			continue
		}
		c := progressingCondition(e.progressions[0])
		if c.Reason != "" && (len(out) == 0 || out[len(out)-1] != c.Reason) {
			out = append(out, c.Reason)
		}
	}
	return out
}

// completedAt is when a side's install progression first said Completed
// with target as last known good, after start; zero when it never did.
func completedAt(events []cmaEvent, target string, start time.Time) time.Time {
	for _, e := range events {
		if e.at.Before(start) || len(e.progressions) == 0 {
			continue
		}
		p := e.progressions[0]
		if progressingCondition(p).Reason != addonv1alpha1.ProgressingReasonCompleted || len(p.ConfigReferences) == 0 {
			continue
		}
		if lkg := p.ConfigReferences[0].LastKnownGoodConfig; lkg != nil && lkg.SpecHash == target {
			return e.at
		}
	}
	return time.Time{}
}

// lateInstalls compares the order in which OCM started a phase's clusters
// (ocm) with ours's (ours), given when OCM's add-on of each was created.
// For every two clusters OCM started the other way round from ours, the
// one OCM started later must have had its add-on created after the
// other's: OCM ranks the clusters that have an add-on (a status entry)
// before those that have none, so it starts a cluster ahead of an earlier
// one only while the earlier one has no add-on in its cache (divergence
// D8). It returns the clusters of those pairs when every pair is explained
// that way, and nil when one is not, when the two orders hold different
// clusters, or when none is out of order.
func lateInstalls(ocm, ours []string, created map[string]time.Time) map[string]bool {
	pos := make(map[string]int, len(ours))
	for i, c := range ours {
		pos[c] = i
	}
	if len(ocm) != len(ours) {
		return nil
	}
	late := map[string]bool{}
	for i, x := range ocm {
		if _, ok := pos[x]; !ok {
			return nil
		}
		for _, y := range ocm[i+1:] {
			if pos[y] > pos[x] {
				continue
			}
			// OCM started x before y, ours y before x.
			cx, okX := created[x]
			cy, okY := created[y]
			if !okX || !okY || !cy.After(cx) {
				return nil
			}
			late[x], late[y] = true, true
		}
	}
	if len(late) == 0 {
		return nil
	}
	return late
}

// timeline tells, for a person reading the test's log, when a side started
// each wave of each phase and when it said the phase was complete,
// counting from the phase's start.
func (r *run) timeline(s side) string {
	_, cmas := r.rec.history(s.addon)
	var b strings.Builder
	for i, o := range r.outcomes(s) {
		p := r.phases[i]
		fmt.Fprintf(&b, "\n  %s %s:", s.name, p.name)
		if len(o.created) > 0 {
			b.WriteString(" add-ons created")
			for _, c := range slices.SortedFunc(maps.Keys(o.createdAt), func(x, y string) int { return o.createdAt[x].Compare(o.createdAt[y]) }) {
				fmt.Fprintf(&b, " %s +%.1fs", c, o.createdAt[c].Sub(p.start).Seconds())
			}
			b.WriteString(";")
		}
		for _, w := range o.waves {
			fmt.Fprintf(&b, " +%.1fs %v", o.starts[w[0]].Sub(p.start).Seconds(), w)
		}
		if at := completedAt(cmas, p.target, p.start); !at.IsZero() {
			fmt.Fprintf(&b, "; Completed +%.1fs", at.Sub(p.start).Seconds())
		}
	}
	return b.String()
}
