package simulate_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// TestRunProperties runs random fleets under random strategies and checks
// the planner's rules (docs/semantics.md §3) over whole rollouts, from the
// timeline alone: each check re-derives the clusters' states from the
// events, independently of the planner's code.
func TestRunProperties(t *testing.T) {
	t.Parallel()
	const chunk = 250
	n := 2000
	if testing.Short() {
		n = chunk
	}
	for from := 0; from < n; from += chunk {
		t.Run(fmt.Sprintf("cases %d-%d", from, from+chunk-1), func(t *testing.T) {
			t.Parallel()
			for i := from; i < from+chunk; i++ {
				checkScenario(t, i)
			}
		})
	}
}

// checkScenario runs random scenario i and checks its timeline. Then it
// runs it again: odd cases with the same inputs, even cases with the groups
// and their clusters in reverse order; both must give the same Result.
func checkScenario(t *testing.T, i int) {
	sc := randomScenario(rand.New(rand.NewPCG(20261130, uint64(i))))
	r, err := simulate.Run(sc.opts, sc.fleet)
	require.NoError(t, err, "case %d: %s", i, sc)
	if msg := sc.check(r); msg != "" {
		t.Fatalf("case %d: %s\n%s\n%s", i, msg, sc, r.Timeline())
	}
	fleet, what := sc.fleet, "a replay differs"
	if i%2 == 0 {
		fleet.Groups, what = reversed(sc.fleet.Groups), "the result depends on the order of the groups and clusters"
	}
	again, err := simulate.Run(sc.opts, fleet)
	require.NoError(t, err)
	require.Equal(t, r, again, "case %d: %s\n%s", i, what, sc)
}

// scenario is one random simulation and what the checks need to know of it.
type scenario struct {
	opts    simulate.Options
	fleet   simulate.Fleet
	healthy bool // no cluster fails or stays silent
	gated   bool

	kind        clusterv1alpha1.RolloutType
	soak        time.Duration
	deadline    time.Duration
	hasDeadline bool
	maxFailures intstr.IntOrString
	window      int // Progressive: the window over non-mandatory clusters

	group     map[string]grouping.GroupKey // cluster -> group
	members   map[grouping.GroupKey][]string
	keys      []grouping.GroupKey // walk order: mandatory first, each by index
	mandatory map[grouping.GroupKey]bool
	total     int
}

func (sc *scenario) String() string {
	s := fmt.Sprintf("strategy %s soak %s deadline %q maxFailures %s window %d gated %v\n",
		sc.kind, sc.soak, deadlineOf(sc), sc.maxFailures.String(), sc.window, sc.gated)
	for _, k := range sc.keys {
		s += fmt.Sprintf("  group %s mandatory=%v: %v\n", k, sc.mandatory[k], sc.members[k])
	}
	s += fmt.Sprintf("  default %+v behaviors %+v", sc.fleet.Default, sc.fleet.Behaviors)
	return s
}

func deadlineOf(sc *scenario) string {
	if !sc.hasDeadline {
		return "None"
	}
	return sc.deadline.String()
}

