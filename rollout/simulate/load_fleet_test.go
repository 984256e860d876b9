package simulate_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// loadCase is one random fleet of the load test: a scenario the property
// checkers understand, and what the load checks need besides. It is built
// from (seed, index) alone, so the same pair always gives the same inputs.
type loadCase struct {
	*scenario
	faulty         bool                       // some cluster fails or stays silent
	opens          bool                       // every gate admits every group with clusters, sooner or later
	gate           string                     // the gates, for the dump
	hours          *windowSpec                // the Window gate's days and hours, nil without one
	approved       map[grouping.GroupKey]bool // groups an Approval gate admits; nil without one
	paused         bool
	maxConcurrency intstr.IntOrString // Progressive's, as given
	mandatorySpec  []clusterv1alpha1.MandatoryDecisionGroup
}

// loadLimit is the simulated time a load case may take: a healthy fleet of
// 500 clusters, one at a time, behind a window open 30 hours a week, needs
// about three months.
const loadLimit = 365 * 24 * time.Hour

// loadSize draws a fleet size from 1 to 500, skewed so that most fleets are
// small and the run stays well within a minute: 65% have 1-20 clusters,
// 24% 21-100, 9% 101-300, 2% 301-500, and every thousandth case has 500.
// The cost of a fleet grows faster than its size: the planner reads the
// whole fleet at every step, and a narrow window takes a step per cluster.
func loadSize(rng *rand.Rand, i int) int {
	if i%1000 == 999 {
		return 500
	}
	switch p := rng.IntN(100); {
	case p < 65:
		return 1 + rng.IntN(20)
	case p < 89:
		return 21 + rng.IntN(80)
	case p < 98:
		return 101 + rng.IntN(200)
	}
	return 301 + rng.IntN(200)
}

// newLoadCase builds case i of the run seeded with seed.
func newLoadCase(seed uint64, i int) *loadCase {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	lc := &loadCase{scenario: &scenario{group: map[string]grouping.GroupKey{},
		members: map[grouping.GroupKey][]string{}, mandatory: map[grouping.GroupKey]bool{}}}
	sc := lc.scenario
	sc.total = loadSize(rng, i)
	groups := loadGroups(rng, sc.total)
	for _, g := range groups {
		sc.members[g.GroupKey] = slices.Clone(g.Clusters)
		for _, c := range g.Clusters {
			sc.group[c] = g.GroupKey
		}
	}
	rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	sc.fleet = simulate.Fleet{Groups: groups, Default: simulate.Behavior{ApplyDuration: randomDuration(rng, 30)}}
	lc.behave(rng)
	lc.strategy(rng)
	lc.gates(rng, groups)
	sc.healthy = !lc.faulty && lc.opens
	sc.gated = lc.hours != nil || !lc.opens
	lc.derive()
	return lc
}

// loadGroups makes 1-8 groups (names that repeat, indices with gaps) and
// shares n clusters among them: either cut in name order, as
// clustersPerDecisionGroup cuts them, or at random with uneven weights.
// Some groups stay empty.
func loadGroups(rng *rand.Rand, n int) []grouping.Group {
	names := []string{"dev", "stg", "prod", "canary", ""}
	groups := make([]grouping.Group, 1+rng.IntN(8))
	index := int32(0)
	for i := range groups {
		groups[i].GroupKey = grouping.GroupKey{Name: names[rng.IntN(len(names))], Index: index}
		index += 1 + int32(rng.IntN(2))
	}
	clusters := make([]string, n)
	for i := range clusters {
		clusters[i] = fmt.Sprintf("%c%c-%03d", 'a'+rune(rng.IntN(26)), 'a'+rune(rng.IntN(26)), i)
	}
	if rng.IntN(5) < 2 {
		sorted := slices.Sorted(slices.Values(clusters))
		cuts := make([]int, len(groups)-1)
		for i := range cuts {
			cuts[i] = rng.IntN(n + 1)
		}
		slices.Sort(cuts)
		cuts = append(append([]int{0}, cuts...), n)
		for i := range groups {
			groups[i].Clusters = slices.Clone(sorted[cuts[i]:cuts[i+1]])
		}
		return groups
	}
	weights := make([]int, len(groups))
	sum := 0
	for i := range weights {
		weights[i] = rng.IntN(6)
		sum += weights[i]
	}
	if sum == 0 {
		weights[0], sum = 1, 1
	}
	for _, c := range clusters {
		p := rng.IntN(sum)
		gi := 0
		for p >= weights[gi] {
			p -= weights[gi]
			gi++
		}
		groups[gi].Clusters = append(groups[gi].Clusters, c)
	}
	return groups
}

