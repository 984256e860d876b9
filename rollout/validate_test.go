package rollout_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Wants of the field errors, as the planner words them.
const (
	wantPortion  = `want a non-negative integer or a percentage 0%-100%`
	wantDeadline = `want "None" or a non-negative duration such as "90s" or "1h30m"`
)

// messages splits a joined error (joins may nest, and an object may name
// them once, as in "window gate: ...") into its messages, checking that
// each part is a *field.Error. A part named by an object is given with the
// object's name before it.
func messages(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, p := range j.Unwrap() {
			out = append(out, messages(t, p)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		object, ok := strings.CutSuffix(err.Error(), inner.Error())
		require.True(t, ok, "%q does not end with the error it wraps", err.Error())
		var out []string
		for _, m := range messages(t, inner) {
			out = append(out, object+m)
		}
		return out
	}
	var fe *field.Error
	if assert.True(t, errors.As(err, &fe), "%q is not a *field.Error", err.Error()) {
		assert.Equal(t, err.Error(), fe.Error())
	}
	return []string{err.Error()}
}

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    clusterv1alpha1.RolloutStrategy
	}{
		{"zero value (All)", clusterv1alpha1.RolloutStrategy{}},
		{"All without config", clusterv1alpha1.RolloutStrategy{Type: all}},
		{"Progressive without config", clusterv1alpha1.RolloutStrategy{Type: progressive}},
		{"ProgressivePerGroup without config", clusterv1alpha1.RolloutStrategy{Type: perGroup}},
		{"None", strategy(perGroup, cfg{deadline: "None"})},
		{"90s", strategy(perGroup, cfg{deadline: "90s"})},
		{"1h30m", strategy(progressive, cfg{deadline: "1h30m"})},
		{"0s", strategy(all, cfg{deadline: "0s"})},
		{"bare 0", strategy(all, cfg{deadline: "0"})},
		{"maxFailures int", strategy(perGroup, cfg{maxFail: intstr.FromInt32(3)})},
		{"maxFailures 0%", strategy(perGroup, cfg{maxFail: intstr.FromString("0%")})},
		{"maxFailures 100%", strategy(perGroup, cfg{maxFail: intstr.FromString("100%")})},
		{"maxConcurrency 7%", strategy(progressive, cfg{}, concurrency(intstr.FromString("7%")))},
		{"maxConcurrency int", strategy(progressive, cfg{}, concurrency(intstr.FromInt32(100_000)))},
		{"mandatory by name", strategy(perGroup, cfg{}, mandatory(byName("dev")))},
		{"mandatory by index 0", strategy(progressive, cfg{}, mandatory(byIndex(0)))},
		{"mandatory with a name and a negative index", strategy(progressive, cfg{}, mandatory(clusterv1alpha1.MandatoryDecisionGroup{GroupName: "dev", GroupIndex: -1}))},
		{"soak and deadline", strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "15m"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.NoError(t, rollout.Validate(tt.s))
		})
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    clusterv1alpha1.RolloutStrategy
		want []string
	}{
		{"unknown type", clusterv1alpha1.RolloutStrategy{Type: "Canary"},
			[]string{`type: Unsupported value: "Canary": supported values: "All", "Progressive", "ProgressivePerGroup"`}},
		{"type in the wrong case", clusterv1alpha1.RolloutStrategy{Type: "all"},
			[]string{`type: Unsupported value: "all": supported values: "All", "Progressive", "ProgressivePerGroup"`}},
		{"bad duration", strategy(perGroup, cfg{deadline: "15x"}),
			[]string{`progressivePerGroup.progressDeadline: Invalid value: "15x": ` + wantDeadline}},
		{"negative duration", strategy(progressive, cfg{deadline: "-5m"}),
			[]string{`progressive.progressDeadline: Invalid value: "-5m": ` + wantDeadline}},
		{"lowercase none", strategy(all, cfg{deadline: "none"}),
			[]string{`all.progressDeadline: Invalid value: "none": ` + wantDeadline}},
		{"negative soak", strategy(progressive, cfg{soak: -time.Minute}),
			[]string{`progressive.minSuccessTime: Invalid value: "-1m0s": want a non-negative duration`}},
		{"negative soak for All", strategy(all, cfg{soak: -time.Minute}),
			[]string{`all.minSuccessTime: Invalid value: "-1m0s": want a non-negative duration`}},
		{"negative int maxFailures", strategy(perGroup, cfg{maxFail: intstr.FromInt32(-1)}),
			[]string{`progressivePerGroup.maxFailures: Invalid value: -1: ` + wantPortion}},
		{"150% maxFailures", strategy(all, cfg{maxFail: intstr.FromString("150%")}),
			[]string{`all.maxFailures: Invalid value: "150%": ` + wantPortion}},
		{"abc maxFailures", strategy(perGroup, cfg{maxFail: intstr.FromString("abc")}),
			[]string{`progressivePerGroup.maxFailures: Invalid value: "abc": ` + wantPortion}},
		{"150% maxConcurrency", strategy(progressive, cfg{}, concurrency(intstr.FromString("150%"))),
			[]string{`progressive.maxConcurrency: Invalid value: "150%": ` + wantPortion}},
		{"negative maxConcurrency", strategy(progressive, cfg{}, concurrency(intstr.FromInt32(-3))),
			[]string{`progressive.maxConcurrency: Invalid value: -3: ` + wantPortion}},
		{"mandatory entry with neither name nor index", strategy(perGroup, cfg{}, mandatory(byName("dev"), byIndex(-2))),
			[]string{`progressivePerGroup.mandatoryDecisionGroups[1].groupIndex: Invalid value: -2: want a group index >= 0 or a groupName`}},
		{"every problem at once, in field order", strategy(progressive, cfg{soak: -time.Second, deadline: "soon", maxFail: intstr.FromString("abc")},
			concurrency(intstr.FromString("150%")), mandatory(byIndex(-1))),
			[]string{
				`progressive.maxConcurrency: Invalid value: "150%": ` + wantPortion,
				`progressive.minSuccessTime: Invalid value: "-1s": want a non-negative duration`,
				`progressive.progressDeadline: Invalid value: "soon": ` + wantDeadline,
				`progressive.maxFailures: Invalid value: "abc": ` + wantPortion,
				`progressive.mandatoryDecisionGroups[0].groupIndex: Invalid value: -1: want a group index >= 0 or a groupName`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := rollout.Validate(tt.s)
			require.Error(t, err)
			assert.Equal(t, tt.want, messages(t, err))

			// Plan reports the same problems and does no work.
			p := plannerAt(t0(), rollout.GateFunc(func(grouping.GroupKey, time.Time) rollout.Admission {
				t.Errorf("a gate was consulted although the strategy is invalid")
				return rollout.Admission{Admitted: true}
			}))
			res, err := p.Plan(tt.s, seedGroups(), nil)
			assert.Equal(t, tt.want, messages(t, err))
			assert.Equal(t, rollout.Result{}, res)
		})
	}
}