func randomScenario(rng *rand.Rand) *scenario {
	sc := &scenario{group: map[string]grouping.GroupKey{}, members: map[grouping.GroupKey][]string{}, mandatory: map[grouping.GroupKey]bool{}}
	sc.healthy = rng.IntN(3) == 0

	// Groups: 1-6, names that repeat, indices with gaps; clusters 1-50 in
	// random order.
	nGroups := 1 + rng.IntN(6)
	names := []string{"dev", "stg", "prod", "canary", ""}
	groups := make([]grouping.Group, nGroups)
	index := int32(0)
	for i := range groups {
		groups[i].GroupKey = grouping.GroupKey{Name: names[rng.IntN(len(names))], Index: index}
		index += 1 + int32(rng.IntN(2))
	}
	sc.total = 1 + rng.IntN(50)
	for i := range sc.total {
		name := fmt.Sprintf("%c-%02d", 'a'+rune(rng.IntN(26)), i)
		g := &groups[rng.IntN(nGroups)]
		g.Clusters = append(g.Clusters, name)
		sc.group[name] = g.GroupKey
	}
	for _, g := range groups {
		sc.members[g.GroupKey] = slices.Clone(g.Clusters)
	}
	rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })

	sc.fleet = simulate.Fleet{Groups: groups, Default: simulate.Behavior{ApplyDuration: randomDuration(rng, 30)}}
	if !sc.healthy {
		sc.fleet.Behaviors = map[string]simulate.Behavior{}
		// In name order: ranging over the map would draw from rng in a
		// random order, and a case could not be rebuilt from its seed.
		for _, name := range slices.Sorted(maps.Keys(sc.group)) {
			if b, ok := randomBehavior(rng); ok {
				sc.fleet.Behaviors[name] = b
			}
		}
	}

	// Strategy.
	sc.kind = []clusterv1alpha1.RolloutType{"", clusterv1alpha1.All, clusterv1alpha1.Progressive, clusterv1alpha1.ProgressivePerGroup, clusterv1alpha1.ProgressivePerGroup, clusterv1alpha1.Progressive}[rng.IntN(6)]
	deadline := ""
	switch rng.IntN(5) {
	case 0:
	case 1:
		deadline = "None"
	default:
		sc.deadline, sc.hasDeadline = time.Duration(rng.IntN(40))*time.Minute, true
		deadline = sc.deadline.String()
	}
	cfg := clusterv1alpha1.RolloutConfig{
		MinSuccessTime:   metav1.Duration{Duration: time.Duration(rng.IntN(11)) * time.Minute},
		ProgressDeadline: deadline,
		MaxFailures:      randomPortion(rng, 3),
	}
	var mandatory []clusterv1alpha1.MandatoryDecisionGroup
	for range rng.IntN(3) {
		if rng.IntN(2) == 0 {
			mandatory = append(mandatory, clusterv1alpha1.MandatoryDecisionGroup{GroupName: names[rng.IntN(len(names)-1)]})
		} else {
			mandatory = append(mandatory, clusterv1alpha1.MandatoryDecisionGroup{GroupIndex: int32(rng.IntN(8))})
		}
	}
	st := clusterv1alpha1.RolloutStrategy{Type: sc.kind}
	var maxConcurrency intstr.IntOrString
	switch sc.kind {
	case "", clusterv1alpha1.All:
		sc.kind = clusterv1alpha1.All
		st.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
		mandatory = nil
	case clusterv1alpha1.Progressive:
		maxConcurrency = randomPortion(rng, 6)
		st.Progressive = &clusterv1alpha1.RolloutProgressive{RolloutConfig: cfg, MaxConcurrency: maxConcurrency,
			MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory}}
	default:
		st.ProgressivePerGroup = &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: cfg,
			MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory}}
	}
	if sc.kind != clusterv1alpha1.All {
		sc.soak = cfg.MinSuccessTime.Duration
	}
	sc.maxFailures = cfg.MaxFailures
	sc.opts = simulate.Options{Strategy: st, Start: time.Date(2026, 1, 5, rng.IntN(7*24), 0, 0, 0, time.UTC)}
	if rng.IntN(4) == 0 {
		dc := randomPortion(rng, 6)
		sc.opts.Planner.DefaultConcurrency = &dc
	}
	if rng.IntN(6) == 0 {
		sc.gated = true
		sc.opts.Planner.Gates = []rollout.Gate{randomWindow(rng)}
	}

	sc.deriveWalk(mandatory, maxConcurrency)
	return sc
}

