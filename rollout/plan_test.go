package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// planCase is one Plan call and what it must decide. Now is t0 unless set.
type planCase struct {
	name     string
	s        clusterv1alpha1.RolloutStrategy
	def      *intstr.IntOrString // Planner.DefaultConcurrency
	groups   []grouping.Group
	statuses []rollout.ClusterStatus
	now      time.Duration // offset from t0

	list    []string // names of ToRollout, in order
	timed   []string // names of TimedOut, in order
	breach  bool
	recheck time.Duration
}

func runPlanCases(t *testing.T, tests []planCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := plannerAt(at(tt.now))
			p.DefaultConcurrency = tt.def
			res, err := p.Plan(tt.s, tt.groups, tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.list, names(res.ToRollout), "ToRollout")
			assert.Equal(t, tt.timed, names(res.TimedOut), "TimedOut")
			assert.Equal(t, tt.breach, res.MaxFailureBreach, "MaxFailureBreach")
			assert.Equal(t, tt.recheck, res.RecheckAfter, "RecheckAfter")
		})
	}
}

// clusters names n clusters prefix-000, prefix-001, ...
func clusters(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%03d", prefix, i)
	}
	return out
}

// each gives every cluster the same status.
func each(cs []string, s rollout.Status, ltt time.Time) []rollout.ClusterStatus {
	out := make([]rollout.ClusterStatus, len(cs))
	for i, c := range cs {
		out[i] = status(c, s, ltt)
	}
	return out
}

func TestPlanRemoved(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			in := []rollout.ClusterStatus{
				status("gone-b", rollout.Progressing, at(-time.Hour)),
				status("dev-cluster", rollout.Succeeded, at(-time.Hour)),
				{Cluster: "gone-a", Status: rollout.Failed, LastTransitionTime: at(-time.Minute), Group: key("dev", 0), RecheckTime: at(time.Hour)},
				status("gone-c", rollout.TimeOut, time.Time{}),
			}
			res, err := plannerAt(t0()).Plan(strategy(kind, cfg{deadline: "15m"}), seedGroups(), in)
			require.NoError(t, err)
			assert.Equal(t, []rollout.ClusterStatus{in[0], in[2], in[3]}, res.Removed,
				"input order, exactly as given: gone-a keeps the group it was in and its recheck time")
			// Removed clusters take no further part: no timeout, no failure, no hold.
			assert.Empty(t, res.TimedOut)
			assert.False(t, res.MaxFailureBreach)
			assert.Contains(t, names(res.ToRollout), "stg-cluster")
			assert.NotContains(t, names(res.ToRollout), "gone-a")
		})
	}
}

func TestPlanEmptyTypeIsAll(t *testing.T) {
	t.Parallel()
	statuses := []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-20*time.Minute)), status("stg-cluster", rollout.Succeeded, at(-time.Minute))}
	for _, s := range []clusterv1alpha1.RolloutStrategy{
		{},
		{Type: "", All: &clusterv1alpha1.RolloutAll{RolloutConfig: cfg{soak: time.Hour, deadline: "15m"}.config()}},
	} {
		t.Run(fmt.Sprintf("all=%v", s.All != nil), func(t *testing.T) {
			t.Parallel()
			explicit := s
			explicit.Type = all
			want, err := plannerAt(t0()).Plan(explicit, seedGroups(), statuses)
			require.NoError(t, err)
			got, err := plannerAt(t0()).Plan(s, seedGroups(), statuses)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Contains(t, names(got.ToRollout), "prod-cluster", "All starts every group")
		})
	}
}

