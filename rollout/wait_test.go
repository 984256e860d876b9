package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestWait checks, for every kind of wait, the structured detail of the
// group that waits, and that its Reason is made of that detail: the words
// that open it, then its Explanation.
func TestWait(t *testing.T) {
	t.Parallel()
	m := time.Minute
	c := cfg{soak: 5 * m, deadline: "15m"}
	none := cfg{soak: 5 * m, deadline: "15m", maxFail: intstr.FromInt32(0)}
	held := rollout.GateFunc(func(g grouping.GroupKey, _ time.Time) rollout.Admission {
		if g.Name == "dev" {
			return rollout.Admission{Reason: "change freeze", RecheckAfter: 30 * m}
		}
		return rollout.Admission{Admitted: true}
	})
	ref := func(name string, s rollout.Status, until time.Time) rollout.ClusterRef {
		return rollout.ClusterRef{Name: name, Status: s, Until: until}
	}
	tests := []struct {
		name     string
		strategy clusterv1alpha1.RolloutStrategy
		groups   []grouping.Group
		statuses []rollout.ClusterStatus
		gates    []rollout.Gate
		of       grouping.GroupKey // the group checked
		phase    rollout.Phase
		inFlight rollout.ClusterRef // an Active group's first cluster in flight
		wait     rollout.Wait
		reason   string
	}{
		{
			name: "earlier group soaking", strategy: strategy(perGroup, c), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-m))},
			of:       key("stg", 1), phase: rollout.Waiting,
			wait: rollout.Wait{Kind: rollout.WaitGroup, Group: key("dev", 0),
				Cluster: ref("dev-cluster", rollout.Succeeded, at(4*m)), Until: at(4 * m)},
			reason: `waiting for group "dev": "dev-cluster" soaking until 12:04:00 (4m0s left)`,
		},
		{
			name: "earlier group in flight", strategy: strategy(perGroup, c), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-m))},
			of:       key("prod", 2), phase: rollout.Waiting,
			wait: rollout.Wait{Kind: rollout.WaitGroup, Group: key("dev", 0),
				Cluster: ref("dev-cluster", rollout.Progressing, at(14*m)), Until: at(14 * m)},
			reason: `waiting for group "dev": "dev-cluster" progressing, deadline 12:14:00 (14m0s left)`,
		},
		{
			name: "earlier group starting now", strategy: strategy(perGroup, c), groups: seedGroups(),
			of: key("stg", 1), phase: rollout.Waiting,
			wait:   rollout.Wait{Kind: rollout.WaitGroup, Group: key("dev", 0), Cluster: ref("dev-cluster", rollout.ToApply, time.Time{})},
			reason: `waiting for group "dev": "dev-cluster" starting now`,
		},
		{
			name: "cluster in the same group", strategy: strategy(perGroup, c),
			groups: []grouping.Group{group("dev", 0, "d1"), group("stg", 1, "s1", "s2")},
			statuses: []rollout.ClusterStatus{
				status("d1", rollout.Succeeded, at(-time.Hour)),
				status("s1", rollout.Progressing, at(-m)),
			},
			of: key("stg", 1), phase: rollout.Active, inFlight: ref("s1", rollout.Progressing, at(14*m)),
			wait: rollout.Wait{Kind: rollout.WaitCluster, Group: key("stg", 1),
				Cluster: ref("s1", rollout.Progressing, at(14*m)), Until: at(14 * m)},
			reason: `rolling out: 1 progressing, 1 not started; waiting for "s1" progressing, deadline 12:14:00 (14m0s left)`,
		},
		{
			name: "earlier group, for clusters that joined an active group", strategy: strategy(perGroup, c),
			groups: []grouping.Group{group("dev", 0, "d1"), group("stg", 1, "s1", "s2")},
			statuses: []rollout.ClusterStatus{
				status("d1", rollout.Progressing, at(-m)),
				status("s1", rollout.Progressing, at(-2*m)),
			},
			of: key("stg", 1), phase: rollout.Active, inFlight: ref("s1", rollout.Progressing, at(13*m)),
			wait: rollout.Wait{Kind: rollout.WaitGroup, Group: key("dev", 0),
				Cluster: ref("d1", rollout.Progressing, at(14*m)), Until: at(14 * m)},
			reason: `rolling out: 1 progressing, 1 not started; "s1" progressing, deadline 12:13:00 (13m0s left); ` +
				`waiting for group "dev": "d1" progressing, deadline 12:14:00 (14m0s left)`,
		},
		{
			name: "gate", strategy: strategy(perGroup, c), groups: seedGroups(), gates: []rollout.Gate{held},
			of: key("dev", 0), phase: rollout.Blocked,
			wait:   rollout.Wait{Kind: rollout.WaitGate, Gates: []string{"change freeze"}, HeldBy: []int{0}, Until: at(30 * m)},
			reason: `held: change freeze`,
		},
		{
			name: "earlier group held by a gate", strategy: strategy(perGroup, c), groups: seedGroups(),
			gates: []rollout.Gate{rollout.Paused("")},
			of:    key("stg", 1), phase: rollout.Waiting,
			wait:   rollout.Wait{Kind: rollout.WaitGroup, Group: key("dev", 0), Gates: []string{"rollout paused"}, HeldBy: []int{0}},
			reason: `waiting for group "dev": held: rollout paused`,
		},
		{
			name: "breach, the breached group", strategy: strategy(perGroup, none), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-20*m))},
			of:       key("dev", 0), phase: rollout.Breached,
			wait:   rollout.Wait{Kind: rollout.WaitBreach, Cluster: ref("dev-cluster", rollout.TimeOut, at(-5*m))},
			reason: `halted: 1 failed or timed out, maxFailures allows 0 in this group: "dev-cluster" timed out at 11:55:00`,
		},
		{
			name: "breach, a group that waits", strategy: strategy(perGroup, none), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.TimeOut, at(-m))},
			of:       key("stg", 1), phase: rollout.Waiting,
			wait:   rollout.Wait{Kind: rollout.WaitBreach},
			reason: `halted: the failure budget is exceeded, nothing new starts`,
		},
		{
			name: "breach of the rollout's budget", strategy: strategy(progressive, none), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("stg-cluster", rollout.Failed, at(-m))},
			of:       key("stg", 1), phase: rollout.Breached,
			wait: rollout.Wait{Kind: rollout.WaitBreach, RolloutFailures: 1,
				Cluster: ref("stg-cluster", rollout.Failed, at(14*m))},
			reason: `halted: 1 failed or timed out, 1 failed or timed out in the rollout, maxFailures allows 0: "stg-cluster" failed, deadline 12:14:00 (14m0s left)`,
		},
		{
			name: "mandatory phase", strategy: strategy(progressive, c, mandatory(byName("stg"))), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("stg-cluster", rollout.Succeeded, at(-m))},
			of:       key("dev", 0), phase: rollout.Waiting,
			wait: rollout.Wait{Kind: rollout.WaitMandatory, Group: key("stg", 1),
				Cluster: ref("stg-cluster", rollout.Succeeded, at(4*m)), Until: at(4 * m)},
			reason: `waiting for mandatory group "stg": "stg-cluster" soaking until 12:04:00 (4m0s left)`,
		},
		{
			name: "window full", strategy: strategy(progressive, c, concurrency(intstr.FromInt32(1))), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-m))},
			of:       key("prod", 2), phase: rollout.Waiting,
			wait:   rollout.Wait{Kind: rollout.WaitWindow, Window: 1},
			reason: `waiting for a free slot: all 1 in use`,
		},
		{
			name: "window full, an active group", strategy: strategy(progressive, c, concurrency(intstr.FromInt32(1))),
			groups:   []grouping.Group{group("a", 0, "a1", "a2")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, at(-m))},
			of:       key("a", 0), phase: rollout.Active, inFlight: ref("a1", rollout.Progressing, at(14*m)),
			wait:   rollout.Wait{Kind: rollout.WaitWindow, Window: 1},
			reason: `rolling out: 1 progressing, 1 not started; window of 1 full; "a1" progressing, deadline 12:14:00 (14m0s left)`,
		},
		{
			name: "nothing: all started", strategy: strategy(perGroup, c), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-m))},
			of:       key("dev", 0), phase: rollout.Active, inFlight: ref("dev-cluster", rollout.Progressing, at(14*m)),
			reason: `rolling out: 1 progressing; "dev-cluster" progressing, deadline 12:14:00 (14m0s left)`,
		},
		{
			name: "nothing: complete", strategy: strategy(perGroup, c), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour))},
			of:       key("dev", 0), phase: rollout.Complete,
			reason: `complete: 1 succeeded`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0(), tt.gates...).Plan(tt.strategy, tt.groups, tt.statuses)
			require.NoError(t, err)
			var gp *rollout.GroupProgress
			for i := range res.Groups {
				if res.Groups[i].GroupKey == tt.of {
					gp = &res.Groups[i]
				}
			}
			require.NotNil(t, gp, "no group %v", tt.of)
			assert.Equal(t, tt.phase, gp.Phase)
			assert.Equal(t, tt.inFlight, gp.InFlight)
			assert.Equal(t, tt.wait, gp.Wait)
			assert.Equal(t, tt.reason, gp.Reason)
			assert.True(t, strings.HasSuffix(gp.Reason, gp.Explanation(t0())), "Reason %q does not end with its Explanation %q", gp.Reason, gp.Explanation(t0()))
		})
	}
}

