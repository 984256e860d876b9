package rollout_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestPlannerConcurrentUse calls one Planner, with gates and a shared fake
// clock, from many goroutines on shared inputs: every call gives the result
// of a call made alone, and (under -race) nothing races.
func TestPlannerConcurrentUse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	window, err := rollout.Window(time.UTC, []time.Weekday{time.Monday}, 9*time.Hour, 17*time.Hour)
	require.NoError(t, err)
	p := rollout.Planner{
		Clock:              fake.New(now),
		DefaultConcurrency: &intstr.IntOrString{Type: intstr.String, StrVal: "10%"},
		Gates:              []rollout.Gate{rollout.Approval(grouping.GroupKey{Name: "dev"}, grouping.GroupKey{Name: "stg"}), window},
	}
	var groups []grouping.Group
	var statuses []rollout.ClusterStatus
	for gi, name := range []string{"dev", "stg", "prod"} {
		g := grouping.Group{GroupKey: grouping.GroupKey{Name: name, Index: int32(gi)}}
		for i := range 200 {
			c := fmt.Sprintf("%s-%03d", name, i)
			g.Clusters = append(g.Clusters, c)
			if i%3 == 0 {
				statuses = append(statuses, rollout.ClusterStatus{Cluster: c, Status: rollout.Status(i % 6), LastTransitionTime: now.Add(-time.Duration(i) * time.Minute)})
			}
		}
		groups = append(groups, g)
	}
	cfg := clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}, ProgressDeadline: "30m", MaxFailures: intstr.FromString("50%")}
	strategies := []clusterv1alpha1.RolloutStrategy{
		{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}},
		{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: cfg}},
		{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: cfg}},
	}
	want := make([]rollout.Result, len(strategies))
	for i, s := range strategies {
		want[i], err = p.Plan(s, groups, statuses)
		require.NoError(t, err)
	}
	const workers = 16
	got := make([][]rollout.Result, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range 20 {
				s := i % len(strategies)
				r, err := p.Plan(strategies[s], groups, statuses)
				if err != nil {
					t.Error(err)
					return
				}
				got[w] = append(got[w], r)
			}
		})
	}
	wg.Wait()
	for w := range workers {
		require.Len(t, got[w], 20)
		for i, r := range got[w] {
			assert.Equal(t, want[i%len(strategies)], r, "worker %d call %d", w, i)
		}
	}
}