func TestPlanOrder(t *testing.T) {
	t.Parallel()
	// Groups out of index order, clusters out of name order, names that
	// sort differently from the indices.
	groups := []grouping.Group{
		group("prod", 2, "b-prod", "a-prod"),
		group("dev", 0, "z-dev", "m-dev"),
		group("stg", 1, "y-stg"),
	}
	statuses := []rollout.ClusterStatus{
		status("y-stg", rollout.Progressing, at(-20*time.Minute)),
		status("a-prod", rollout.Failed, at(-time.Minute)),
		status("z-dev", rollout.Progressing, at(-30*time.Minute)),
		status("m-dev", rollout.Progressing, at(-16*time.Minute)),
	}
	res, err := plannerAt(t0()).Plan(strategy(all, cfg{deadline: "15m"}), groups, statuses)
	require.NoError(t, err)
	assert.Equal(t, []string{"a-prod Failed until 14m0s", "b-prod ToApply"}, brief(res.ToRollout))
	assert.Equal(t, []string{"m-dev TimeOut until -1m0s", "z-dev TimeOut until -15m0s", "y-stg TimeOut until -5m0s"}, brief(res.TimedOut))
	assert.Equal(t, []grouping.GroupKey{key("prod", 2), key("prod", 2)}, []grouping.GroupKey{res.ToRollout[0].Group, res.ToRollout[1].Group})
	assert.Equal(t, []string{"dev", "stg", "prod"}, []string{res.Groups[0].Name, res.Groups[1].Name, res.Groups[2].Name})
	assert.Equal(t, []string{"b-prod", "a-prod"}, groups[0].Clusters, "the caller's slice is not sorted in place")
}

