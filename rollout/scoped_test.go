package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// admitOnly is a gate that admits the groups named and holds the others
// with reason, to be answered again after recheck.
func admitOnly(reason string, recheck time.Duration, names ...string) rollout.Gate {
	return rollout.GateFunc(func(g grouping.GroupKey, _ time.Time) rollout.Admission {
		for _, n := range names {
			if g.Name == n {
				return rollout.Admission{Admitted: true}
			}
		}
		return rollout.Admission{Reason: reason, RecheckAfter: recheck}
	})
}

func TestRequireApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		need     []string
		approved []grouping.GroupKey
		group    grouping.GroupKey
		want     rollout.Admission
	}{
		{name: "a group not listed is admitted", need: []string{"prod"}, group: key("stg", 1),
			want: rollout.Admission{Admitted: true}},
		{name: "a listed group is held", need: []string{"prod"}, group: key("prod", 2),
			want: rollout.Admission{Reason: `waiting for approval of group "prod"`}},
		{name: "approved by name", need: []string{"prod"}, approved: []grouping.GroupKey{{Name: "prod"}}, group: key("prod", 2),
			want: rollout.Admission{Admitted: true}},
		{name: "approved by name and index", need: []string{"prod"}, approved: []grouping.GroupKey{{Name: "prod", Index: 2}}, group: key("prod", 2),
			want: rollout.Admission{Admitted: true}},
		{name: "an approval of another group approves nothing", need: []string{"prod"}, approved: []grouping.GroupKey{{Name: "stg"}},
			group: key("prod", 2), want: rollout.Admission{Reason: `waiting for approval of group "prod"`}},
		{name: "every group of a listed name", need: []string{"prod"}, group: key("prod", 7),
			want: rollout.Admission{Reason: `waiting for approval of group "prod"`}},
		{name: "an empty name lists nothing: the unnamed group is admitted", need: []string{""}, group: key("", 0),
			want: rollout.Admission{Admitted: true}},
		{name: "nothing listed", group: key("prod", 2), want: rollout.Admission{Admitted: true}},
		{name: "several listed", need: []string{"stg", "prod"}, approved: []grouping.GroupKey{{Name: "stg"}}, group: key("stg", 1),
			want: rollout.Admission{Admitted: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, rollout.RequireApproval(tt.need, tt.approved...).Admit(tt.group, t0()))
		})
	}
}

func TestForGroups(t *testing.T) {
	t.Parallel()
	freeze := holdAll("change freeze", 30*time.Minute)
	tests := []struct {
		name   string
		groups []string
		group  grouping.GroupKey
		want   rollout.Admission
	}{
		{name: "a named group is asked", groups: []string{"prod"}, group: key("prod", 2),
			want: rollout.Admission{Reason: "change freeze", RecheckAfter: 30 * time.Minute}},
		{name: "another group is admitted", groups: []string{"prod"}, group: key("stg", 1),
			want: rollout.Admission{Admitted: true}},
		{name: "the unnamed group is admitted", groups: []string{"prod"}, group: key("", 3),
			want: rollout.Admission{Admitted: true}},
		{name: "no names: every group is asked", group: key("stg", 1),
			want: rollout.Admission{Reason: "change freeze", RecheckAfter: 30 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, rollout.ForGroups(tt.groups, freeze).Admit(tt.group, t0()))
		})
	}
}

