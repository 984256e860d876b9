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

// TestResultStartingAndDone checks the two readings a controller needs:
// which listed clusters start now (the rest of ToRollout is in flight), and
// whether the rollout is over, which a zero RecheckAfter does not say.
func TestResultStartingAndDone(t *testing.T) {
	t.Parallel()
	m := time.Minute
	stg := []grouping.Group{group("dev", 0, "dev-1"), group("stg", 1, "stg-1", "stg-2")}
	tests := []struct {
		name     string
		s        clusterv1alpha1.RolloutStrategy
		gates    []rollout.Gate
		groups   []grouping.Group
		statuses []rollout.ClusterStatus
		starting []string
		inFlight []string
		recheck  time.Duration
		done     bool
	}{
		{
			name: "a group starts: all of it is new", s: strategy(perGroup, cfg{}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-m))},
			starting: []string{"stg-1", "stg-2"},
		},
		{
			name: "a cluster joins a group in flight: nothing starts, stg-1 is in flight", s: strategy(perGroup, cfg{deadline: "15m"}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-m)), status("stg-1", rollout.Progressing, at(-m))},
			inFlight: []string{"stg-1"}, recheck: 14 * m,
		},
		{
			name: "a ToApply entry starts like an untouched cluster", s: strategy(all, cfg{deadline: "15m"}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Failed, at(-m)), status("stg-2", rollout.ToApply, at(-m))},
			starting: []string{"stg-1", "stg-2"}, inFlight: []string{"dev-1"}, recheck: 14 * m,
		},
		{
			name: "no deadline: RecheckAfter is zero while a cluster progresses, and the rollout is not done", s: strategy(perGroup, cfg{}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Progressing, at(-m))},
			inFlight: []string{"dev-1"},
		},
		{
			name: "halted: nothing to wait for on the clock, not done", s: strategy(perGroup, cfg{}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.TimeOut, at(-m))},
		},
		{
			name: "held by a gate: not done", s: strategy(perGroup, cfg{}), gates: []rollout.Gate{rollout.Paused("")}, groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-m))},
		},
		{
			name: "every group complete, a timeout within budget: done", s: strategy(perGroup, cfg{maxFail: intstr.FromInt32(1)}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-m)), status("stg-1", rollout.TimeOut, at(-m)),
				status("stg-2", rollout.Skip, at(-m))},
			done: true,
		},
		{
			name: "soaking: not done yet", s: strategy(perGroup, cfg{soak: 5 * m}), groups: stg,
			statuses: []rollout.ClusterStatus{status("dev-1", rollout.Succeeded, at(-time.Hour)), status("stg-1", rollout.Succeeded, at(-time.Hour)),
				status("stg-2", rollout.Succeeded, at(-m))},
			inFlight: []string{"stg-2"}, recheck: 4 * m,
		},
		{name: "no groups: done", s: strategy(perGroup, cfg{}), done: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0(), tt.gates...).Plan(tt.s, tt.groups, tt.statuses)
			require.NoError(t, err)
			starting := res.Starting()
			assert.Equal(t, tt.starting, names(starting), "Starting")
			for _, cs := range starting {
				assert.Equal(t, rollout.ToApply, cs.Status, "%s starts with status ToApply", cs.Cluster)
			}
			var inFlight []string
			for _, cs := range res.ToRollout {
				if cs.Status != rollout.ToApply {
					inFlight = append(inFlight, cs.Cluster)
				}
			}
			assert.Equal(t, tt.inFlight, inFlight, "the rest of ToRollout is in flight")
			assert.Equal(t, tt.recheck, res.RecheckAfter, "RecheckAfter")
			assert.Equal(t, tt.done, res.Done(), "Done")
		})
	}
}

// TestResultStartingIsACopy checks that changing what Starting returns
// leaves the result alone.
func TestResultStartingIsACopy(t *testing.T) {
	t.Parallel()
	res, err := plannerAt(t0()).Plan(strategy(all, cfg{}), seedGroups(), nil)
	require.NoError(t, err)
	starting := res.Starting()
	require.Len(t, starting, 3)
	starting[0].Cluster = "changed"
	assert.Equal(t, "dev-cluster", res.ToRollout[0].Cluster)
}