func TestPlanMaxFailures(t *testing.T) {
	t.Parallel()
	hundred := clusters("c", 100)
	// ProgressivePerGroup: the budget is maxFailures of the group's size.
	perGroupCase := func(name string, mf intstr.IntOrString, size, failures int, breach bool) planCase {
		cs := clusters("c", size)
		next := []grouping.Group{group("a", 0, cs...), group("b", 1, "next")}
		list := []string{"next"}
		if breach {
			list = nil
		}
		return planCase{name: "ProgressivePerGroup/" + name, s: strategy(perGroup, cfg{deadline: "15m", maxFail: mf}),
			groups: next, statuses: append(each(cs[:failures], rollout.TimeOut, at(-time.Hour)), each(cs[failures:], rollout.Succeeded, at(-time.Hour))...),
			list: list, breach: breach}
	}
	tests := []planCase{
		perGroupCase("0 tolerates none", intstr.FromInt32(0), 3, 1, true),
		perGroupCase("int within budget", intstr.FromInt32(2), 5, 2, false),
		perGroupCase("int over budget", intstr.FromInt32(2), 5, 3, true),
		perGroupCase("7% of 100 is exactly 7: 7 tolerated", intstr.FromString("7%"), 100, 7, false),
		perGroupCase("7% of 100 is exactly 7: 8 breach", intstr.FromString("7%"), 100, 8, true),
		perGroupCase("50% of 3 is 2 (ceil)", intstr.FromString("50%"), 3, 2, false),
		perGroupCase("50% of 3 is 2: 3 breach", intstr.FromString("50%"), 3, 3, true),
		perGroupCase("1% of 1 is 1", intstr.FromString("1%"), 1, 1, false),
		perGroupCase("0% tolerates none", intstr.FromString("0%"), 4, 1, true),
		perGroupCase("100% tolerates the whole group", intstr.FromString("100%"), 4, 4, false),
		perGroupCase("an int above the group size means the whole group", intstr.FromInt32(10), 3, 3, false),
		{
			name:   "ProgressivePerGroup/Failed within the deadline is listed and counted",
			s:      strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(1)}),
			groups: []grouping.Group{group("a", 0, "a1", "a2", "a3"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Failed, at(-time.Minute)), status("a2", rollout.TimeOut, at(-time.Hour)),
				status("a3", rollout.Succeeded, at(-time.Hour))},
			list: []string{"a1"}, breach: true, recheck: 14 * time.Minute,
		},
		{
			name:     "ProgressivePerGroup/one Failed within budget does not hold the next group",
			s:        strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(1)}),
			groups:   []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Failed, at(-time.Minute)), status("a2", rollout.Succeeded, at(-time.Hour))},
			list:     []string{"a1", "b1"}, recheck: 14 * time.Minute,
		},
		{
			name:     "ProgressivePerGroup/failures of a group the walk has not reached count: a breach",
			s:        strategy(perGroup, cfg{deadline: "15m"}),
			groups:   []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("b1", rollout.TimeOut, at(-time.Hour))},
			breach:   true,
		},
		{
			name:   "ProgressivePerGroup/a Failed cluster of the active group counts at once, not at its deadline",
			s:      strategy(perGroup, cfg{deadline: "15m"}),
			groups: []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1", "b2"), group("c", 2, "c1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-time.Hour)), status("b1", rollout.Failed, at(-time.Minute)),
				status("b2", rollout.Progressing, at(-2*time.Minute))},
			list: []string{"b1", "b2"}, breach: true, recheck: 13 * time.Minute,
		},
		{
			name:   "ProgressivePerGroup/a breach while the walk stops earlier starts nothing, not even the group it stops at",
			s:      strategy(perGroup, cfg{deadline: "15m"}),
			groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1"), group("c", 2, "c1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-time.Minute)),
				status("c1", rollout.Failed, at(-time.Minute))},
			list: []string{"a1", "c1"}, breach: true, recheck: 14 * time.Minute,
		},
		{
			name:     "Progressive/7% of all 100 clusters: 7 tolerated",
			s:        strategy(progressive, cfg{maxFail: intstr.FromString("7%")}, concurrency(intstr.FromInt32(10))),
			groups:   []grouping.Group{group("a", 0, hundred[:50]...), group("b", 1, hundred[50:]...)},
			statuses: append(each(hundred[:4], rollout.TimeOut, at(-time.Hour)), each(hundred[50:53], rollout.TimeOut, at(-time.Hour))...),
			list:     hundred[4:14],
		},
		{
			name:     "Progressive/7% of all 100 clusters: 8 breach, counted across groups",
			s:        strategy(progressive, cfg{maxFail: intstr.FromString("7%")}, concurrency(intstr.FromInt32(10))),
			groups:   []grouping.Group{group("a", 0, hundred[:50]...), group("b", 1, hundred[50:]...)},
			statuses: append(each(hundred[:4], rollout.TimeOut, at(-time.Hour)), each(hundred[50:54], rollout.TimeOut, at(-time.Hour))...),
			breach:   true,
		},
		{
			name:     "Progressive/failures are counted even when the window is full",
			s:        strategy(progressive, cfg{deadline: "1h"}, concurrency(intstr.FromInt32(1))),
			groups:   []grouping.Group{group("a", 0, "a1", "a2", "a3")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-time.Minute)), status("a2", rollout.Failed, at(-time.Minute))},
			list:     []string{"a1", "a2"}, breach: true, recheck: 59 * time.Minute,
		},
		{
			name:     "Progressive/an int above the total tolerates every cluster",
			s:        strategy(progressive, cfg{maxFail: intstr.FromInt32(1000)}),
			groups:   []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.TimeOut, at(-time.Hour)), status("a2", rollout.TimeOut, at(-time.Hour))},
			list:     []string{"b1"},
		},
		{
			name:     "All/never a breach",
			s:        strategy(all, cfg{deadline: "1m", maxFail: intstr.FromInt32(0)}),
			groups:   []grouping.Group{group("a", 0, "a1", "a2", "a3")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.TimeOut, at(-time.Hour)), status("a2", rollout.Progressing, at(-time.Hour))},
			list:     []string{"a3"}, timed: []string{"a2"},
		},
	}
	runPlanCases(t, tests)
}

