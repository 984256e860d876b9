package rollout_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// randomCase is one random Plan input, with what the test needs to know
// about its gate.
type randomCase struct {
	s        clusterv1alpha1.RolloutStrategy
	def      *intstr.IntOrString
	groups   []grouping.Group
	statuses []rollout.ClusterStatus
	now      time.Time
	gated    bool
	held     map[int32]time.Duration // group index -> the gate's RecheckAfter, for held groups
}

func (c *randomCase) String() string {
	return fmt.Sprintf("strategy %+v\n progressive %+v\n perGroup %+v\n def %v\n groups %v\n statuses %+v\n now %v\n gated %v held %v",
		c.s, c.s.Progressive, c.s.ProgressivePerGroup, c.def, c.groups, c.statuses, c.now, c.gated, c.held)
}

func randomPortion(rng *rand.Rand) intstr.IntOrString {
	switch rng.IntN(4) {
	case 0:
		return intstr.FromInt32(rng.Int32N(6))
	case 1:
		return intstr.FromString([]string{"0%", "7%", "33%", "50%", "100%"}[rng.IntN(5)])
	case 2:
		return intstr.FromInt32(rng.Int32N(50))
	}
	return intstr.IntOrString{}
}

// newRandomCase draws a fleet of up to 7 groups and 40 clusters with random
// statuses (including removed clusters), a random
// strategy of kind and, when gated, a gate that holds random groups.
func newRandomCase(rng *rand.Rand, kind clusterv1alpha1.RolloutType, gated bool) *randomCase {
	now := t0()
	c := &randomCase{now: now, gated: gated}
	pool := rng.Perm(100)
	nGroups := 1 + rng.IntN(7)
	indices := rng.Perm(nGroups * 2)[:nGroups] // distinct, with gaps
	names := []string{"dev", "stg", "prod", "canary", ""}
	used := 0
	for gi := range nGroups {
		n := rng.IntN(8)
		if used+n > 40 {
			n = 0
		}
		cs := make([]string, n)
		for i := range cs {
			cs[i] = fmt.Sprintf("c%02d", pool[used])
			used++
		}
		c.groups = append(c.groups, group(names[rng.IntN(len(names))], int32(indices[gi]), cs...))
	}
	statusOf := []rollout.Status{rollout.ToApply, rollout.Progressing, rollout.Succeeded, rollout.Succeeded, rollout.Failed,
		rollout.TimeOut, rollout.Skip}
	addStatus := func(name string) {
		ltt := now.Add(-time.Duration(rng.IntN(120)) * time.Minute)
		if rng.IntN(10) == 0 {
			ltt = time.Time{}
		}
		c.statuses = append(c.statuses, status(name, statusOf[rng.IntN(len(statusOf))], ltt))
	}
	for _, g := range c.groups {
		for _, name := range g.Clusters {
			if rng.IntN(10) < 7 {
				addStatus(name)
			}
		}
	}
	for range rng.IntN(3) {
		addStatus(fmt.Sprintf("c%02d", pool[used]))
		used++
	}
	rng.Shuffle(len(c.statuses), func(i, j int) { c.statuses[i], c.statuses[j] = c.statuses[j], c.statuses[i] })

	conf := cfg{
		soak:     []time.Duration{0, time.Minute, 5 * time.Minute, 30 * time.Minute}[rng.IntN(4)],
		deadline: []string{"", "None", "0s", "90s", "15m", "1h30m"}[rng.IntN(6)],
		maxFail:  randomPortion(rng),
	}
	var opts []option
	if kind != all {
		var md []clusterv1alpha1.MandatoryDecisionGroup
		for range rng.IntN(3) {
			if rng.IntN(2) == 0 {
				md = append(md, byName(names[rng.IntN(len(names)-1)]))
			} else {
				md = append(md, byIndex(rng.Int32N(int32(nGroups*2))))
			}
		}
		opts = append(opts, mandatory(md...), concurrency(randomPortion(rng)))
	}
	c.s = strategy(kind, conf, opts...)
	if rng.IntN(3) == 0 {
		c.s.Type = ""
		if kind != all {
			c.s.Type = kind
		}
	}
	if rng.IntN(3) == 0 {
		d := randomPortion(rng)
		c.def = &d
	}
	if gated {
		c.held = make(map[int32]time.Duration)
		for _, g := range c.groups {
			if rng.IntN(3) == 0 {
				c.held[g.Index] = []time.Duration{0, time.Minute, 17 * time.Minute}[rng.IntN(3)]
			}
		}
	}
	return c
}

