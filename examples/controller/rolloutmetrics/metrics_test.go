package rolloutmetrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// metricsStatus is an add-on's status with one placement, "ns/p", and
// groups named by name, each waiting for waits[name]; generation 0 is the
// status of an add-on without an AddOnRollout (withView's).
func metricsStatus(generation int64, valid, paused metav1.ConditionStatus, waits map[string]string, groups ...string) v1alpha1.AddOnRolloutStatus {
	st := v1alpha1.AddOnRolloutStatus{ObservedGeneration: generation, Conditions: []metav1.Condition{
		{Type: hubplan.ConditionValid, Status: valid}, {Type: hubplan.ConditionPaused, Status: paused}}}
	ps := v1alpha1.PlacementStatus{Namespace: "ns", Name: "p"}
	for i, g := range groups {
		ps.Groups = append(ps.Groups, v1alpha1.GroupStatus{Name: g, Index: int32(i), Phase: "Waiting", WaitsFor: waits[g]})
	}
	st.Placements = []v1alpha1.PlacementStatus{ps}
	return st
}

// TestMetricsWaitingValidPaused: each group has one MetricGroupWaiting
// series, for what it waits for now, and none when it waits for nothing
// or is gone; an add-on under an AddOnRollout has MetricValid and
// MetricPaused from its conditions, and an add-on without one (or
// forgotten) has neither.
func TestMetricsWaitingValidPaused(t *testing.T) {
	t.Parallel()
	const (
		T, F = metav1.ConditionTrue, metav1.ConditionFalse
		head = "# HELP rolloutkit_group_waiting 1 for what a decision group waits for (its status's waitsFor); no series while it waits for nothing.\n" +
			"# TYPE rolloutkit_group_waiting gauge\n"
		validHead  = "# HELP rolloutkit_valid 1 while an add-on's AddOnRollout is Valid, 0 while it is not (the add-on is held until its spec is fixed).\n# TYPE rolloutkit_valid gauge\n"
		pausedHead = "# HELP rolloutkit_paused 1 while an add-on's AddOnRollout is paused (no cluster starts), 0 otherwise.\n# TYPE rolloutkit_paused gauge\n"
	)
	waiting := func(group, waitsFor string) string {
		return `rolloutkit_group_waiting{addon="a",group="` + group + `",placement="ns/p",waits_for="` + waitsFor + `"} 1` + "\n"
	}
	for _, tc := range []struct {
		name   string
		seen   []v1alpha1.AddOnRolloutStatus // observed in turn
		forget bool
		want   string // the exposition of the three metrics
	}{
		{
			name: "waits for an approval, valid, not paused",
			seen: []v1alpha1.AddOnRolloutStatus{metricsStatus(1, T, F, map[string]string{"prod": "Approval"}, "dev", "prod")},
			want: head + waiting("prod", "Approval") + pausedHead + `rolloutkit_paused{addon="a"} 0` + "\n" + validHead + `rolloutkit_valid{addon="a"} 1` + "\n",
		},
		{
			name: "what it waits for changes: the old series goes",
			seen: []v1alpha1.AddOnRolloutStatus{
				metricsStatus(1, T, F, map[string]string{"prod": "Approval"}, "dev", "prod"),
				metricsStatus(2, T, T, map[string]string{"prod": "Paused", "dev": "Window"}, "dev", "prod"),
			},
			want: head + waiting("dev", "Window") + waiting("prod", "Paused") + pausedHead + `rolloutkit_paused{addon="a"} 1` + "\n" + validHead + `rolloutkit_valid{addon="a"} 1` + "\n",
		},
		{
			name: "invalid",
			seen: []v1alpha1.AddOnRolloutStatus{metricsStatus(3, F, F, map[string]string{"dev": "Invalid", "prod": "Invalid"}, "dev", "prod")},
			want: head + waiting("dev", "Invalid") + waiting("prod", "Invalid") + pausedHead + `rolloutkit_paused{addon="a"} 0` + "\n" + validHead + `rolloutkit_valid{addon="a"} 0` + "\n",
		},
		{
			name: "waits for nothing any more",
			seen: []v1alpha1.AddOnRolloutStatus{
				metricsStatus(1, T, F, map[string]string{"prod": "Approval"}, "dev", "prod"),
				metricsStatus(1, T, F, nil, "dev", "prod"),
			},
			want: pausedHead + `rolloutkit_paused{addon="a"} 0` + "\n" + validHead + `rolloutkit_valid{addon="a"} 1` + "\n",
		},
		{
			name: "the group is gone",
			seen: []v1alpha1.AddOnRolloutStatus{
				metricsStatus(1, T, F, map[string]string{"prod": "Approval", "dev": "Group"}, "dev", "prod"),
				metricsStatus(1, T, F, map[string]string{"dev": "Group"}, "dev"),
			},
			want: head + waiting("dev", "Group") + pausedHead + `rolloutkit_paused{addon="a"} 0` + "\n" + validHead + `rolloutkit_valid{addon="a"} 1` + "\n",
		},
		{
			name: "no AddOnRollout",
			seen: []v1alpha1.AddOnRolloutStatus{metricsStatus(0, T, F, map[string]string{"prod": "Group"}, "dev", "prod")},
			want: head + waiting("prod", "Group"),
		},
		{
			name: "the AddOnRollout is deleted",
			seen: []v1alpha1.AddOnRolloutStatus{
				metricsStatus(4, T, T, map[string]string{"prod": "Paused"}, "dev", "prod"),
				metricsStatus(0, T, F, map[string]string{"prod": "Group"}, "dev", "prod"),
			},
			want: head + waiting("prod", "Group"),
		},
		{
			name:   "the add-on is deleted",
			seen:   []v1alpha1.AddOnRolloutStatus{metricsStatus(1, F, T, map[string]string{"prod": "Invalid"}, "dev", "prod")},
			forget: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reg := prometheus.NewRegistry()
			m, err := New(reg)
			require.NoError(t, err)
			for _, st := range tc.seen {
				m.Observe("a", st.ObservedGeneration > 0, st) // generation 0: the view of an add-on without an AddOnRollout
			}
			if tc.forget {
				m.Forget("a")
			}
			require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(tc.want), MetricGroupWaiting, MetricValid, MetricPaused))
		})
	}
}

// TestMetricsOtherAddOns: what one add-on observes or forgets leaves the
// series of another alone.
func TestMetricsOtherAddOns(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	require.NoError(t, err)
	m.Observe("a", true, metricsStatus(1, metav1.ConditionTrue, metav1.ConditionFalse, map[string]string{"prod": "Approval"}, "prod"))
	m.Observe("b", true, metricsStatus(1, metav1.ConditionFalse, metav1.ConditionTrue, map[string]string{"prod": "Invalid"}, "prod"))
	m.Observe("a", true, metricsStatus(1, metav1.ConditionTrue, metav1.ConditionFalse, nil, "prod"))
	m.Forget("a")
	assert.Equal(t, 1.0, testutil.ToFloat64(m.waiting.WithLabelValues("b", "ns/p", "prod", "Invalid")))
	assert.Equal(t, 0.0, testutil.ToFloat64(m.valid.WithLabelValues("b")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.paused.WithLabelValues("b")))
	n, err := testutil.GatherAndCount(reg, MetricGroupWaiting, MetricValid, MetricPaused)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "b's series alone")
}