// behave gives half the fleets clusters with their own apply durations, and
// half the fleets faulty clusters (failing or silent, some recovering) at a
// rate from 0.5% to 40%. Clusters are visited in name order, never in map
// order, so that the same seed gives the same behaviours.
func (lc *loadCase) behave(rng *rand.Rand) {
	varied := rng.IntN(2) == 0
	rate := 0.0
	if rng.IntN(2) == 0 {
		rate = []float64{0.005, 0.02, 0.05, 0.15, 0.4}[rng.IntN(5)]
	}
	names := slices.Sorted(maps.Keys(lc.group))
	lc.fleet.Behaviors = map[string]simulate.Behavior{}
	for _, name := range names {
		b, own := lc.fleet.Default, false
		if varied && rng.IntN(3) == 0 {
			b, own = simulate.Behavior{ApplyDuration: randomDuration(rng, 30)}, true
		}
		if rng.Float64() < rate {
			if rng.IntN(2) == 0 {
				b.Fail = true
			} else {
				b.Silent = true
			}
			if rng.IntN(2) == 0 {
				b.RecoverAfter = b.ApplyDuration + time.Second + randomDuration(rng, 90)
			}
			own, lc.faulty = true, true
		}
		if own {
			lc.fleet.Behaviors[name] = b
		}
	}
}

// strategy draws the strategy: every type, a soak of 0-10 minutes, a
// deadline that is often longer than every apply (a healthy fleet then
// never times out) and sometimes not, failure budgets and windows from 0
// to the whole fleet, and 0-3 mandatory decision groups.
func (lc *loadCase) strategy(rng *rand.Rand) {
	sc := lc.scenario
	deadline := ""
	switch p := rng.IntN(10); {
	case p < 2:
	case p < 3:
		deadline = "None"
	case p < 7:
		sc.deadline, sc.hasDeadline = lc.maxApply()+randomDuration(rng, 20), true
	default:
		sc.deadline, sc.hasDeadline = randomDuration(rng, 40), true
	}
	if sc.hasDeadline {
		deadline = sc.deadline.String()
	}
	cfg := clusterv1alpha1.RolloutConfig{
		MinSuccessTime:   metav1.Duration{Duration: randomDuration(rng, 10)},
		ProgressDeadline: deadline,
		MaxFailures:      loadPortion(rng, sc.total),
	}
	names := []string{"dev", "stg", "prod", "canary"}
	for range rng.IntN(4) {
		if rng.IntN(2) == 0 {
			lc.mandatorySpec = append(lc.mandatorySpec, clusterv1alpha1.MandatoryDecisionGroup{GroupName: names[rng.IntN(len(names))]})
		} else {
			lc.mandatorySpec = append(lc.mandatorySpec, clusterv1alpha1.MandatoryDecisionGroup{GroupIndex: int32(rng.IntN(12))})
		}
	}
	mandatory := clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: lc.mandatorySpec}
	st := clusterv1alpha1.RolloutStrategy{}
	switch p := rng.IntN(40); {
	case p < 2:
		sc.kind = clusterv1alpha1.All // type "": the CRD default
		st.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
	case p < 10:
		sc.kind, st.Type = clusterv1alpha1.All, clusterv1alpha1.All
		st.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
	case p < 25:
		sc.kind, st.Type = clusterv1alpha1.Progressive, clusterv1alpha1.Progressive
		lc.maxConcurrency = loadPortion(rng, sc.total)
		st.Progressive = &clusterv1alpha1.RolloutProgressive{RolloutConfig: cfg, MaxConcurrency: lc.maxConcurrency, MandatoryDecisionGroups: mandatory}
	default:
		sc.kind, st.Type = clusterv1alpha1.ProgressivePerGroup, clusterv1alpha1.ProgressivePerGroup
		st.ProgressivePerGroup = &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: cfg, MandatoryDecisionGroups: mandatory}
	}
	if sc.kind == clusterv1alpha1.All {
		lc.mandatorySpec = nil
	} else {
		sc.soak = cfg.MinSuccessTime.Duration
	}
	sc.maxFailures = cfg.MaxFailures
	start := time.Date(2026, 1, 5, 0, rng.IntN(7*24*60), 0, 0, time.UTC)
	sc.opts = simulate.Options{Strategy: st, Start: start, Limit: loadLimit}
	if rng.IntN(4) == 0 {
		dc := loadPortion(rng, sc.total)
		sc.opts.Planner.DefaultConcurrency = &dc
	}
}