func TestAnyOf(t *testing.T) {
	t.Parallel()
	m := time.Minute
	admit := admitOnly("", 0, "dev", "stg", "prod")
	tests := []struct {
		name  string
		gates []rollout.Scoped
		group grouping.GroupKey
		want  rollout.Admission
	}{
		{name: "one that applies admits: admitted",
			gates: []rollout.Scoped{{Gate: holdAll("window A", 10*m)}, {Gate: admit}}, group: key("prod", 2),
			want: rollout.Admission{Admitted: true}},
		{name: "all that apply hold: their reasons, the nearest recheck",
			gates: []rollout.Scoped{{Gate: holdAll("window A", 10*m)}, {Gate: holdAll("window B", 5*m)}}, group: key("prod", 2),
			want: rollout.Admission{Reason: "window A; window B", RecheckAfter: 5 * m}},
		{name: "a gate that names another group does not apply",
			gates: []rollout.Scoped{{Groups: []string{"prod"}, Gate: holdAll("prod window", 10*m)}, {Groups: []string{"stg"}, Gate: admit}},
			group: key("prod", 2),
			want:  rollout.Admission{Reason: "prod window", RecheckAfter: 10 * m}},
		{name: "a group none applies to is admitted",
			gates: []rollout.Scoped{{Groups: []string{"prod"}, Gate: holdAll("prod window", 10*m)}}, group: key("dev", 0),
			want: rollout.Admission{Admitted: true}},
		{name: "no gates", group: key("dev", 0), want: rollout.Admission{Admitted: true}},
		{name: "a nil gate applies to nothing",
			gates: []rollout.Scoped{{}, {Groups: []string{"dev"}, Gate: holdAll("dev window", 0)}}, group: key("dev", 0),
			want: rollout.Admission{Reason: "dev window"}},
		{name: "a recheck of 0 is no recheck",
			gates: []rollout.Scoped{{Gate: holdAll("a", 0)}, {Gate: holdAll("b", 3*m)}}, group: key("dev", 0),
			want: rollout.Admission{Reason: "a; b", RecheckAfter: 3 * m}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, rollout.AnyOf(tt.gates...).Admit(tt.group, t0()))
		})
	}
}

// TestPlanRequireApproval: the approval gate holds prod only; an approval
// of prod starts it.
func TestPlanRequireApproval(t *testing.T) {
	t.Parallel()
	s := strategy(perGroup, cfg{soak: 5 * time.Minute})
	tests := []struct {
		name     string
		approved []grouping.GroupKey
		statuses []rollout.ClusterStatus
		starting []string
		phases   []string
		prod     string
	}{
		{name: "dev is not held", starting: []string{"dev-cluster"},
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"}},
		{name: "stg is not held",
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour))},
			starting: []string{"stg-cluster"}, phases: []string{"dev Complete", "stg Active", "prod Waiting"}},
		{name: "prod is held",
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour)), status("stg-cluster", rollout.Succeeded, at(-time.Hour))},
			phases:   []string{"dev Complete", "stg Complete", "prod Blocked"}, prod: `held: waiting for approval of group "prod"`},
		{name: "an approval of stg does not start prod", approved: []grouping.GroupKey{{Name: "stg"}},
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour)), status("stg-cluster", rollout.Succeeded, at(-time.Hour))},
			phases:   []string{"dev Complete", "stg Complete", "prod Blocked"}, prod: `held: waiting for approval of group "prod"`},
		{name: "prod approved starts", approved: []grouping.GroupKey{{Name: "prod"}},
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour)), status("stg-cluster", rollout.Succeeded, at(-time.Hour))},
			starting: []string{"prod-cluster"}, phases: []string{"dev Complete", "stg Complete", "prod Active"}, prod: "rolling out: 1 starting now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0(), rollout.RequireApproval([]string{"prod"}, tt.approved...)).Plan(s, seedGroups(), tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.starting, names(res.Starting()))
			assert.Equal(t, tt.phases, phases(res.Groups))
			if tt.prod != "" {
				assert.Equal(t, tt.prod, reasons(res.Groups)["prod"])
			}
		})
	}
}

