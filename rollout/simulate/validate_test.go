package simulate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

func TestRunValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  simulate.Options
		fleet simulate.Fleet
		want  []string // one line of the error each, in order
	}{
		{
			name:  "negative apply duration",
			fleet: simulate.Fleet{Groups: seedGroups(), Behaviors: map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: -time.Second}}},
			want:  []string{`fleet.Behaviors[stg-cluster].ApplyDuration: Invalid value: "-1s": want a non-negative duration`},
		},
		{
			name:  "unknown cluster",
			fleet: simulate.Fleet{Groups: seedGroups(), Behaviors: map[string]simulate.Behavior{"qa-cluster": {}}},
			want:  []string{`fleet.Behaviors[qa-cluster]: Not found: "qa-cluster": want a cluster of one of fleet.Groups`},
		},
		{
			name: "recovery without failure, fail and silent, recovery before the failure",
			fleet: simulate.Fleet{Groups: seedGroups(), Behaviors: map[string]simulate.Behavior{
				"dev-cluster":  {RecoverAfter: time.Minute},
				"prod-cluster": {Fail: true, Silent: true},
				"stg-cluster":  {Fail: true, ApplyDuration: 2 * time.Minute, RecoverAfter: 2 * time.Minute},
			}},
			want: []string{
				`fleet.Behaviors[dev-cluster].RecoverAfter: Invalid value: "1m0s": want 0 unless Fail or Silent is set: only a failing or silent cluster recovers`,
				`fleet.Behaviors[prod-cluster].Silent: Invalid value: true: want false when Fail is set: a silent cluster never reports a failure`,
				`fleet.Behaviors[stg-cluster].RecoverAfter: Invalid value: "2m0s": want more than ApplyDuration (2m0s): the cluster fails first, then recovers`,
			},
		},
		{
			name:  "default behaviour, limit and plan cap",
			opts:  simulate.Options{Strategy: seedStrategy(), Limit: -time.Hour, MaxPlans: -1},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: simulate.Behavior{Silent: true, RecoverAfter: -time.Minute}},
			want: []string{
				`opts.Limit: Invalid value: "-1h0m0s": want a non-negative duration (0: 30 days)`,
				`opts.MaxPlans: Invalid value: -1: want a non-negative number of planner calls (0: the default)`,
				`fleet.Default.RecoverAfter: Invalid value: "-1m0s": want a non-negative duration`,
			},
		},
		{
			name: "the planner's checks: strategy, default concurrency, groups",
			opts: simulate.Options{Strategy: perGroup(0, "15x", intstr.FromInt32(0)),
				Planner: rollout.Planner{DefaultConcurrency: ptr(intstr.FromString("150%"))}},
			fleet: simulate.Fleet{Groups: []grouping.Group{
				{GroupKey: grouping.GroupKey{Name: "a", Index: 0}, Clusters: []string{"x"}},
				{GroupKey: grouping.GroupKey{Name: "b", Index: 1}, Clusters: []string{"x"}},
			}, Behaviors: map[string]simulate.Behavior{"x": {Fail: true}}},
			want: []string{
				`opts.Strategy.progressivePerGroup.progressDeadline: Invalid value: "15x": want "None" or a non-negative duration such as "90s" or "1h30m"`,
				`opts.Planner.DefaultConcurrency: Invalid value: "150%": want a non-negative integer or a percentage 0%-100%`,
				`fleet.Groups[1].Clusters[0]: Duplicate value: "x": want each cluster in one group, not in both a#0 and b#1`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := simulate.Run(tt.opts, tt.fleet)
			require.Error(t, err)
			assert.Equal(t, tt.want, strings.Split(err.Error(), "\n"))
			assert.Zero(t, r)
			var got []string
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				fe, ok := e.(*field.Error)
				require.True(t, ok, "%q is not a *field.Error", e)
				got = append(got, fe.Error())
			}
			assert.Equal(t, tt.want, got, "one flat join of *field.Error")
		})
	}
}

func TestRunDoesNotModifyInputs(t *testing.T) {
	t.Parallel()
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "b", Index: 1}, Clusters: []string{"z", "y"}},
		{GroupKey: grouping.GroupKey{Name: "a", Index: 0}, Clusters: []string{"c", "a", "b"}},
	}
	behaviors := map[string]simulate.Behavior{"y": {Fail: true, ApplyDuration: time.Minute, RecoverAfter: time.Hour}}
	opts := simulate.Options{Strategy: progressive(time.Minute, "30m", intstr.FromInt32(1), intstr.FromInt32(2))}
	r, err := simulate.Run(opts, simulate.Fleet{Groups: groups, Behaviors: behaviors})
	require.NoError(t, err)
	assert.Equal(t, simulate.Completed, r.Outcome, r.Timeline())
	assert.Equal(t, []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "b", Index: 1}, Clusters: []string{"z", "y"}},
		{GroupKey: grouping.GroupKey{Name: "a", Index: 0}, Clusters: []string{"c", "a", "b"}},
	}, groups)
	assert.Equal(t, map[string]simulate.Behavior{"y": {Fail: true, ApplyDuration: time.Minute, RecoverAfter: time.Hour}}, behaviors)
	assert.Nil(t, opts.Planner.Clock, "the caller's planner keeps its clock")
	// A window of 2 in name order, whatever the input order; y's failure
	// (within maxFailures 1) holds its slot until the deadline or recovery.
	assert.Equal(t, []string{"00:00 Applied a", "00:00 Applied b", "01:00 Applied c", "01:00 Applied y", "02:00 Applied z"}, appliedOnly(r))
}
