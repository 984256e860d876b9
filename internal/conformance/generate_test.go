package conformance

import (
	"fmt"
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
)

// scenario is one planner input. Seed and Index reproduce it: generate(Seed,
// Index) builds it again.
type scenario struct {
	Seed     uint64
	Index    int
	Now      time.Time
	Strategy clusterv1alpha1.RolloutStrategy
	Groups   []grouping.Group
	Statuses []rollout.ClusterStatus // Group set to the cluster's real group; for removed clusters, one they might have left
}

// baseNow is the fixed "now" of every generated scenario.
var baseNow = time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)

var (
	groupNames  = []string{"dev", "stg", "prod", "", "canary"}
	deadlines   = []string{"", "None", "0s", "5m", "1h"}
	soaks       = []time.Duration{0, 2 * time.Minute, 10 * time.Minute, time.Hour}
	percents    = []string{"0%", "10%", "25%", "28%", "33%", "50%", "56%", "100%"}
	alignedPcts = []string{"14%", "28%", "56%"} // where float and exact ceil differ for 25 and 50
)

// stage biases the statuses of one group so that walks get somewhere:
// finished groups before active ones before untouched ones, and noise.
type stage int

const (
	stageDone stage = iota
	stageActive
	stageUntouched
	stageRandom
)

// generate builds scenario index of seed: 1-6 groups with contiguous indices
// (OCM's tracker needs them), names drawn with repeats, clusters named so
// that name order interleaves the groups, statuses of OCM's six values (and
// no other: one is an error for Plan, see D14) with and without transition
// times, removed clusters, and a strategy of any type with int and percent
// budgets, deadlines, soaks and mandatory groups.
func generate(seed uint64, index int) scenario {
	r := rand.New(rand.NewPCG(seed, uint64(index)))
	sc := scenario{Seed: seed, Index: index, Now: baseNow}
	aligned := r.IntN(12) == 0

	var sizes []int
	if aligned {
		sizes = [][]int{{25}, {50}, {25, 25}, {10, 15}, {20, 30}, {25, 3}}[r.IntN(6)]
	} else {
		sizes = make([]int, 1+r.IntN(6))
		for i := range sizes {
			sizes[i] = r.IntN(7)
			if sizes[i] == 0 && r.IntN(3) > 0 {
				sizes[i] = 1 + r.IntN(6) // empty groups are rare in practice
			}
		}
	}

	n := 0
	sc.Groups = make([]grouping.Group, len(sizes))
	stages := make([]stage, len(sizes))
	progress := r.IntN(len(sizes) + 1) // groups before it are done-ish, the one at it active
	for gi, size := range sizes {
		g := grouping.Group{GroupKey: grouping.GroupKey{Name: groupNames[r.IntN(len(groupNames))], Index: int32(gi)}}
		for range size {
			g.Clusters = append(g.Clusters, clusterName(r, n))
			n++
		}
		slices.Sort(g.Clusters)
		sc.Groups[gi] = g
		switch {
		case r.IntN(4) == 0:
			stages[gi] = stageRandom
		case gi < progress:
			stages[gi] = stageDone
		case gi == progress:
			stages[gi] = stageActive
		default:
			stages[gi] = stageUntouched
		}
	}

	sc.Strategy = genStrategy(r, len(sizes), aligned)
	deadline, minSuccess := configTimes(sc.Strategy)
	for gi, g := range sc.Groups {
		for _, c := range g.Clusters {
			st, ok := genStatus(r, stages[gi])
			if !ok {
				continue
			}
			sc.Statuses = append(sc.Statuses, rollout.ClusterStatus{
				Cluster: c, Group: g.GroupKey, Status: st,
				LastTransitionTime: genLTT(r, sc.Now, deadline, minSuccess),
			})
		}
	}
	removed := 0 // statuses of clusters that left every group
	if r.IntN(2) == 0 {
		removed = 1 + r.IntN(2)
	}
	for i := range removed {
		sc.Statuses = append(sc.Statuses, rollout.ClusterStatus{
			Cluster: "gone-" + strconv.Itoa(i), Status: rollout.Status(r.IntN(6)),
			Group:              sc.Groups[i%len(sc.Groups)].GroupKey, // both planners return it as given
			LastTransitionTime: genLTT(r, sc.Now, deadline, minSuccess),
		})
	}
	r.Shuffle(len(sc.Statuses), func(i, j int) { sc.Statuses[i], sc.Statuses[j] = sc.Statuses[j], sc.Statuses[i] })
	return sc
}