func TestWaitKindString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   rollout.WaitKind
		want string
	}{
		{rollout.WaitNone, "None"},
		{rollout.WaitGroup, "Group"},
		{rollout.WaitMandatory, "Mandatory"},
		{rollout.WaitCluster, "Cluster"},
		{rollout.WaitGate, "Gate"},
		{rollout.WaitBreach, "Breach"},
		{rollout.WaitWindow, "Window"},
		{rollout.WaitKind(7), "WaitKind(7)"},
		{rollout.WaitKind(-1), "WaitKind(-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.in.String())
		})
	}
}

// TestWaitGatesAreCopies checks that a caller changing one group's Gates
// changes no other group's: a held group and the groups that wait for it
// each get their own slice.
func TestWaitGatesAreCopies(t *testing.T) {
	t.Parallel()
	res, err := plannerAt(t0(), rollout.Paused("")).Plan(strategy(perGroup, cfg{}), seedGroups(), nil)
	require.NoError(t, err)
	require.Len(t, res.Groups, 3)
	assert.Equal(t, rollout.WaitGate, res.Groups[0].Wait.Kind)
	assert.Equal(t, rollout.WaitGroup, res.Groups[1].Wait.Kind)
	res.Groups[0].Wait.Gates[0] = "changed"
	assert.Equal(t, []string{"rollout paused"}, res.Groups[1].Wait.Gates)
	assert.Equal(t, []string{"rollout paused"}, res.Groups[2].Wait.Gates)
}