func TestPlanMaxConcurrency(t *testing.T) {
	t.Parallel()
	hundred := clusters("c", 100)
	eight := clusters("c", 8)
	one := []grouping.Group{group("g", 0, hundred...)}
	tests := []planCase{
		{name: "7% of 100 is exactly 7", s: strategy(progressive, cfg{}, concurrency(intstr.FromString("7%"))), groups: one, list: hundred[:7]},
		{name: "50% of 3 is 2 (ceil)", s: strategy(progressive, cfg{}, concurrency(intstr.FromString("50%"))),
			groups: []grouping.Group{group("g", 0, "a", "b", "c")}, list: []string{"a", "b"}},
		{name: "int", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(3))), groups: one, list: hundred[:3]},
		{name: "int above the remaining clusters means all", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(500))), groups: one, list: hundred},
		{name: "100%", s: strategy(progressive, cfg{}, concurrency(intstr.FromString("100%"))), groups: one, list: hundred},
		{name: "unset: all", s: strategy(progressive, cfg{}), groups: one, list: hundred},
		{name: "0: all", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(0))), groups: one, list: hundred},
		{name: "0%: all", s: strategy(progressive, cfg{}, concurrency(intstr.FromString("0%"))), groups: one, list: hundred},
		{name: "no progressive config: all", s: clusterv1alpha1.RolloutStrategy{Type: progressive}, groups: one, list: hundred},
		{name: "unset: DefaultConcurrency int", s: strategy(progressive, cfg{}), def: ptr(intstr.FromInt32(2)), groups: one, list: hundred[:2]},
		{name: "0: DefaultConcurrency percentage", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(0))), def: ptr(intstr.FromString("25%")),
			groups: []grouping.Group{group("g", 0, eight...)}, list: eight[:2]},
		{name: "0%: DefaultConcurrency", s: strategy(progressive, cfg{}, concurrency(intstr.FromString("0%"))), def: ptr(intstr.FromInt32(1)),
			groups: one, list: hundred[:1]},
		{name: "no progressive config: DefaultConcurrency", s: clusterv1alpha1.RolloutStrategy{Type: progressive}, def: ptr(intstr.FromInt32(4)),
			groups: one, list: hundred[:4]},
		{name: "a set maxConcurrency wins over DefaultConcurrency", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(3))), def: ptr(intstr.FromInt32(1)),
			groups: one, list: hundred[:3]},
		{name: "DefaultConcurrency 0%: all", s: strategy(progressive, cfg{}), def: ptr(intstr.FromString("0%")),
			groups: []grouping.Group{group("g", 0, eight...)}, list: eight},
		{name: "DefaultConcurrency does not apply to ProgressivePerGroup", s: strategy(perGroup, cfg{}), def: ptr(intstr.FromInt32(1)),
			groups: []grouping.Group{group("g", 0, eight...)}, list: eight},
		{name: "DefaultConcurrency does not apply to All", s: strategy(all, cfg{}), def: ptr(intstr.FromInt32(1)),
			groups: []grouping.Group{group("g", 0, eight...)}, list: eight},
		{name: "a percentage of the non-mandatory clusters only", s: strategy(progressive, cfg{}, concurrency(intstr.FromString("50%")), mandatory(byName("m"))),
			groups:   []grouping.Group{group("m", 0, "m1", "m2"), group("g", 1, eight...)},
			statuses: each([]string{"m1", "m2"}, rollout.Succeeded, at(-time.Hour)),
			list:     eight[:4]},
		{name: "free slots go by name across groups", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(2))),
			groups: []grouping.Group{group("x", 0, "b", "d"), group("y", 1, "a", "c")}, list: []string{"b", "a"}},
		{name: "in-flight clusters hold slots", s: strategy(progressive, cfg{deadline: "1h", maxFail: intstr.FromInt32(1)}, concurrency(intstr.FromInt32(3))),
			groups:   []grouping.Group{group("x", 0, "a", "b", "c", "d", "e")},
			statuses: []rollout.ClusterStatus{status("d", rollout.Progressing, at(-time.Minute)), status("e", rollout.Failed, at(-2*time.Minute))},
			list:     []string{"a", "d", "e"}, recheck: 58 * time.Minute},
		{name: "soaking clusters hold slots", s: strategy(progressive, cfg{soak: 5 * time.Minute, maxFail: intstr.FromInt32(1)}, concurrency(intstr.FromInt32(2))),
			groups:   []grouping.Group{group("x", 0, "a", "b", "c", "d")},
			statuses: []rollout.ClusterStatus{status("a", rollout.Succeeded, at(-time.Minute)), status("b", rollout.Succeeded, at(-10*time.Minute))},
			list:     []string{"a", "c"}, recheck: 4 * time.Minute},
		{name: "in-flight clusters beyond the window are still listed", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(2))),
			groups:   []grouping.Group{group("x", 0, "a", "b", "c"), group("y", 1, "d", "e")},
			statuses: each([]string{"b", "c", "e"}, rollout.Progressing, at(-time.Minute)),
			list:     []string{"b", "c", "e"}},
		{name: "a ToApply entry and no entry are alike", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(1))),
			groups:   []grouping.Group{group("x", 0, "a", "b")},
			statuses: []rollout.ClusterStatus{status("b", rollout.ToApply, at(-time.Minute))},
			list:     []string{"a"}},
		{name: "skipped and done clusters hold no slot", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(2))),
			groups:   []grouping.Group{group("x", 0, "a", "b", "c", "d")},
			statuses: []rollout.ClusterStatus{status("a", rollout.Skip, at(-time.Minute)), status("b", rollout.Succeeded, at(-time.Minute))},
			list:     []string{"c", "d"}},
	}
	runPlanCases(t, tests)
}