// planner builds the case's planner. Its gates are a holding gate that
// records which groups it was asked about, and an always-open window and
// an approval of every group, which must change nothing.
func (c *randomCase) planner(t *testing.T, asked map[int32]int) rollout.Planner {
	p := plannerAt(c.now)
	p.DefaultConcurrency = c.def
	if !c.gated {
		return p
	}
	open, err := rollout.Window(time.UTC, everyDay(), 0, 24*time.Hour-time.Nanosecond)
	require.NoError(t, err)
	var all []grouping.GroupKey
	for _, g := range c.groups {
		all = append(all, g.GroupKey)
	}
	p.Gates = []rollout.Gate{
		rollout.GateFunc(func(g grouping.GroupKey, now time.Time) rollout.Admission {
			asked[g.Index]++
			if d, held := c.held[g.Index]; held {
				return rollout.Admission{Reason: "test hold", RecheckAfter: d}
			}
			return rollout.Admission{Admitted: true}
		}),
		open,
		rollout.Approval(all...),
	}
	return p
}

// oracle is docs/semantics.md §3.3 for one cluster, written out
// independently.
type oracle struct {
	state   string // untouched, inflight, done, timedout (input TimeOut), timingout
	status  rollout.Status
	recheck time.Time
	failure bool
}

func evaluate(c *randomCase, in *rollout.ClusterStatus) oracle {
	if in == nil || in.Status == rollout.ToApply {
		return oracle{state: "untouched", status: rollout.ToApply}
	}
	var conf clusterv1alpha1.RolloutConfig
	kind := c.s.Type
	switch {
	case kind == progressive:
		conf = c.s.Progressive.RolloutConfig
	case kind == perGroup:
		conf = c.s.ProgressivePerGroup.RolloutConfig
	default:
		conf = c.s.All.RolloutConfig
		conf.MinSuccessTime.Duration = 0
	}
	from := in.LastTransitionTime
	if from.IsZero() {
		from = c.now
	}
	switch in.Status {
	case rollout.Succeeded:
		if end := from.Add(conf.MinSuccessTime.Duration); c.now.Before(end) {
			return oracle{state: "inflight", status: rollout.Succeeded, recheck: end}
		}
		return oracle{state: "done"}
	case rollout.Skip:
		return oracle{state: "done"}
	case rollout.TimeOut:
		return oracle{state: "timedout", failure: true}
	}
	st, failure := rollout.Progressing, false
	if in.Status == rollout.Failed {
		st, failure = rollout.Failed, true
	}
	if conf.ProgressDeadline == "" || conf.ProgressDeadline == "None" {
		return oracle{state: "inflight", status: st, failure: failure}
	}
	d, err := time.ParseDuration(conf.ProgressDeadline)
	if err != nil {
		panic(err)
	}
	if deadline := from.Add(d); c.now.Before(deadline) {
		return oracle{state: "inflight", status: st, recheck: deadline, failure: failure}
	}
	return oracle{state: "timingout", status: rollout.TimeOut, recheck: from.Add(d), failure: true}
}