// TestPlanForGroups: a gate scoped to prod holds prod and lets the other
// groups start, under each strategy.
func TestPlanForGroups(t *testing.T) {
	t.Parallel()
	gate := rollout.ForGroups([]string{"prod"}, rollout.Paused("prod freeze"))
	tests := []struct {
		kind     clusterv1alpha1.RolloutType
		statuses []rollout.ClusterStatus
		starting []string
		phases   []string
	}{
		{kind: all, starting: []string{"dev-cluster", "stg-cluster"}, phases: []string{"dev Active", "stg Active", "prod Blocked"}},
		{kind: progressive, starting: []string{"dev-cluster", "stg-cluster"}, phases: []string{"dev Active", "stg Active", "prod Blocked"}},
		{kind: perGroup, starting: []string{"dev-cluster"}, phases: []string{"dev Active", "stg Waiting", "prod Waiting"}},
		{kind: perGroup, statuses: []rollout.ClusterStatus{
			status("dev-cluster", rollout.Succeeded, at(-time.Hour)), status("stg-cluster", rollout.Succeeded, at(-time.Hour))},
			phases: []string{"dev Complete", "stg Complete", "prod Blocked"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+"/"+strings.Join(tt.phases, ","), func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0(), gate).Plan(strategy(tt.kind, cfg{}), seedGroups(), tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.starting, names(res.Starting()))
			assert.Equal(t, tt.phases, phases(res.Groups))
			for _, g := range res.Groups {
				if g.Phase == rollout.Blocked {
					assert.Equal(t, "held: rollout paused: prod freeze", g.Reason)
				}
			}
		})
	}
}

// TestPlanAnyOfWindows: two windows for prod combine by OR: prod starts
// inside either, and while outside both it is held until the nearer
// opens. t0 is Monday 12:00 UTC.
func TestPlanAnyOfWindows(t *testing.T) {
	t.Parallel()
	noon, err := rollout.WindowOf([]string{"Mon"}, "11:00", "13:00", "UTC")
	require.NoError(t, err)
	afternoon, err := rollout.WindowOf([]string{"Mon-Fri"}, "14:00", "15:00", "UTC")
	require.NoError(t, err)
	gate := rollout.AnyOf(rollout.Scoped{Groups: []string{"prod"}, Gate: noon}, rollout.Scoped{Groups: []string{"prod"}, Gate: afternoon})
	done := []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour)), status("stg-cluster", rollout.Succeeded, at(-time.Hour))}
	tests := []struct {
		name     string
		now      time.Time
		starting []string
		recheck  time.Duration
		reason   string
	}{
		{name: "inside the first", now: t0(), starting: []string{"prod-cluster"}},
		{name: "between them", now: at(90 * time.Minute), recheck: 30 * time.Minute,
			reason: "held: outside the time window Mon 11:00-13:00 UTC; it opens Mon 2026-12-07 11:00 UTC; " +
				"outside the time window Mon,Tue,Wed,Thu,Fri 14:00-15:00 UTC; it opens Mon 2026-11-30 14:00 UTC"},
		{name: "inside the second", now: at(150 * time.Minute), starting: []string{"prod-cluster"}},
		{name: "after both", now: at(4 * time.Hour), recheck: 22 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(tt.now, gate).Plan(strategy(perGroup, cfg{}), seedGroups(), done)
			require.NoError(t, err)
			assert.Equal(t, tt.starting, names(res.Starting()))
			assert.Equal(t, tt.recheck, res.RecheckAfter)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, reasons(res.Groups)["prod"])
			}
		})
	}
}