// maxApply is the longest apply of the fleet's clusters.
func (lc *loadCase) maxApply() time.Duration {
	var longest time.Duration
	for name := range lc.group {
		longest = max(longest, lc.behavior(name).ApplyDuration)
	}
	return longest
}

// loadPortion is an int (up to 3, a tenth of the fleet, or the whole
// fleet) or a percentage.
func loadPortion(rng *rand.Rand, n int) intstr.IntOrString {
	if rng.IntN(2) == 0 {
		return intstr.FromInt32(int32(rng.IntN([]int{3, n / 10, n}[rng.IntN(3)] + 1)))
	}
	return intstr.FromString([]string{"0%", "1%", "5%", "10%", "25%", "50%", "100%"}[rng.IntN(7)])
}

// gates draws the planner's gates: none (55%), a Window (20%), an Approval
// of every group (10%), both (5%), an Approval of some groups (7%), or a
// pause (3%). The last two may hold groups for ever.
func (lc *loadCase) gates(rng *rand.Rand, groups []grouping.Group) {
	var gates []rollout.Gate
	p := rng.IntN(100)
	if p >= 55 && p < 75 || p >= 85 && p < 90 {
		lc.hours = randomWindowSpec(rng)
		gates = append(gates, lc.hours.gate())
		lc.gate = "window " + lc.hours.String()
	}
	if p >= 75 && p < 97 {
		keys := slices.SortedFunc(slices.Values(groups), func(a, b grouping.Group) int { return int(a.Index - b.Index) })
		var approvals []grouping.GroupKey
		for _, g := range keys {
			if p < 90 || rng.IntN(2) == 0 {
				approvals = append(approvals, approvalKey(rng, g.GroupKey))
			}
		}
		lc.approved = approvedBy(approvals, keys)
		gates = append(gates, rollout.Approval(approvals...))
		var names []string
		for _, a := range approvals {
			switch {
			case a.Name == "":
				names = append(names, fmt.Sprintf("#%d", a.Index))
			case a.Index == 0:
				names = append(names, strconv.Quote(a.Name))
			default:
				names = append(names, a.String())
			}
		}
		lc.gate = strings.TrimSpace(lc.gate + " approval of " + strings.Join(names, ", "))
	}
	if p >= 97 {
		lc.paused = true
		gates = append(gates, rollout.Paused("load test"))
		lc.gate = "paused"
	}
	lc.opts.Planner.Gates = gates
	lc.opens = !lc.paused
	for k, m := range lc.members {
		if len(m) > 0 && lc.approved != nil && !lc.approved[k] {
			lc.opens = false
		}
	}
	if lc.gate == "" {
		lc.gate = "none"
	}
}