// window is the Progressive window over remaining clusters
// (docs/semantics.md §3.6).
func window(c *randomCase, remaining int) int {
	p := c.s.Progressive.MaxConcurrency
	unset := p.Type == intstr.Int && p.IntVal == 0 || p.Type == intstr.String && p.StrVal == "0%"
	if unset && c.def != nil {
		p = *c.def
	}
	n := portion(p, remaining)
	if n <= 0 || n > remaining {
		n = remaining
	}
	return n
}

// clone deep-copies the inputs, to check that Plan leaves them alone.
func (c *randomCase) clone() ([]grouping.Group, []rollout.ClusterStatus) {
	groups := make([]grouping.Group, len(c.groups))
	for i, g := range c.groups {
		groups[i] = grouping.Group{GroupKey: g.GroupKey, Clusters: slices.Clone(g.Clusters)}
	}
	return groups, slices.Clone(c.statuses)
}

// shuffled returns the inputs in another order: groups, clusters within
// groups and statuses.
func (c *randomCase) shuffled(rng *rand.Rand) ([]grouping.Group, []rollout.ClusterStatus) {
	groups, statuses := c.clone()
	rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	for _, g := range groups {
		rng.Shuffle(len(g.Clusters), func(i, j int) { g.Clusters[i], g.Clusters[j] = g.Clusters[j], g.Clusters[i] })
	}
	rng.Shuffle(len(statuses), func(i, j int) { statuses[i], statuses[j] = statuses[j], statuses[i] })
	return groups, statuses
}

func TestPlanProperties(t *testing.T) {
	t.Parallel()
	for seed, kind := range kinds() {
		for _, gated := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/gates=%v", kind, gated), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(seed), map[bool]uint64{false: 1, true: 2}[gated]))
				for i := range 1000 {
					c := newRandomCase(rng, kind, gated)
					if !checkProperties(t, c, rng) {
						t.Fatalf("case %d:\n%s", i, c)
					}
				}
			})
		}
	}
}