// TestPlanRejectsInputs checks that Plan validates its inputs before any
// work and reports every problem at once, each naming the field, the value
// and the expectation.
func TestPlanRejectsInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		planner  rollout.Planner
		s        clusterv1alpha1.RolloutStrategy
		groups   []grouping.Group
		statuses []rollout.ClusterStatus
		want     []string
	}{
		{
			name:     "a duplicate status for one cluster",
			groups:   seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, t0()), status("dev-cluster", rollout.Succeeded, t0())},
			want:     []string{`statuses[1].Cluster: Duplicate value: "dev-cluster": want one status per cluster (statuses[0] has it too)`},
		},
		{
			name:   "three statuses for one cluster",
			groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("stg-cluster", rollout.Progressing, t0()), status("dev-cluster", rollout.Progressing, t0()),
				status("stg-cluster", rollout.Failed, t0()), status("stg-cluster", rollout.Skip, t0())},
			want: []string{
				`statuses[2].Cluster: Duplicate value: "stg-cluster": want one status per cluster (statuses[0] has it too)`,
				`statuses[3].Cluster: Duplicate value: "stg-cluster": want one status per cluster (statuses[0] has it too)`,
			},
		},
		{
			name:     "a duplicate status for a removed cluster",
			groups:   seedGroups(),
			statuses: []rollout.ClusterStatus{status("gone", rollout.Succeeded, t0()), status("gone", rollout.Succeeded, t0())},
			want:     []string{`statuses[1].Cluster: Duplicate value: "gone": want one status per cluster (statuses[0] has it too)`},
		},
		{
			name:   "a status value outside the six is an error, not Progressing",
			groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, t0()), status("stg-cluster", rollout.Status(42), t0()),
				status("prod-cluster", rollout.Status(-1), t0())},
			want: []string{
				`statuses[1].Status: Invalid value: 42: want one of ToApply, Progressing, Succeeded, Failed, TimeOut or Skip, for cluster "stg-cluster"`,
				`statuses[2].Status: Invalid value: -1: want one of ToApply, Progressing, Succeeded, Failed, TimeOut or Skip, for cluster "prod-cluster"`,
			},
		},
		{
			name:     "an unknown status value of a removed cluster",
			groups:   seedGroups(),
			statuses: []rollout.ClusterStatus{status("gone", rollout.Status(6), t0())},
			want:     []string{`statuses[0].Status: Invalid value: 6: want one of ToApply, Progressing, Succeeded, Failed, TimeOut or Skip, for cluster "gone"`},
		},
		{
			name:   "a cluster in two groups",
			groups: []grouping.Group{group("stg", 1, "a", "b"), group("dev", 0, "a")},
			want:   []string{`groups[0].Clusters[0]: Duplicate value: "a": want each cluster in one group, not in both dev#0 and stg#1`},
		},
		{
			name:   "a cluster twice in one group, named where the caller listed it",
			groups: []grouping.Group{group("dev", 0, "b", "a", "b")},
			want:   []string{`groups[0].Clusters[2]: Duplicate value: "b": want each cluster once in its group, not twice in dev#0`},
		},
		{
			name:   "an empty cluster name in a group",
			groups: []grouping.Group{group("dev", 0, "a", "")},
			want:   []string{`groups[0].Clusters[1]: Required value: a cluster name`},
		},
		{
			name:     "an empty cluster name in a status",
			groups:   seedGroups(),
			statuses: []rollout.ClusterStatus{status("", rollout.Succeeded, t0())},
			want:     []string{`statuses[0].Cluster: Required value: a cluster name`},
		},
		{
			name:   "duplicate group indices",
			groups: []grouping.Group{group("dev", 0, "a"), group("stg", 1, "b"), group("prod", 1, "c")},
			want:   []string{`groups[2].Index: Duplicate value: 1: want a unique group index (groups[1], "stg", has it too)`},
		},
		{
			name:    "bad DefaultConcurrency",
			planner: rollout.Planner{DefaultConcurrency: ptr(intstr.FromString("150%"))},
			s:       strategy(progressive, cfg{}),
			groups:  seedGroups(),
			want:    []string{`Planner.DefaultConcurrency: Invalid value: "150%": ` + wantPortion},
		},
		{
			name:    "negative DefaultConcurrency is refused for any type",
			planner: rollout.Planner{DefaultConcurrency: ptr(intstr.FromInt32(-1))},
			s:       strategy(perGroup, cfg{}),
			groups:  seedGroups(),
			want:    []string{`Planner.DefaultConcurrency: Invalid value: -1: ` + wantPortion},
		},
		{
			name:     "everything at once: strategy, planner, groups, statuses",
			planner:  rollout.Planner{DefaultConcurrency: ptr(intstr.FromString("abc"))},
			s:        strategy(progressive, cfg{deadline: "15x"}),
			groups:   []grouping.Group{group("dev", 0, "a"), group("stg", 1, "a", "")},
			statuses: []rollout.ClusterStatus{status("a", rollout.Progressing, t0()), status("a", rollout.Succeeded, t0())},
			want: []string{
				`progressive.progressDeadline: Invalid value: "15x": ` + wantDeadline,
				`Planner.DefaultConcurrency: Invalid value: "abc": ` + wantPortion,
				`groups[1].Clusters[1]: Required value: a cluster name`,
				`groups[1].Clusters[0]: Duplicate value: "a": want each cluster in one group, not in both dev#0 and stg#1`,
				`statuses[1].Cluster: Duplicate value: "a": want one status per cluster (statuses[0] has it too)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.planner
			p.Clock = plannerAt(t0()).Clock
			p.Gates = []rollout.Gate{rollout.GateFunc(func(grouping.GroupKey, time.Time) rollout.Admission {
				t.Errorf("a gate was consulted although the inputs are invalid")
				return rollout.Admission{Admitted: true}
			})}
			res, err := p.Plan(tt.s, tt.groups, tt.statuses)
			require.Error(t, err)
			var fe *field.Error
			require.ErrorAs(t, err, &fe, "errors.As finds a *field.Error in the joined error")
			assert.Equal(t, tt.want[0], fe.Error())
			assert.Equal(t, tt.want, messages(t, err))
			assert.Equal(t, rollout.Result{}, res)
		})
	}
}

func ptr[T any](v T) *T { return &v }