// deriveWalk sets what the checks derive from the strategy: the mandatory
// groups (by name, else by index), the walk order (mandatory groups first,
// then the others, each by index) and the Progressive window.
func (sc *scenario) deriveWalk(mandatory []clusterv1alpha1.MandatoryDecisionGroup, maxConcurrency intstr.IntOrString) {
	keys := make([]grouping.GroupKey, 0, len(sc.members))
	for k := range sc.members {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b grouping.GroupKey) int { return int(a.Index - b.Index) })
	for _, m := range mandatory {
		for _, k := range keys {
			if (m.GroupName != "" && k.Name == m.GroupName) || (m.GroupName == "" && k.Index == m.GroupIndex) {
				sc.mandatory[k] = true
			}
		}
	}
	remaining := 0
	for _, k := range keys {
		if sc.mandatory[k] {
			sc.keys = append(sc.keys, k)
		} else {
			remaining += len(sc.members[k])
		}
	}
	for _, k := range keys {
		if !sc.mandatory[k] {
			sc.keys = append(sc.keys, k)
		}
	}
	mc := maxConcurrency
	if portionOf(mc, 100) == 0 && sc.opts.Planner.DefaultConcurrency != nil {
		mc = *sc.opts.Planner.DefaultConcurrency
	}
	sc.window = portionOf(mc, remaining)
	if sc.window <= 0 || sc.window > remaining {
		sc.window = remaining
	}
}

// randomDuration is 0 to maxMinutes minutes, sometimes with seconds.
func randomDuration(rng *rand.Rand, maxMinutes int) time.Duration {
	d := time.Duration(rng.IntN(maxMinutes+1)) * time.Minute
	if rng.IntN(4) == 0 {
		d += time.Duration(rng.IntN(60)) * time.Second
	}
	return d
}

// randomBehavior is a failing, silent or healthy behaviour, maybe with a
// recovery; false means "use the fleet's default".
func randomBehavior(rng *rand.Rand) (simulate.Behavior, bool) {
	b := simulate.Behavior{ApplyDuration: randomDuration(rng, 30)}
	switch p := rng.IntN(20); {
	case p < 3:
		b.Fail = true
	case p < 5:
		b.Silent = true
	case p < 7:
		return b, false
	}
	if (b.Fail || b.Silent) && rng.IntN(2) == 0 {
		b.RecoverAfter = b.ApplyDuration + time.Second + randomDuration(rng, 90)
	}
	return b, true
}

// randomPortion is an int 0..maxInt or a percentage.
func randomPortion(rng *rand.Rand, maxInt int) intstr.IntOrString {
	if rng.IntN(2) == 0 {
		return intstr.FromInt32(int32(rng.IntN(maxInt + 1)))
	}
	return intstr.FromString([]string{"0%", "10%", "25%", "50%", "100%"}[rng.IntN(5)])
}

// portionOf is the rule book's int-or-percent of total: an int as is, N% rounded
// up.
func portionOf(p intstr.IntOrString, total int) int {
	if p.Type == intstr.Int {
		return int(p.IntVal)
	}
	n, _ := strconv.Atoi(p.StrVal[:len(p.StrVal)-1])
	return (n*total + 99) / 100
}

// randomWindow opens at least five days a week for 6-12 hours, so that a
// healthy fleet still completes within the time limit.
func randomWindow(rng *rand.Rand) rollout.Gate {
	days := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	rng.Shuffle(len(days), func(i, j int) { days[i], days[j] = days[j], days[i] })
	days = days[:5+rng.IntN(3)]
	start := time.Duration(rng.IntN(24)) * time.Hour
	end := (start + time.Duration(6+rng.IntN(7))*time.Hour) % (24 * time.Hour)
	g, err := rollout.Window(time.UTC, days, start, end)
	if err != nil {
		panic(err)
	}
	return g
}

func reversed(groups []grouping.Group) []grouping.Group {
	out := make([]grouping.Group, len(groups))
	for i, g := range groups {
		g.Clusters = slices.Clone(g.Clusters)
		slices.Reverse(g.Clusters)
		out[len(groups)-1-i] = g
	}
	return out
}
