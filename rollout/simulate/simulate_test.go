package simulate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// seedUntilStg is the seed's timeline until stg starts: dev applies in 2m,
// then soaks for 5m.
func seedUntilStg() []string {
	return []string{
		"00:00 GroupStarted dev",
		"00:00 Applied dev-cluster",
		"00:00 Progressing dev-cluster",
		"02:00 Succeeded dev-cluster",
		"07:00 GroupCompleted dev",
		"07:00 GroupStarted stg",
		"07:00 Applied stg-cluster",
		"07:00 Progressing stg-cluster",
	}
}

// stgRecoversAt37 is the rest of the seed's timeline once a timed-out
// stg-cluster recovers at +37:00: the breach clears, stg soaks 5m, prod runs.
func stgRecoversAt37() []string {
	return []string{
		"37:00 Recovered stg-cluster",
		"37:00 BreachCleared stg",
		"42:00 GroupCompleted stg",
		"42:00 GroupStarted prod",
		"42:00 Applied prod-cluster",
		"42:00 Progressing prod-cluster",
		"44:00 Succeeded prod-cluster",
		"49:00 GroupCompleted prod",
	}
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestRun(t *testing.T) {
	t.Parallel()
	twoMin := apply(2 * time.Minute)
	tests := []struct {
		name    string
		opts    simulate.Options
		fleet   simulate.Fleet
		outcome simulate.Outcome
		reason  string
		end     time.Duration
		events  []string // compact; nil: not checked
		check   func(t *testing.T, r simulate.Result)
	}{
		{
			name:    "seed: dev, stg, prod one after the other, each after the previous soak",
			opts:    simulate.Options{Strategy: seedStrategy()},
			fleet:   simulate.Fleet{Groups: seedGroups(), Default: twoMin},
			outcome: simulate.Completed,
			reason:  "completed: all 3 groups complete",
			end:     21 * time.Minute,
			events: join(seedUntilStg(), []string{
				"09:00 Succeeded stg-cluster",
				"14:00 GroupCompleted stg",
				"14:00 GroupStarted prod",
				"14:00 Applied prod-cluster",
				"14:00 Progressing prod-cluster",
				"16:00 Succeeded prod-cluster",
				"21:00 GroupCompleted prod",
			}),
			check: func(t *testing.T, r simulate.Result) {
				at := func(m int) time.Time { return r.Start.Add(time.Duration(m) * time.Minute) }
				assert.Equal(t, []simulate.GroupTimes{
					{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Started: at(0), Finished: at(7)},
					{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Started: at(7), Finished: at(14)},
					{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Started: at(14), Finished: at(21)},
				}, r.Groups)
				// A step at every transition and soak end, and a second call
				// at each start, once the new cluster reports Progressing.
				assert.Equal(t, 10, r.Plans)
				assert.Equal(t, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), r.Start, "zero Start: the documented epoch")
			},
		},
		{
			// A Failed cluster counts against its group's budget at once
			// (docs/semantics.md §3.5): the breach is at the failure, and the
			// time-out 15m later changes nothing.
			name:    "seed: stg fails, the rollout halts at once, and stg times out 15m after it failed",
			opts:    simulate.Options{Strategy: seedStrategy()},
			fleet:   simulate.Fleet{Groups: seedGroups(), Default: twoMin, Behaviors: map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: 2 * time.Minute, Fail: true}}},
			outcome: simulate.Halted,
			reason:  `halted: group "stg": 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 00:24:00`,
			end:     24 * time.Minute,
			events: join(seedUntilStg(), []string{
				"09:00 Failed stg-cluster",
				"09:00 Breach stg",
				"24:00 TimedOut stg-cluster",
			}),
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, "Failed since +09:00, past the progressDeadline", eventsOf(r, simulate.TimedOut)[0].Detail)
				assert.True(t, r.Groups[2].Started.IsZero(), "prod never starts")
				assert.True(t, r.Groups[1].Finished.IsZero(), "stg never finishes")
			},
		},
		{
			name:    "seed: stg never reports and times out at its deadline",
			opts:    simulate.Options{Strategy: seedStrategy()},
			fleet:   simulate.Fleet{Groups: seedGroups(), Default: twoMin, Behaviors: map[string]simulate.Behavior{"stg-cluster": {Silent: true}}},
			outcome: simulate.Halted,
			reason:  `halted: group "stg": 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 00:22:00`,
			end:     22 * time.Minute,
			events:  join(seedUntilStg(), []string{"22:00 TimedOut stg-cluster", "22:00 Breach stg"}),
		},
		{
			name: "seed: stg times out, recovers later, and the rollout resumes after its soak",
			opts: simulate.Options{Strategy: seedStrategy()},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"stg-cluster": {Silent: true, RecoverAfter: 30 * time.Minute}}},
			outcome: simulate.Completed,
			reason:  "completed: all 3 groups complete",
			end:     49 * time.Minute,
			events: join(seedUntilStg(), []string{
				"22:00 TimedOut stg-cluster",
				"22:00 Breach stg",
			}, stgRecoversAt37()),
		},
		{
			name: "seed: stg fails, recovers, and the rollout resumes",
			opts: simulate.Options{Strategy: seedStrategy()},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: 2 * time.Minute, Fail: true, RecoverAfter: 30 * time.Minute}}},
			outcome: simulate.Completed,
			end:     49 * time.Minute,
			events: join(seedUntilStg(), []string{
				"09:00 Failed stg-cluster",
				"09:00 Breach stg",
				"24:00 TimedOut stg-cluster",
			}, stgRecoversAt37()),
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, "from Failed", eventsOf(r, simulate.Recovered)[0].Detail)
			},
		},
		{
			// Progressing past the deadline times out; failing later restarts
			// the deadline from the failure. The Failed cluster is in flight
			// again, and still a failure, which counts at every call
			// (docs/semantics.md §3.5): the breach holds through the second
			// time-out.
			name: "seed: stg times out, then fails, then times out again",
			opts: simulate.Options{Strategy: seedStrategy()},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: 20 * time.Minute, Fail: true}}},
			outcome: simulate.Halted,
			end:     42 * time.Minute,
			events: join(seedUntilStg(), []string{
				"22:00 TimedOut stg-cluster",
				"22:00 Breach stg",
				"27:00 Failed stg-cluster",
				"42:00 TimedOut stg-cluster",
			}),
		},
		{
			name: "a deadline of 0s: a time-out at the apply, and another when the cluster fails",
			opts: simulate.Options{Strategy: perGroup(0, "0s", intstr.FromInt32(0))},
			fleet: simulate.Fleet{Groups: seedGroups()[:1],
				Behaviors: map[string]simulate.Behavior{"dev-cluster": {ApplyDuration: 2 * time.Minute, Fail: true}}},
			outcome: simulate.Halted,
			end:     2 * time.Minute,
			events: []string{
				"00:00 GroupStarted dev", "00:00 Applied dev-cluster", "00:00 Progressing dev-cluster",
				"00:00 TimedOut dev-cluster", "00:00 Breach dev",
				"02:00 Failed dev-cluster", "02:00 TimedOut dev-cluster",
			},
		},
		{
			name: "two groups named dev: the reason tells them apart by index",
			opts: simulate.Options{Strategy: seedStrategy()},
			fleet: simulate.Fleet{Behaviors: map[string]simulate.Behavior{"b": {Silent: true}}, Groups: []grouping.Group{
				{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"a"}},
				{GroupKey: grouping.GroupKey{Name: "dev", Index: 1}, Clusters: []string{"b"}},
			}},
			outcome: simulate.Halted,
			reason:  `halted: group "dev" #1: 1 failed or timed out, maxFailures allows 0 in this group: "b" timed out at 00:20:00`,
			end:     20 * time.Minute,
			check: func(t *testing.T, r simulate.Result) {
				assert.Contains(t, r.Timeline(), "+05:00 applied b (dev#1)\n")
			},
		},
		{
			name:    "an unnamed group that never finishes",
			opts:    simulate.Options{Strategy: all("None")},
			fleet:   simulate.Fleet{Default: simulate.Behavior{Silent: true}, Groups: []grouping.Group{{GroupKey: grouping.GroupKey{Index: 3}, Clusters: []string{"x"}}}},
			outcome: simulate.Stuck,
			reason:  `stuck: unnamed group #3: rolling out: 1 progressing; "x" progressing, no deadline`,
		},
		{
			name: "seed: maxFailures 1 tolerates stg's time-out and prod starts",
			opts: simulate.Options{Strategy: perGroup(5*time.Minute, "15m", intstr.FromInt32(1))},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"stg-cluster": {Silent: true}}},
			outcome: simulate.Completed,
			reason:  "completed: all 3 groups complete, 1 cluster(s) timed out within maxFailures",
			end:     29 * time.Minute,
			events: join(seedUntilStg(), []string{
				"22:00 TimedOut stg-cluster",
				"22:00 GroupCompleted stg",
				"22:00 GroupStarted prod",
				"22:00 Applied prod-cluster",
				"22:00 Progressing prod-cluster",
				"24:00 Succeeded prod-cluster",
				"29:00 GroupCompleted prod",
			}),
		},
		{
			name: "silent cluster with no deadline: stuck",
			opts: simulate.Options{Strategy: perGroup(5*time.Minute, "None", intstr.FromInt32(0))},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"dev-cluster": {Silent: true}}},
			outcome: simulate.Stuck,
			reason:  `stuck: group "dev": rolling out: 1 progressing; "dev-cluster" progressing, no deadline`,
			end:     0,
			events:  seedUntilStg()[:3],
		},
		{
			name: "mandatory group first: prod, then dev and stg",
			opts: simulate.Options{Strategy: perGroup(5*time.Minute, "15m", intstr.FromInt32(0),
				clusterv1alpha1.MandatoryDecisionGroup{GroupName: "prod"})},
			fleet:   simulate.Fleet{Groups: seedGroups(), Default: twoMin},
			outcome: simulate.Completed,
			end:     21 * time.Minute,
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, []string{"00:00 Applied prod-cluster", "07:00 Applied dev-cluster", "14:00 Applied stg-cluster"}, appliedOnly(r))
			},
		},
		{
			name: "Progressive: a window of 2, filled in name order across groups after each soak",
			opts: simulate.Options{Strategy: progressive(time.Minute, "15m", intstr.FromInt32(0), intstr.FromInt32(2))},
			fleet: simulate.Fleet{Default: twoMin, Groups: []grouping.Group{
				{GroupKey: grouping.GroupKey{Name: "g0", Index: 0}, Clusters: []string{"a", "c", "e"}},
				{GroupKey: grouping.GroupKey{Name: "g1", Index: 1}, Clusters: []string{"b", "d"}},
			}},
			outcome: simulate.Completed,
			end:     9 * time.Minute,
			events: []string{
				"00:00 GroupStarted g0", "00:00 Applied a", "00:00 Progressing a",
				"00:00 GroupStarted g1", "00:00 Applied b", "00:00 Progressing b",
				"02:00 Succeeded a", "02:00 Succeeded b",
				"03:00 Applied c", "03:00 Progressing c", "03:00 Applied d", "03:00 Progressing d",
				"05:00 Succeeded c", "05:00 Succeeded d",
				"06:00 GroupCompleted g1", "06:00 Applied e", "06:00 Progressing e",
				"08:00 Succeeded e",
				"09:00 GroupCompleted g0",
			},
		},
		{
			name: "Progressive: the planner's default concurrency when maxConcurrency is unset",
			opts: simulate.Options{Strategy: progressive(0, "15m", intstr.FromInt32(0), intstr.IntOrString{}),
				Planner: rollout.Planner{DefaultConcurrency: ptr(intstr.FromString("50%"))}},
			fleet: simulate.Fleet{Default: twoMin, Groups: []grouping.Group{
				{GroupKey: grouping.GroupKey{Index: 0}, Clusters: []string{"a", "b", "c", "d"}},
			}},
			outcome: simulate.Completed,
			end:     4 * time.Minute,
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, []string{"00:00 Applied a", "00:00 Applied b", "02:00 Applied c", "02:00 Applied d"}, appliedOnly(r))
			},
		},
		{
			name: "Progressive: a mandatory canary, then everything else at once",
			opts: simulate.Options{Strategy: progressive(time.Minute, "15m", intstr.FromInt32(0), intstr.IntOrString{},
				clusterv1alpha1.MandatoryDecisionGroup{GroupName: "canary"})},
			fleet: simulate.Fleet{Default: twoMin, Groups: []grouping.Group{
				{GroupKey: grouping.GroupKey{Name: "g", Index: 0}, Clusters: []string{"a", "b"}},
				{GroupKey: grouping.GroupKey{Name: "canary", Index: 1}, Clusters: []string{"canary-1"}},
			}},
			outcome: simulate.Completed,
			end:     6 * time.Minute,
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, []string{"00:00 Applied canary-1", "03:00 Applied a", "03:00 Applied b"}, appliedOnly(r))
			},
		},
		{
			name: "Progressive: a failure over maxFailures stops new starts; the rollout halts at the deadline",
			opts: simulate.Options{Strategy: progressive(0, "10m", intstr.FromInt32(0), intstr.FromInt32(2))},
			fleet: simulate.Fleet{Default: twoMin, Behaviors: map[string]simulate.Behavior{"a": {ApplyDuration: time.Minute, Fail: true}},
				Groups: []grouping.Group{{GroupKey: grouping.GroupKey{Name: "g", Index: 0}, Clusters: []string{"a", "b", "c", "d"}}}},
			outcome: simulate.Halted,
			reason:  `halted: group "g": 1 failed or timed out, 1 failed or timed out in the rollout, maxFailures allows 0: "a" timed out at 00:11:00`,
			end:     11 * time.Minute,
			events: []string{
				"00:00 GroupStarted g", "00:00 Applied a", "00:00 Progressing a", "00:00 Applied b", "00:00 Progressing b",
				"01:00 Failed a", "01:00 Breach g",
				"02:00 Succeeded b",
				"11:00 TimedOut a",
			},
		},
		{
			name: "All: everything at once, no soak, a time-out is no breach",
			opts: simulate.Options{Strategy: all("15m")},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: 2 * time.Minute, Fail: true}}},
			outcome: simulate.Completed,
			reason:  "completed: all 3 groups complete, 1 cluster(s) timed out within maxFailures",
			end:     17 * time.Minute,
			events: []string{
				"00:00 GroupStarted dev", "00:00 Applied dev-cluster", "00:00 Progressing dev-cluster",
				"00:00 GroupStarted stg", "00:00 Applied stg-cluster", "00:00 Progressing stg-cluster",
				"00:00 GroupStarted prod", "00:00 Applied prod-cluster", "00:00 Progressing prod-cluster",
				"02:00 Succeeded dev-cluster", "02:00 Failed stg-cluster", "02:00 Succeeded prod-cluster",
				"02:00 GroupCompleted dev", "02:00 GroupCompleted prod",
				"17:00 TimedOut stg-cluster", "17:00 GroupCompleted stg",
			},
		},
		{
			name: "All: a failed cluster with no deadline is stuck",
			opts: simulate.Options{Strategy: all("")},
			fleet: simulate.Fleet{Groups: seedGroups(), Default: twoMin,
				Behaviors: map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: 2 * time.Minute, Fail: true}}},
			outcome: simulate.Stuck,
			reason:  `stuck: group "stg": rolling out: 1 failed (retrying until the deadline); "stg-cluster" failed, no deadline`,
			end:     2 * time.Minute,
		},
		{
			name: "approval gate without prod: held before prod, stuck",
			opts: simulate.Options{Strategy: seedStrategy(), Planner: rollout.Planner{Gates: []rollout.Gate{
				rollout.Approval(grouping.GroupKey{Name: "dev"}, grouping.GroupKey{Name: "stg"})}}},
			fleet:   simulate.Fleet{Groups: seedGroups(), Default: twoMin},
			outcome: simulate.Stuck,
			reason:  `stuck: group "prod": held: waiting for approval of group "prod"`,
			end:     14 * time.Minute,
			events:  join(seedUntilStg(), []string{"09:00 Succeeded stg-cluster", "14:00 GroupCompleted stg", "14:00 GateHeld prod"}),
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, `waiting for approval of group "prod"`, eventsOf(r, simulate.GateHeld)[0].Detail)
			},
		},
		{
			name:    "empty fleet: complete at once",
			opts:    simulate.Options{Strategy: seedStrategy()},
			outcome: simulate.Completed,
			reason:  "completed: no group to roll out",
			check: func(t *testing.T, r simulate.Result) {
				assert.Empty(t, r.Events)
				assert.Equal(t, 1, r.Plans)
			},
		},
		{
			name:    "a group with no clusters completes without starting",
			opts:    simulate.Options{Strategy: seedStrategy()},
			fleet:   simulate.Fleet{Groups: []grouping.Group{{}}},
			outcome: simulate.Completed,
			reason:  "completed: the group is complete",
			events:  []string{"00:00 GroupCompleted "},
			check: func(t *testing.T, r simulate.Result) {
				assert.True(t, r.Groups[0].Started.IsZero())
				assert.Equal(t, r.Start, r.Groups[0].Finished)
			},
		},
		{
			name:    "zero apply duration and soak: the next group starts at the same instant",
			opts:    simulate.Options{Strategy: perGroup(0, "15m", intstr.FromInt32(0))},
			fleet:   simulate.Fleet{Groups: seedGroups()},
			outcome: simulate.Completed,
			end:     0,
			check: func(t *testing.T, r simulate.Result) {
				assert.Equal(t, []string{"00:00 Applied dev-cluster", "00:00 Applied stg-cluster", "00:00 Applied prod-cluster"}, appliedOnly(r))
				assert.Equal(t, "00:00 GroupCompleted dev", compact(r)[4], "dev completes before stg starts")
			},
		},
		{
			name: "gate that asks to be rechecked every second: the planner-call cap ends it",
			opts: simulate.Options{Strategy: seedStrategy(), MaxPlans: 50, Planner: rollout.Planner{Gates: []rollout.Gate{
				rollout.GateFunc(func(grouping.GroupKey, time.Time) rollout.Admission {
					return rollout.Admission{Reason: "never", RecheckAfter: time.Second}
				})}}},
			fleet:   simulate.Fleet{Groups: seedGroups()},
			outcome: simulate.TimeLimit,
			reason:  `time limit: gave up after 50 planner calls: group "dev": held: never`,
			end:     50 * time.Second,
			events:  []string{"00:00 GateHeld dev"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := simulate.Run(tt.opts, tt.fleet)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, r.Outcome, r.Timeline())
			if tt.reason != "" {
				assert.Equal(t, tt.reason, r.Reason)
			}
			assert.Equal(t, tt.end, r.End.Sub(r.Start), "end")
			if tt.events != nil {
				assert.Equal(t, tt.events, compact(r))
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// appliedOnly is compact(r) restricted to Applied events.
func appliedOnly(r simulate.Result) []string {
	var out []string
	for _, e := range eventsOf(r, simulate.Applied) {
		out = append(out, mmss(e.At.Sub(r.Start))+" Applied "+e.Cluster)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