// clusterName is unique (it ends in n) and starts with random letters, so
// that name order does not follow group order.
func clusterName(r *rand.Rand, n int) string {
	return string([]byte{byte('a' + r.IntN(8)), byte('a' + r.IntN(8))}) + strconv.Itoa(n)
}

// genStatus draws a status for a cluster of a group at stage st; ok is false
// for no status entry.
func genStatus(r *rand.Rand, st stage) (rollout.Status, bool) {
	// weights: none, ToApply, Progressing, Succeeded, Failed, TimeOut, Skip
	w := map[stage][7]int{
		stageDone:      {0, 0, 1, 20, 1, 1, 2},
		stageActive:    {4, 3, 6, 6, 2, 1, 1},
		stageUntouched: {12, 4, 0, 0, 0, 0, 1},
		stageRandom:    {3, 2, 3, 3, 2, 2, 1},
	}[st]
	total := 0
	for _, x := range w {
		total += x
	}
	pick := r.IntN(total)
	for i, x := range w {
		if pick < x {
			if i == 0 {
				return 0, false
			}
			return rollout.Status(i - 1), true
		}
		pick -= x
	}
	panic("unreachable")
}

// genLTT draws a transition time: unknown, recent, exactly at the deadline
// or the end of the soak, or long ago. Never after now.
func genLTT(r *rand.Rand, now time.Time, deadline, minSuccess time.Duration) time.Time {
	switch p := r.IntN(20); {
	case p < 3:
		return time.Time{}
	case p < 5 && deadline >= 0:
		return now.Add(-deadline)
	case p < 6:
		return now.Add(-minSuccess)
	case p < 9:
		return now.Add(-1000 * time.Hour)
	default:
		return now.Add(-time.Duration(r.IntN(90*60)) * time.Second)
	}
}

func genStrategy(r *rand.Rand, nGroups int, aligned bool) clusterv1alpha1.RolloutStrategy {
	var s clusterv1alpha1.RolloutStrategy
	cfg := clusterv1alpha1.RolloutConfig{
		MinSuccessTime:   metav1.Duration{Duration: soaks[r.IntN(len(soaks))]},
		ProgressDeadline: deadlines[r.IntN(len(deadlines))],
		MaxFailures:      genPortion(r, aligned, 4),
	}
	if r.IntN(30) == 0 {
		cfg.ProgressDeadline = "1.5h" // a Go duration OCM's pattern rejects
	}
	md := clusterv1alpha1.MandatoryDecisionGroups{}
	if r.IntN(5) < 2 {
		for range 1 + r.IntN(2) {
			if r.IntN(2) == 0 {
				md.MandatoryDecisionGroups = append(md.MandatoryDecisionGroups, clusterv1alpha1.MandatoryDecisionGroup{GroupName: groupNames[r.IntN(len(groupNames))]})
			} else {
				md.MandatoryDecisionGroups = append(md.MandatoryDecisionGroups, clusterv1alpha1.MandatoryDecisionGroup{GroupIndex: int32(r.IntN(nGroups + 1))})
			}
		}
	}
	switch p := r.IntN(50); {
	case p < 2:
		s.Type = "" // the CRD default, All
		s.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
	case p < 11:
		s.Type = clusterv1alpha1.All
		s.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
	case p < 30:
		s.Type = clusterv1alpha1.Progressive
		s.Progressive = &clusterv1alpha1.RolloutProgressive{RolloutConfig: cfg, MandatoryDecisionGroups: md, MaxConcurrency: genPortion(r, aligned, 6)}
	default:
		s.Type = clusterv1alpha1.ProgressivePerGroup
		s.ProgressivePerGroup = &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: cfg, MandatoryDecisionGroups: md}
	}
	if r.IntN(40) == 0 { // no config at all: OCM's defaults
		s.All, s.Progressive, s.ProgressivePerGroup = nil, nil, nil
	}
	return s
}

// genPortion draws an int-or-percent: small ints, ints above any group,
// percentages (ones where float and exact ceil differ when aligned), and
// rarely a negative int.
func genPortion(r *rand.Rand, aligned bool, small int) intstr.IntOrString {
	switch p := r.IntN(40); {
	case p == 0:
		return intstr.FromInt32(-1 - int32(r.IntN(2)))
	case p < 4:
		return intstr.FromInt32(int32(7 + r.IntN(60))) // above most groups
	case p < 22:
		return intstr.FromInt32(int32(r.IntN(small)))
	case aligned && p < 34:
		return intstr.FromString(alignedPcts[r.IntN(len(alignedPcts))])
	default:
		return intstr.FromString(percents[r.IntN(len(percents))])
	}
}

