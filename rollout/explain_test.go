package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestGroupsCounts(t *testing.T) {
	t.Parallel()
	m := time.Minute
	s := strategy(perGroup, cfg{soak: 5 * m, deadline: "15m", maxFail: intstr.FromString("100%")})
	groups := []grouping.Group{
		group("a", 0, "u1", "u2", "p", "f", "s", "ok", "to", "tx", "sk"),
		group("b", 1, "b1"),
		group("c", 2),
	}
	statuses := []rollout.ClusterStatus{
		status("u2", rollout.ToApply, at(-m)),
		status("p", rollout.Progressing, at(-m)),
		status("f", rollout.Failed, at(-m)),
		status("s", rollout.Succeeded, at(-m)),
		status("ok", rollout.Succeeded, at(-time.Hour)),
		status("to", rollout.TimeOut, at(-time.Hour)),
		status("tx", rollout.Progressing, at(-time.Hour)),
		status("sk", rollout.Skip, at(-m)),
	}
	res, err := plannerAt(t0()).Plan(s, groups, statuses)
	require.NoError(t, err)
	assert.Equal(t, []rollout.GroupProgress{
		{
			GroupKey: key("a", 0), Phase: rollout.Active, Size: 9,
			Counts:   rollout.Counts{ToApply: 2, Progressing: 1, Soaking: 1, Succeeded: 1, Failed: 1, TimedOut: 2, Skipped: 1},
			Starting: 2, MaxFailures: 9,
			InFlight: rollout.ClusterRef{Name: "f", Status: rollout.Failed, Until: at(14 * m), Others: 2},
			Reason:   `rolling out: 2 starting now, 1 progressing, 1 failed (retrying until the deadline), 1 soaking, 1 succeeded; "f" failed, deadline 12:14:00 (14m0s left) (and 2 more)`,
		},
		{
			GroupKey: key("b", 1), Phase: rollout.Waiting, Size: 1, Counts: rollout.Counts{ToApply: 1}, MaxFailures: 1,
			Wait: rollout.Wait{Kind: rollout.WaitGroup, Group: key("a", 0),
				Cluster: rollout.ClusterRef{Name: "p", Status: rollout.Progressing, Until: at(14 * m)}, Until: at(14 * m)},
			Reason: `waiting for group "a": "p" progressing, deadline 12:14:00 (14m0s left)`,
		},
		{
			GroupKey: key("c", 2), Phase: rollout.Complete, Size: 0,
			Reason: "complete: no clusters",
		},
	}, res.Groups)
}

func TestGroupsMandatory(t *testing.T) {
	t.Parallel()
	groups := []grouping.Group{group("dev", 0, "d1"), group("canary", 1, "c1"), group("stg", 2, "s1"), group("canary", 3, "c3")}
	for _, kind := range []clusterv1alpha1.RolloutType{progressive, perGroup} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0()).Plan(strategy(kind, cfg{}, mandatory(byName("canary"), byIndex(2))), groups, nil)
			require.NoError(t, err)
			var got []bool
			for _, g := range res.Groups {
				got = append(got, g.Mandatory)
			}
			assert.Equal(t, []bool{false, true, true, true}, got)
		})
	}
}