// checkProperties plans c and checks every invariant; it reports whether
// all held.
func checkProperties(t *testing.T, c *randomCase, rng *rand.Rand) bool {
	t.Helper()
	ok := true
	check := func(cond bool, format string, args ...any) {
		if !cond {
			ok = false
			t.Errorf(format, args...)
		}
	}
	asked := make(map[int32]int)
	groups, statuses := c.clone()
	res, err := c.planner(t, asked).Plan(c.s, c.groups, c.statuses)
	require.NoError(t, err)

	// Inputs unmodified.
	check(assert.ObjectsAreEqual(groups, c.groups), "groups were modified")
	check(assert.ObjectsAreEqual(statuses, c.statuses), "statuses were modified")

	// Removed: statuses of clusters in no group, in input order.
	inGroup := make(map[string]bool)
	for _, g := range c.groups {
		for _, name := range g.Clusters {
			inGroup[name] = true
		}
	}
	var removed []rollout.ClusterStatus
	for _, s := range c.statuses {
		if !inGroup[s.Cluster] {
			removed = append(removed, s)
		}
	}
	check(assert.ObjectsAreEqual(removed, res.Removed), "Removed %+v, want %+v", res.Removed, removed)

	// Independent of input order (Removed keeps input order by definition).
	g2, s2 := c.shuffled(rng)
	again, err := c.planner(t, make(map[int32]int)).Plan(c.s, g2, s2)
	require.NoError(t, err)
	byCluster := func(a, b rollout.ClusterStatus) int { return cmp.Compare(a.Cluster, b.Cluster) }
	slices.SortFunc(res.Removed, byCluster)
	slices.SortFunc(again.Removed, byCluster)
	check(assert.ObjectsAreEqual(res, again), "the result depends on the input order:\n%+v\n%+v", res, again)

	// Gates are consulted at most once per group.
	for idx, n := range asked {
		check(n == 1, "group #%d: gate asked %d times", idx, n)
	}

	// Index the fleet and evaluate every cluster independently.
	keyOf := make(map[string]grouping.GroupKey)
	sorted := slices.Clone(c.groups)
	slices.SortFunc(sorted, func(a, b grouping.Group) int { return cmp.Compare(a.Index, b.Index) })
	for _, g := range sorted {
		for _, name := range g.Clusters {
			keyOf[name] = g.GroupKey
		}
	}
	input := make(map[string]*rollout.ClusterStatus)
	for i := range c.statuses {
		input[c.statuses[i].Cluster] = &c.statuses[i]
	}
	eval := make(map[string]oracle)
	for name := range keyOf {
		eval[name] = evaluate(c, input[name])
	}

	// Groups: one per group, index order, counts summing to the size.
	check(len(res.Groups) == len(sorted), "want %d groups, got %d", len(sorted), len(res.Groups))
	mandatory := make(map[int32]bool)
	for i, gp := range res.Groups {
		if i >= len(sorted) {
			break
		}
		g := sorted[i]
		check(gp.GroupKey == g.GroupKey, "Groups[%d] is %v, want %v", i, gp.GroupKey, g.GroupKey)
		k := gp.Counts
		check(gp.Size == len(g.Clusters) && k.ToApply+k.Progressing+k.Soaking+k.Succeeded+k.Failed+k.TimedOut+k.Skipped == gp.Size,
			"group %v: counts %+v do not sum to size %d", g.GroupKey, k, len(g.Clusters))
		_, isHeld := c.held[g.Index]
		check(gp.Phase != rollout.Blocked || isHeld, "group %v is Blocked but no gate holds it", g.GroupKey)
		check(gp.Reason != "", "group %v has no reason", g.GroupKey)
		mandatory[g.Index] = gp.Mandatory
	}

	// Listed and timed-out clusters: in a group, with its key, sorted,
	// carrying their evaluated status.
	listed := make(map[string]rollout.ClusterStatus)
	order := func(cs []rollout.ClusterStatus) bool {
		return slices.IsSortedFunc(cs, func(a, b rollout.ClusterStatus) int {
			return cmp.Or(cmp.Compare(a.Group.Index, b.Group.Index), cmp.Compare(a.Cluster, b.Cluster))
		})
	}
	check(order(res.ToRollout), "ToRollout is not ordered by group index, then name")
	check(order(res.TimedOut), "TimedOut is not ordered by group index, then name")
	for _, cs := range res.ToRollout {
		k, in := keyOf[cs.Cluster]
		check(in && cs.Group == k, "listed %q carries %v, want %v (in a group: %v)", cs.Cluster, cs.Group, k, in)
		o := eval[cs.Cluster]
		check(o.state == "untouched" || o.state == "inflight", "listed %q is %s", cs.Cluster, o.state)
		check(cs.Status == o.status && cs.RecheckTime.Equal(o.recheck), "listed %q: %v until %v, want %v until %v", cs.Cluster, cs.Status, cs.RecheckTime, o.status, o.recheck)
		listed[cs.Cluster] = cs
	}
	var wantTimed []string
	for _, g := range sorted {
		for _, name := range slices.Sorted(slices.Values(g.Clusters)) {
			if eval[name].state == "timingout" {
				wantTimed = append(wantTimed, name)
			}
		}
	}
	check(slices.Equal(wantTimed, names(res.TimedOut)), "TimedOut %v, want %v", names(res.TimedOut), wantTimed)
	for _, cs := range res.TimedOut {
		check(cs.Group == keyOf[cs.Cluster] && cs.Status == rollout.TimeOut && cs.RecheckTime.Equal(eval[cs.Cluster].recheck),
			"timed out %+v", cs)
	}

	// Every cluster in flight is listed: a started cluster is never abandoned.
	for name, o := range eval {
		_, in := listed[name]
		check(o.state != "inflight" || in, "%q is in flight but not listed", name)
	}

	// Untouched clusters listed: never of a held group, never after a breach.
	startedIn := make(map[int32]int)
	for name, cs := range listed {
		if eval[name].state != "untouched" {
			continue
		}
		startedIn[cs.Group.Index]++
		_, isHeld := c.held[cs.Group.Index]
		check(!isHeld, "untouched %q of held group %v listed", name, cs.Group)
		check(!res.MaxFailureBreach, "untouched %q listed after a breach", name)
	}

	// RecheckAfter: the smallest positive of the listed clusters' rechecks
	// and the holding gates' rechecks.
	var want time.Duration
	consider := func(d time.Duration) {
		if d > 0 && (want == 0 || d < want) {
			want = d
		}
	}
	for _, cs := range listed {
		if !cs.RecheckTime.IsZero() {
			consider(cs.RecheckTime.Sub(c.now))
		}
	}
	for idx := range asked {
		consider(c.held[idx])
	}
	check(res.RecheckAfter >= 0 && res.RecheckAfter == want, "RecheckAfter %v, want %v", res.RecheckAfter, want)

	switch c.s.Type {
	case perGroup:
		checkPerGroup(check, c, res, sorted, mandatory, startedIn, eval)
	case progressive:
		checkProgressive(check, c, res, sorted, mandatory, startedIn, eval)
	default:
		check(!res.MaxFailureBreach, "All breached")
		for _, g := range sorted {
			_, isHeld := c.held[g.Index]
			for _, name := range g.Clusters {
				_, in := listed[name]
				check(eval[name].state != "untouched" || in == !isHeld, "All: untouched %q of %v listed=%v held=%v", name, g.GroupKey, in, isHeld)
			}
		}
	}
	return ok
}