// config returns the strategy's rollout config and its type, "" read as All.
func config(s clusterv1alpha1.RolloutStrategy) (clusterv1alpha1.RolloutType, clusterv1alpha1.RolloutConfig) {
	switch s.Type {
	case clusterv1alpha1.Progressive:
		if s.Progressive != nil {
			return s.Type, s.Progressive.RolloutConfig
		}
	case clusterv1alpha1.ProgressivePerGroup:
		if s.ProgressivePerGroup != nil {
			return s.Type, s.ProgressivePerGroup.RolloutConfig
		}
	default:
		if s.All != nil {
			return clusterv1alpha1.All, s.All.RolloutConfig
		}
		return clusterv1alpha1.All, clusterv1alpha1.RolloutConfig{}
	}
	return s.Type, clusterv1alpha1.RolloutConfig{}
}

// configTimes is the strategy's deadline (-1 for none) and soak, for the
// transition times worth generating.
func configTimes(s clusterv1alpha1.RolloutStrategy) (time.Duration, time.Duration) {
	_, cfg := config(s)
	d := time.Duration(-1)
	if cfg.ProgressDeadline != "" && cfg.ProgressDeadline != "None" {
		if p, err := time.ParseDuration(cfg.ProgressDeadline); err == nil {
			d = p
		}
	}
	return d, cfg.MinSuccessTime.Duration
}

// String dumps the scenario compactly, enough to rebuild it by hand.
func (sc scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed=%d scenario=%d (replay: go test -run 'TestParity$' -seed=%d -scenario=%d)\n", sc.Seed, sc.Index, sc.Seed, sc.Index)
	fmt.Fprintf(&b, "  now=%s strategy: %s\n", sc.Now.Format(time.RFC3339), strategyString(sc.Strategy))
	status := make(map[string]rollout.ClusterStatus, len(sc.Statuses))
	for _, cs := range sc.Statuses {
		status[cs.Cluster] = cs
	}
	for _, g := range sc.Groups {
		fmt.Fprintf(&b, "  group %s:", g.GroupKey)
		for _, c := range g.Clusters {
			if cs, ok := status[c]; ok {
				fmt.Fprintf(&b, " %s=%s@%s", c, cs.Status, rel(cs.LastTransitionTime, sc.Now))
			} else {
				fmt.Fprintf(&b, " %s=-", c)
			}
		}
		b.WriteByte('\n')
	}
	var order []string
	for _, cs := range sc.Statuses {
		order = append(order, cs.Cluster)
	}
	fmt.Fprintf(&b, "  status order: %s\n", strings.Join(order, " "))
	return b.String()
}

func strategyString(s clusterv1alpha1.RolloutStrategy) string {
	kind, cfg := config(s)
	out := fmt.Sprintf("type=%q (%s) deadline=%q minSuccess=%s maxFailures=%s", s.Type, kind, cfg.ProgressDeadline, cfg.MinSuccessTime.Duration, cfg.MaxFailures.String())
	var md []clusterv1alpha1.MandatoryDecisionGroup
	switch {
	case s.Type == clusterv1alpha1.Progressive && s.Progressive != nil:
		out += " maxConcurrency=" + s.Progressive.MaxConcurrency.String()
		md = s.Progressive.MandatoryDecisionGroups.MandatoryDecisionGroups
	case s.Type == clusterv1alpha1.ProgressivePerGroup && s.ProgressivePerGroup != nil:
		md = s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups
	}
	if (s.Type == clusterv1alpha1.Progressive && s.Progressive == nil) || (s.Type == clusterv1alpha1.ProgressivePerGroup && s.ProgressivePerGroup == nil) || (s.Type != clusterv1alpha1.Progressive && s.Type != clusterv1alpha1.ProgressivePerGroup && s.All == nil) {
		out += " (no config)"
	}
	if len(md) > 0 {
		var parts []string
		for _, m := range md {
			if m.GroupName != "" {
				parts = append(parts, "name:"+m.GroupName)
			} else {
				parts = append(parts, "index:"+strconv.Itoa(int(m.GroupIndex)))
			}
		}
		out += " mandatory=[" + strings.Join(parts, " ") + "]"
	}
	return out
}