func TestPlanMandatory(t *testing.T) {
	t.Parallel()
	// canary appears twice: a name matches every group of that name.
	groups := []grouping.Group{group("dev", 0, "d1"), group("canary", 1, "c1"), group("stg", 2, "s1"), group("canary", 3, "c3")}
	done := func(cs ...string) []rollout.ClusterStatus { return each(cs, rollout.Succeeded, at(-time.Hour)) }
	tests := []planCase{
		{name: "ProgressivePerGroup/by name: the first group of that name first",
			s: strategy(perGroup, cfg{}, mandatory(byName("canary"))), groups: groups, list: []string{"c1"}},
		{name: "ProgressivePerGroup/by name: every group of that name before the others",
			s: strategy(perGroup, cfg{}, mandatory(byName("canary"))), groups: groups, statuses: done("c1"), list: []string{"c3"}},
		{name: "ProgressivePerGroup/then the others in index order",
			s: strategy(perGroup, cfg{}, mandatory(byName("canary"))), groups: groups, statuses: done("c1", "c3"), list: []string{"d1"}},
		{name: "ProgressivePerGroup/by index",
			s: strategy(perGroup, cfg{}, mandatory(byIndex(2))), groups: groups, list: []string{"s1"}},
		{name: "ProgressivePerGroup/several entries walk in index order",
			s: strategy(perGroup, cfg{}, mandatory(byIndex(3), byIndex(2))), groups: groups, statuses: done("s1"), list: []string{"c3"}},
		{name: "ProgressivePerGroup/the name wins over the index",
			s: strategy(perGroup, cfg{}, mandatory(clusterv1alpha1.MandatoryDecisionGroup{GroupName: "stg", GroupIndex: 0})), groups: groups, list: []string{"s1"}},
		{name: "ProgressivePerGroup/a name that matches nothing is ignored",
			s: strategy(perGroup, cfg{}, mandatory(byName("qa"))), groups: groups, list: []string{"d1"}},
		{name: "ProgressivePerGroup/budget 0 in a mandatory group",
			s: strategy(perGroup, cfg{maxFail: intstr.FromString("100%")}, mandatory(byName("stg"))), groups: groups,
			statuses: []rollout.ClusterStatus{status("s1", rollout.TimeOut, at(-time.Hour))}, breach: true},
		{name: "ProgressivePerGroup/the same failure in a non-mandatory group is tolerated",
			s: strategy(perGroup, cfg{maxFail: intstr.FromString("100%")}, mandatory(byName("canary"))), groups: groups,
			statuses: append(done("c1", "c3"), status("d1", rollout.TimeOut, at(-time.Hour))), list: []string{"s1"}},
		{name: "ProgressivePerGroup/a Failed mandatory cluster breaches and stays listed",
			s: strategy(perGroup, cfg{deadline: "1h", maxFail: intstr.FromInt32(5)}, mandatory(byIndex(0))), groups: groups,
			statuses: []rollout.ClusterStatus{status("d1", rollout.Failed, at(-time.Minute))}, list: []string{"d1"}, breach: true, recheck: 59 * time.Minute},
		{name: "Progressive/mandatory first",
			s: strategy(progressive, cfg{}, mandatory(byName("stg"))), groups: groups, list: []string{"s1"}},
		{name: "Progressive/mandatory groups one after another",
			s: strategy(progressive, cfg{}, mandatory(byName("stg"), byName("dev"))), groups: groups, statuses: done("d1"), list: []string{"s1"}},
		{name: "Progressive/then the window",
			s: strategy(progressive, cfg{}, mandatory(byName("stg")), concurrency(intstr.FromInt32(2))), groups: groups, statuses: done("s1"),
			list: []string{"c1", "c3"}},
		{name: "Progressive/non-mandatory in-flight clusters are listed but do not hold the mandatory walk",
			s: strategy(progressive, cfg{}, mandatory(byName("stg"), byName("dev"))), groups: groups,
			statuses: append(done("d1"), status("c3", rollout.Progressing, at(-time.Minute))), list: []string{"s1", "c3"}},
		{name: "Progressive/a failure in a later mandatory group halts while the first still rolls",
			s: strategy(progressive, cfg{deadline: "1h", maxFail: intstr.FromString("100%")}, mandatory(byIndex(0), byIndex(2))), groups: groups,
			statuses: []rollout.ClusterStatus{status("d1", rollout.Progressing, at(-time.Minute)), status("s1", rollout.TimeOut, at(-time.Hour))},
			list:     []string{"d1"}, breach: true, recheck: 59 * time.Minute},
		{name: "Progressive/failures over the fleet's budget halt during the mandatory phase",
			s: strategy(progressive, cfg{deadline: "1h"}, mandatory(byIndex(0))), groups: groups,
			statuses: []rollout.ClusterStatus{status("d1", rollout.Progressing, at(-time.Minute)), status("c3", rollout.Failed, at(-time.Minute))},
			list:     []string{"d1", "c3"}, breach: true, recheck: 59 * time.Minute},
		{name: "Progressive/a mandatory failure halts",
			s: strategy(progressive, cfg{maxFail: intstr.FromString("100%")}, mandatory(byIndex(0))), groups: groups,
			statuses: []rollout.ClusterStatus{status("d1", rollout.TimeOut, at(-time.Hour))}, breach: true},
		{name: "Progressive/a soaking mandatory cluster holds the others",
			s: strategy(progressive, cfg{soak: 5 * time.Minute}, mandatory(byIndex(0))), groups: groups,
			statuses: []rollout.ClusterStatus{status("d1", rollout.Succeeded, at(-time.Minute))}, list: []string{"d1"}, recheck: 4 * time.Minute},
	}
	runPlanCases(t, tests)
}