// approvalKey approves group k by its name, by its index, or by both.
func approvalKey(rng *rand.Rand, k grouping.GroupKey) grouping.GroupKey {
	switch rng.IntN(3) {
	case 0:
		if k.Name != "" {
			return grouping.GroupKey{Name: k.Name}
		}
	case 1:
		if k.Name != "" && k.Index != 0 {
			return k
		}
	}
	return grouping.GroupKey{Index: k.Index}
}

// approvedBy is which groups Approval(approvals...) admits, by its
// documented rule: a name alone admits every group of that name, an index
// alone the group at that index, both the group that has both.
func approvedBy(approvals []grouping.GroupKey, groups []grouping.Group) map[grouping.GroupKey]bool {
	out := make(map[grouping.GroupKey]bool, len(groups))
	for _, g := range groups {
		for _, a := range approvals {
			switch {
			case a.Name != "" && a.Index != 0:
				out[g.GroupKey] = out[g.GroupKey] || a == g.GroupKey
			case a.Name != "":
				out[g.GroupKey] = out[g.GroupKey] || a.Name == g.Name
			default:
				out[g.GroupKey] = out[g.GroupKey] || a.Index == g.Index
			}
		}
	}
	return out
}

// derive computes what the checks need from the strategy, as
// randomScenario does: mandatory groups (by name, else by index), the walk
// order, the Progressive window over the non-mandatory clusters.
func (lc *loadCase) derive() {
	lc.scenario.deriveWalk(lc.mandatorySpec, lc.maxConcurrency)
}

// dump is a compact description of the case: the strategy, the gate, each
// group in walk order with its size and first and last clusters, and a
// summary of the behaviours.
func (lc *loadCase) dump() string {
	sc := lc.scenario
	var b strings.Builder
	fmt.Fprintf(&b, "%d clusters, %s soak %s deadline %q maxFailures %s", sc.total, sc.kind, sc.soak, deadlineOf(sc), sc.maxFailures.String())
	if sc.kind == clusterv1alpha1.Progressive {
		fmt.Fprintf(&b, " maxConcurrency %s", lc.maxConcurrency.String())
		if dc := sc.opts.Planner.DefaultConcurrency; dc != nil {
			fmt.Fprintf(&b, " defaultConcurrency %s", dc.String())
		}
		fmt.Fprintf(&b, " (window %d)", sc.window)
	}
	var mandatory []string
	for _, m := range lc.mandatorySpec {
		if m.GroupName != "" {
			mandatory = append(mandatory, strconv.Quote(m.GroupName))
		} else {
			mandatory = append(mandatory, fmt.Sprintf("#%d", m.GroupIndex))
		}
	}
	fmt.Fprintf(&b, " mandatory [%s]\n  gate %s; start %s\n", strings.Join(mandatory, ", "), lc.gate, sc.opts.Start.Format("Mon 2006-01-02 15:04"))
	for _, k := range sc.keys {
		m := slices.Sorted(slices.Values(sc.members[k]))
		fmt.Fprintf(&b, "  group %s mandatory=%v: %d", k, sc.mandatory[k], len(m))
		if len(m) > 0 {
			fmt.Fprintf(&b, " [%s .. %s]", m[0], m[len(m)-1])
		}
		b.WriteByte('\n')
	}
	var own, fail, silent, recovering int
	for _, bh := range sc.fleet.Behaviors {
		switch {
		case bh.Fail:
			fail++
		case bh.Silent:
			silent++
		default:
			own++
		}
		if bh.RecoverAfter > 0 {
			recovering++
		}
	}
	fmt.Fprintf(&b, "  default apply %s, max apply %s; %d own apply, %d fail, %d silent, %d of those recover",
		sc.fleet.Default.ApplyDuration, lc.maxApply(), own, fail, silent, recovering)
	return b.String()
}