func TestGroupsPhasesAndReasons(t *testing.T) {
	t.Parallel()
	m := time.Minute
	tests := []struct {
		name     string
		s        clusterv1alpha1.RolloutStrategy
		groups   []grouping.Group
		statuses []rollout.ClusterStatus
		now      time.Time
		phases   []string
		reasons  map[string]string
	}{
		{
			name:   "complete with skipped and tolerated timeouts; an active group retrying a failure",
			s:      strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(1)}),
			groups: []grouping.Group{group("a", 0, "a1", "a2", "a3"), group("e", 1), group("b", 2, "b1", "b2", "b3", "b4")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-m)), status("a2", rollout.Skip, at(-m)),
				status("a3", rollout.TimeOut, at(-m)), status("b1", rollout.Failed, at(-m))},
			phases: []string{"a Complete", "e Complete", "b Active"},
			reasons: map[string]string{
				"a": "complete: 1 succeeded, 1 skipped, 1 timed out (within maxFailures)",
				"e": "complete: no clusters",
				"b": `rolling out: 1 failed (retrying until the deadline), 3 not started; waiting for "b1" failed, deadline 12:14:00 (14m0s left)`,
			},
		},
		{
			name:     "a mandatory group breached",
			s:        strategy(perGroup, cfg{}, mandatory(byName("canary"))),
			groups:   []grouping.Group{group("dev", 0, "d1"), group("canary", 1, "c1", "c2")},
			statuses: []rollout.ClusterStatus{status("c1", rollout.TimeOut, at(-m)), status("c2", rollout.Progressing, at(-m))},
			phases:   []string{"dev Waiting", "canary Breached"},
			reasons: map[string]string{
				"dev":    "halted: the failure budget is exceeded, nothing new starts",
				"canary": `halted: 1 failed or timed out, a mandatory group tolerates none: "c1" timed out`,
			},
		},
		{
			name:   "waiting for a mandatory group",
			s:      strategy(perGroup, cfg{}, mandatory(byName("canary"))),
			groups: []grouping.Group{group("dev", 0, "d1"), group("canary", 1, "c1", "c2")},
			phases: []string{"dev Waiting", "canary Active"},
			reasons: map[string]string{
				"dev":    `waiting for mandatory group "canary": "c1" starting now`,
				"canary": "rolling out: 2 starting now",
			},
		},
		{
			name:   "a cluster that joins a group in flight waits for it: the reason names it and its deadline",
			s:      strategy(perGroup, cfg{deadline: "15m"}),
			groups: []grouping.Group{group("dev", 0, "dev-1"), group("stg", 1, "stg-1", "stg-2"), group("prod", 2, "prod-1")},
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-time.Hour)),
				status("stg-1", rollout.Progressing, at(-m))},
			phases: []string{"dev Complete", "stg Active", "prod Waiting"},
			reasons: map[string]string{
				"stg":  `rolling out: 1 progressing, 1 not started; waiting for "stg-1" progressing, deadline 12:14:00 (14m0s left)`,
				"prod": `waiting for group "stg": "stg-1" progressing, deadline 12:14:00 (14m0s left)`,
			},
		},
		{
			name:   "a cluster that joins a soaking group waits for the end of the soak",
			s:      strategy(perGroup, cfg{soak: 5 * m, deadline: "15m"}),
			groups: []grouping.Group{group("dev", 0, "dev-1"), group("stg", 1, "stg-1", "stg-2", "stg-3")},
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-time.Hour)),
				status("stg-1", rollout.Succeeded, at(-m)), status("stg-2", rollout.Succeeded, at(-2*m))},
			phases: []string{"dev Complete", "stg Active"},
			reasons: map[string]string{
				"stg": `rolling out: 2 soaking, 1 not started; waiting for "stg-1" soaking until 12:04:00 (4m0s left) (and 1 more)`,
			},
		},
		{
			name:   "the clusters not started wait for a cluster of an earlier group",
			s:      strategy(perGroup, cfg{soak: 5 * m}),
			groups: []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1", "b2")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-m)),
				status("b1", rollout.Progressing, at(-m))},
			phases: []string{"a Active", "b Active"},
			reasons: map[string]string{
				"b": `rolling out: 1 progressing, 1 not started; "b1" progressing, no deadline; waiting for group "a": "a1" soaking until 12:04:00 (4m0s left)`,
			},
		},
		{
			name:   "a breach elsewhere: the clusters not started are halted, the ones in flight carry on",
			s:      strategy(perGroup, cfg{deadline: "15m"}),
			groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-m)),
				status("b1", rollout.TimeOut, at(-time.Hour))},
			phases: []string{"a Active", "b Breached"},
			reasons: map[string]string{
				"a": `rolling out: 1 progressing, 1 not started; "a1" progressing, deadline 12:14:00 (14m0s left); halted: the failure budget is exceeded, nothing new starts`,
				"b": `halted: 1 failed or timed out, maxFailures allows 0 in this group: "b1" timed out`,
			},
		},
		{
			name:   "a Failed cluster of the active group breaches at once",
			s:      strategy(perGroup, cfg{deadline: "15m"}),
			groups: []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1", "b2"), group("c", 2, "c1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-time.Hour)),
				status("b1", rollout.Failed, at(-m)), status("b2", rollout.Progressing, at(-m))},
			phases: []string{"a Complete", "b Breached", "c Waiting"},
			reasons: map[string]string{
				"b": `halted: 1 failed or timed out, maxFailures allows 0 in this group: "b1" failed, deadline 12:14:00 (14m0s left)`,
				"c": "halted: the failure budget is exceeded, nothing new starts",
			},
		},
		{
			name:   "Progressive: an active group waits for the mandatory phase",
			s:      strategy(progressive, cfg{}, mandatory(byName("canary"))),
			groups: []grouping.Group{group("a", 0, "a1", "a2"), group("canary", 1, "c1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-m)),
				status("c1", rollout.Progressing, at(-m))},
			phases: []string{"a Active", "canary Active"},
			reasons: map[string]string{
				"a": `rolling out: 1 progressing, 1 not started; "a1" progressing, no deadline; waiting for mandatory group "canary": "c1" progressing, no deadline`,
			},
		},
		{
			name:     "a later group in flight holds the walk",
			s:        strategy(perGroup, cfg{}),
			groups:   []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1"), group("c", 2, "c1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-m)), status("c1", rollout.Progressing, at(-m))},
			phases:   []string{"a Complete", "b Waiting", "c Active"},
			reasons: map[string]string{
				"b": `waiting for group "c": "c1" progressing, no deadline`,
				"c": `rolling out: 1 progressing; "c1" progressing, no deadline`,
			},
		},
		{
			name:     "unnamed groups",
			s:        strategy(perGroup, cfg{}),
			groups:   []grouping.Group{group("", 0, "a1"), group("", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-m))},
			phases:   []string{" Active", " Waiting"},
		},
		{
			name:     "a deadline after midnight carries its date",
			s:        strategy(perGroup, cfg{deadline: "15m"}),
			groups:   []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, time.Date(2026, 11, 30, 23, 50, 0, 0, time.UTC))},
			now:      time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC),
			phases:   []string{"a Active", "b Waiting"},
			reasons: map[string]string{
				"b": `waiting for group "a": "a1" progressing, deadline 2026-12-01 00:05:00 (10m0s left)`,
			},
		},
		{
			name:   "Progressive: a full window",
			s:      strategy(progressive, cfg{maxFail: intstr.FromInt32(5)}, concurrency(intstr.FromInt32(2))),
			groups: []grouping.Group{group("a", 0, "a1", "a2", "a3"), group("b", 1, "b1", "b2"), group("c", 2, "c1"), group("d", 3, "d1")},
			statuses: []rollout.ClusterStatus{status("a2", rollout.Progressing, at(-m)), status("b2", rollout.Progressing, at(-m)),
				status("c1", rollout.Succeeded, at(-m))},
			phases: []string{"a Active", "b Active", "c Complete", "d Waiting"},
			reasons: map[string]string{
				"a": `rolling out: 1 progressing, 2 not started; window of 2 full; "a2" progressing, no deadline`,
				"b": `rolling out: 1 progressing, 1 not started; window of 2 full; "b2" progressing, no deadline`,
				"d": "waiting for a free slot: all 2 in use",
			},
		},
		{
			name:   "Progressive: a fleet-wide breach blames every group with failures",
			s:      strategy(progressive, cfg{maxFail: intstr.FromInt32(1)}),
			groups: []grouping.Group{group("a", 0, "a1", "a2", "a3"), group("b", 1, "b1", "b2"), group("c", 2, "c1")},
			statuses: []rollout.ClusterStatus{status("a2", rollout.TimeOut, at(-m)), status("b2", rollout.Failed, at(-m)),
				status("a3", rollout.Progressing, at(-m))},
			phases: []string{"a Breached", "b Breached", "c Waiting"},
			reasons: map[string]string{
				"a": `halted: 1 failed or timed out, 2 failed or timed out in the rollout, maxFailures allows 1: "a2" timed out`,
				"b": `halted: 1 failed or timed out, 2 failed or timed out in the rollout, maxFailures allows 1: "b2" failed, no deadline`,
				"c": "halted: the failure budget is exceeded, nothing new starts",
			},
		},
		{
			name:     "Progressive: waiting for a mandatory group",
			s:        strategy(progressive, cfg{}, mandatory(byIndex(1))),
			groups:   []grouping.Group{group("a", 0, "a1"), group("b", 1, "b1", "b2")},
			statuses: []rollout.ClusterStatus{status("b1", rollout.Succeeded, at(-m))},
			phases:   []string{"a Waiting", "b Active"},
			reasons: map[string]string{
				"a": `waiting for mandatory group "b": "b2" starting now`,
				"b": "rolling out: 1 starting now, 1 succeeded",
			},
		},
		{
			name:     "All: every group at once",
			s:        strategy(all, cfg{deadline: "15m"}),
			groups:   []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1"), group("c", 2, "c1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-time.Hour)), status("b1", rollout.Succeeded, at(-m))},
			phases:   []string{"a Active", "b Complete", "c Active"},
			reasons: map[string]string{
				"a": "rolling out: 1 starting now",
				"b": "complete: 1 succeeded",
				"c": "rolling out: 1 starting now",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := tt.now
			if now.IsZero() {
				now = t0()
			}
			res, err := plannerAt(now).Plan(tt.s, tt.groups, tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.phases, phases(res.Groups))
			got := reasons(res.Groups)
			for g, want := range tt.reasons {
				assert.Equal(t, want, got[g], "reason of %q", g)
			}
		})
	}
}