func TestPlanPerGroupWalk(t *testing.T) {
	t.Parallel()
	s := strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "15m"})
	g := []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1"), group("c", 2, "c1")}
	tests := []planCase{
		{name: "the first group always starts", s: s, groups: g, list: []string{"a1", "a2"}},
		{name: "a group in flight holds the next", s: s, groups: g,
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-time.Hour)), status("a2", rollout.Progressing, at(-time.Minute))},
			list:     []string{"a2"}, recheck: 14 * time.Minute},
		{name: "a soaking group holds the next", s: s, groups: g,
			statuses: each([]string{"a1", "a2"}, rollout.Succeeded, at(-2*time.Minute)),
			list:     []string{"a1", "a2"}, recheck: 3 * time.Minute},
		{name: "a group done releases the next", s: s, groups: g,
			statuses: each([]string{"a1", "a2"}, rollout.Succeeded, at(-5*time.Minute)),
			list:     []string{"b1"}},
		{name: "skipped clusters are done", s: s, groups: g,
			statuses: []rollout.ClusterStatus{status("a1", rollout.Skip, t0()), status("a2", rollout.Succeeded, at(-time.Hour)), status("b1", rollout.Skip, t0())},
			list:     []string{"c1"}},
		{name: "a started cluster of a later group is never abandoned", s: s, groups: g,
			statuses: []rollout.ClusterStatus{status("c1", rollout.Progressing, at(-time.Minute))},
			list:     []string{"a1", "a2", "c1"}, recheck: 14 * time.Minute},
		{name: "a cluster in flight in a later group holds the walk", s: s, groups: g,
			statuses: append(each([]string{"a1", "a2"}, rollout.Succeeded, at(-time.Hour)), status("c1", rollout.Progressing, at(-time.Minute))),
			list:     []string{"c1"}, recheck: 14 * time.Minute},
		{name: "a timeout here breaches; nothing new starts", s: s, groups: g,
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-20*time.Minute)), status("a2", rollout.Progressing, at(-time.Minute))},
			list:     []string{"a2"}, timed: []string{"a1"}, breach: true, recheck: 14 * time.Minute},
		{name: "a breach does not list the breached group's untouched clusters", s: s, groups: g,
			statuses: []rollout.ClusterStatus{status("a1", rollout.TimeOut, at(-20*time.Minute))},
			breach:   true},
		{name: "empty groups are passed", s: s, groups: []grouping.Group{group("a", 0), group("b", 1, "b1")}, list: []string{"b1"}},
		{name: "nothing left: nothing listed", s: s, groups: g,
			statuses: each([]string{"a1", "a2", "b1", "c1"}, rollout.Succeeded, at(-time.Hour))},
		{name: "no groups at all", s: s},
	}
	runPlanCases(t, tests)
}