// walkOrder is the mandatory groups, then the others, each by index.
func walkOrder(sorted []grouping.Group, mandatory map[int32]bool) []grouping.Group {
	var first, rest []grouping.Group
	for _, g := range sorted {
		if mandatory[g.Index] {
			first = append(first, g)
		} else {
			rest = append(rest, g)
		}
	}
	return append(first, rest...)
}

// portion is an int-or-percent of total, percentages rounded up.
func portion(v intstr.IntOrString, total int) int {
	if v.Type != intstr.String {
		return int(v.IntVal)
	}
	var pct int
	if _, err := fmt.Sscanf(v.StrVal, "%d%%", &pct); err != nil {
		panic(err)
	}
	return (pct*total + 99) / 100
}

// tally counts a group's evaluated clusters.
func tally(g grouping.Group, eval map[string]oracle) (untouched, inflight, failed, failures int) {
	for _, name := range g.Clusters {
		o := eval[name]
		switch o.state {
		case "untouched":
			untouched++
		case "inflight":
			inflight++
		}
		if o.failure {
			failures++
			if o.state == "inflight" {
				failed++
			}
		}
	}
	return
}

// perGroupModel is docs/semantics.md §3.5 in a few lines: whether it
// breaches (failures over budget in any group), else the group its walk
// starts (-1 for none).
func perGroupModel(c *randomCase, sorted []grouping.Group, mandatory map[int32]bool, eval map[string]oracle) (int32, bool) {
	holding := 0
	for _, g := range sorted {
		_, inflight, _, _ := tally(g, eval)
		holding += inflight
	}
	maxFailures := c.s.ProgressivePerGroup.MaxFailures
	for _, g := range sorted {
		budget := 0
		if !mandatory[g.Index] {
			budget = min(portion(maxFailures, len(g.Clusters)), len(g.Clusters))
		}
		if _, _, _, failures := tally(g, eval); failures > budget {
			return -1, true // counted in every group, walked or not
		}
	}
	for _, g := range walkOrder(sorted, mandatory) {
		untouched, _, failed, _ := tally(g, eval)
		holding -= failed
		if untouched > 0 {
			if _, held := c.held[g.Index]; held {
				return -1, false
			}
			return g.Index, false // what it starts holds the walk
		}
		if holding > 0 {
			return -1, false
		}
	}
	return -1, false
}