// TestPlanHeldBy: Wait.HeldBy are the indices in Planner.Gates of the
// gates that hold a group, and of those that hold the group another waits
// for; admitting gates and nil gates are not in it.
func TestPlanHeldBy(t *testing.T) {
	t.Parallel()
	gates := []rollout.Gate{
		admitOnly("", 0, "dev", "stg", "prod"),                 // 0: admits all
		rollout.ForGroups([]string{"stg"}, rollout.Paused("")), // 1: holds stg
		nil,                                      // 2
		rollout.RequireApproval([]string{"stg"}), // 3: holds stg
		rollout.RequireApproval([]string{"prod"}), // 4: holds prod
		holdAll("", 0), // 5: holds all, with no reason
	}
	tests := []struct {
		name     string
		kind     clusterv1alpha1.RolloutType
		statuses []rollout.ClusterStatus
		want     map[string]rollout.Wait
	}{
		{
			name: "ProgressivePerGroup: the held group and the ones after it", kind: perGroup,
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour))},
			want: map[string]rollout.Wait{
				"stg": {Kind: rollout.WaitGate, HeldBy: []int{1, 3, 5},
					Gates: []string{"rollout paused", `waiting for approval of group "stg"`}},
				"prod": {Kind: rollout.WaitGroup, Group: key("stg", 1), HeldBy: []int{1, 3, 5},
					Gates: []string{"rollout paused", `waiting for approval of group "stg"`}},
			},
		},
		{
			name: "Progressive: each group by its own gates", kind: progressive,
			want: map[string]rollout.Wait{
				"dev":  {Kind: rollout.WaitGate, HeldBy: []int{5}, Gates: []string{"a gate holds the group"}},
				"stg":  {Kind: rollout.WaitGate, HeldBy: []int{1, 3, 5}, Gates: []string{"rollout paused", `waiting for approval of group "stg"`}},
				"prod": {Kind: rollout.WaitGate, HeldBy: []int{4, 5}, Gates: []string{`waiting for approval of group "prod"`}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0(), gates...).Plan(strategy(tt.kind, cfg{}), seedGroups(), tt.statuses)
			require.NoError(t, err)
			for _, g := range res.Groups {
				if want, ok := tt.want[g.Name]; ok {
					assert.Equal(t, want, g.Wait, g.Name)
				}
			}
		})
	}
}

// TestSummary: a group's Summary is its Reason with absolute times and no
// countdown, the same at any time while nothing but the time changes.
func TestSummary(t *testing.T) {
	t.Parallel()
	m := time.Minute
	s := strategy(perGroup, cfg{soak: 5 * m, deadline: "15m"})
	tests := []struct {
		name     string
		statuses []rollout.ClusterStatus
		gates    []rollout.Gate
		group    string
		summary  string
	}{
		{name: "waiting for a soak", group: "stg",
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-m))},
			summary:  `waiting for group "dev": "dev-cluster" soaking until 2026-11-30 12:04:00`},
		{name: "soaking", group: "dev",
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-m))},
			summary:  `rolling out: 1 soaking; "dev-cluster" soaking until 2026-11-30 12:04:00`},
		{name: "progressing", group: "prod",
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-m))},
			summary:  `waiting for group "dev": "dev-cluster" progressing, deadline 2026-11-30 12:14:00`},
		{name: "held by a window", group: "dev", gates: []rollout.Gate{mustWindowOf(t, []string{"Tue"}, "09:00", "17:00", "UTC")},
			summary: "held: outside the time window Tue 09:00-17:00 UTC; it opens Tue 2026-12-01 09:00 UTC"},
		{name: "complete", group: "dev",
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour))},
			summary:  "complete: 1 succeeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// two calls, a minute apart, inside the same soak, deadline and window
			var summaries []string
			for _, now := range []time.Time{t0(), at(m + 30*time.Second)} {
				res, err := plannerAt(now, tt.gates...).Plan(s, seedGroups(), tt.statuses)
				require.NoError(t, err)
				for _, g := range res.Groups {
					if g.Name == tt.group {
						summaries = append(summaries, g.Summary())
						assert.NotContains(t, g.Summary(), "left")
					}
				}
			}
			require.Len(t, summaries, 2)
			assert.Equal(t, tt.summary, summaries[0])
			assert.Equal(t, summaries[0], summaries[1], "the summary does not change with time alone")
		})
	}
}

func mustWindowOf(t *testing.T, days []string, start, end, zone string) rollout.Gate {
	t.Helper()
	g, err := rollout.WindowOf(days, start, end, zone)
	require.NoError(t, err)
	return g
}