func TestPlanRecheckAfter(t *testing.T) {
	t.Parallel()
	g := []grouping.Group{group("a", 0, "a1", "a2", "a3", "a4", "a5")}
	tests := []planCase{
		{name: "the smallest of soak ends and deadlines", s: strategy(all, cfg{deadline: "15m"}), groups: g,
			statuses: []rollout.ClusterStatus{
				status("a1", rollout.Progressing, at(-5*time.Minute)),
				status("a2", rollout.Failed, at(-12*time.Minute)),
				status("a3", rollout.Progressing, at(-20*time.Minute)),
				status("a4", rollout.Succeeded, at(-time.Hour)),
			}, list: []string{"a1", "a2", "a5"}, timed: []string{"a3"}, recheck: 3 * time.Minute},
		{name: "soak end nearer than a deadline", s: strategy(progressive, cfg{soak: 2 * time.Minute, deadline: "15m"}), groups: g,
			statuses: []rollout.ClusterStatus{
				status("a1", rollout.Progressing, at(-5*time.Minute)),
				status("a2", rollout.Succeeded, at(-90*time.Second)),
			}, list: []string{"a1", "a2", "a3", "a4", "a5"}, recheck: 30 * time.Second},
		{name: "zero when nothing is timed", s: strategy(perGroup, cfg{}), groups: g,
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-5*time.Minute))},
			list:     []string{"a1", "a2", "a3", "a4", "a5"}},
		{name: "zero when all is done", s: strategy(perGroup, cfg{soak: time.Minute, deadline: "1m"}), groups: g,
			statuses: each([]string{"a1", "a2", "a3", "a4", "a5"}, rollout.Succeeded, at(-time.Hour))},
		{name: "a deadline that passed does not count", s: strategy(all, cfg{deadline: "1m"}), groups: g,
			statuses: each([]string{"a1", "a2", "a3", "a4", "a5"}, rollout.Progressing, at(-time.Hour)),
			timed:    []string{"a1", "a2", "a3", "a4", "a5"}},
	}
	runPlanCases(t, tests)
}