// progressiveBreach is whether docs/semantics.md §3.6 breaches, at every
// call, wherever the walk is: a failure in any mandatory group, or failures
// over all clusters beyond maxFailures.
func progressiveBreach(c *randomCase, sorted []grouping.Group, mandatory map[int32]bool, eval map[string]oracle) bool {
	total, failures := 0, 0
	for _, g := range sorted {
		_, _, _, f := tally(g, eval)
		total += len(g.Clusters)
		failures += f
		if mandatory[g.Index] && f > 0 {
			return true
		}
	}
	return failures > min(portion(c.s.Progressive.MaxFailures, total), total)
}

func checkPerGroup(check func(bool, string, ...any), c *randomCase, res rollout.Result, sorted []grouping.Group,
	mandatory map[int32]bool, startedIn map[int32]int, eval map[string]oracle) {
	check(len(startedIn) <= 1, "ProgressivePerGroup started clusters in %d groups", len(startedIn))
	wantGroup, wantBreach := perGroupModel(c, sorted, mandatory, eval)
	check(res.MaxFailureBreach == wantBreach, "ProgressivePerGroup: MaxFailureBreach %v, want %v", res.MaxFailureBreach, wantBreach)
	for idx := range startedIn {
		check(idx == wantGroup, "ProgressivePerGroup started group #%d, want #%d", idx, wantGroup)
	}
	check(wantGroup < 0 || startedIn[wantGroup] > 0, "ProgressivePerGroup did not start group #%d", wantGroup)
	counts := make(map[int32]rollout.Counts)
	for _, gp := range res.Groups {
		counts[gp.Index] = gp.Counts
	}
	for _, g := range walkOrder(sorted, mandatory) {
		if startedIn[g.Index] > 0 {
			break
		}
		for idx := range startedIn {
			k := counts[g.Index]
			check(k.ToApply+k.Progressing+k.Soaking == 0, "group #%d started while earlier group %v is incomplete: %+v", idx, g.GroupKey, k)
		}
	}
}

func checkProgressive(check func(bool, string, ...any), c *randomCase, res rollout.Result, sorted []grouping.Group,
	mandatory map[int32]bool, startedIn map[int32]int, eval map[string]oracle) {
	remaining, inflight, started := 0, 0, 0
	mandatoryDone := true
	var free []string // untouched clusters of admitted non-mandatory groups
	for _, g := range sorted {
		if mandatory[g.Index] {
			for _, name := range g.Clusters {
				if s := eval[name].state; s == "untouched" || s == "inflight" {
					mandatoryDone = false
				}
			}
			continue
		}
		remaining += len(g.Clusters)
		started += startedIn[g.Index]
		_, isHeld := c.held[g.Index]
		for _, name := range g.Clusters {
			switch eval[name].state {
			case "inflight":
				inflight++
			case "untouched":
				if !isHeld {
					free = append(free, name)
				}
			}
		}
	}
	wantBreach := progressiveBreach(c, sorted, mandatory, eval)
	check(res.MaxFailureBreach == wantBreach, "Progressive: MaxFailureBreach %v, want %v", res.MaxFailureBreach, wantBreach)
	w := window(c, remaining)
	if !mandatoryDone {
		check(started == 0, "Progressive started %d non-mandatory clusters before the mandatory groups completed", started)
		return
	}
	if inflight > w {
		check(started == 0, "Progressive started %d clusters with %d in flight, window %d", started, inflight, w)
		return
	}
	check(inflight+started <= w, "Progressive lists %d in flight + %d new, window %d", inflight, started, w)
	if !res.MaxFailureBreach {
		want := min(w-inflight, len(free))
		check(started == want, "Progressive started %d, want %d (window %d, %d in flight, %d free)", started, want, w, inflight, len(free))
		slices.Sort(free)
		for _, name := range free[:want] {
			check(slices.Contains(names(res.ToRollout), name), "Progressive did not start %q, first in name order", name)
		}
	}
}
