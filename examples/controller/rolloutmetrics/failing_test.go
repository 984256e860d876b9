package rolloutmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// untilStatus is an add-on's status with one placement, "ns/p", and one
// group, prod, waiting for waitsFor until until (zero: no until).
func untilStatus(waitsFor string, until time.Time) v1alpha1.AddOnRolloutStatus {
	g := v1alpha1.GroupStatus{Name: "prod", Index: 1, Phase: "Waiting", WaitsFor: waitsFor}
	if !until.IsZero() {
		g.Until = &metav1.Time{Time: until}
	}
	return v1alpha1.AddOnRolloutStatus{Placements: []v1alpha1.PlacementStatus{{Namespace: "ns", Name: "p", Groups: []v1alpha1.GroupStatus{g}}}}
}

// TestMetricsVerificationFailingUntil: MetricVerificationFailing is there
// for a verification whose latest result failed while its group waits for
// verification, and goes when it passes, when the group stops waiting for
// one, or when the group is gone;
// MetricGroupUntil follows the group's until, and goes when it has none.
func TestMetricsVerificationFailingUntil(t *testing.T) {
	t.Parallel()
	const (
		failingHead = "# HELP rolloutkit_verification_failing 1 while the latest result of a decision group's verification failed; no series once it passed, or while the group waits for no verification.\n" +
			"# TYPE rolloutkit_verification_failing gauge\n"
		untilHead = "# HELP rolloutkit_group_until_timestamp_seconds Unix time at which what a decision group waits for may end on the clock (its status's until); no series when it ends on an outside change.\n" +
			"# TYPE rolloutkit_group_until_timestamp_seconds gauge\n"
		untilProd = `rolloutkit_group_until_timestamp_seconds{addon="a",group="prod",placement="ns/p"} `
	)
	failing := func(check string) string {
		return `rolloutkit_verification_failing{addon="a",group="prod",placement="ns/p",verification="` + check + `"} 1` + "\n"
	}
	at := time.Unix(1_800_000_000, 0)
	// step is one reconcile: the status observed, then the checks' results.
	type step struct {
		st     v1alpha1.AddOnRolloutStatus
		checks map[string]bool // verification -> passed
	}
	for _, tc := range []struct {
		name   string
		steps  []step
		forget bool
		want   string
	}{
		{
			name:  "a check fails, another passes",
			steps: []step{{untilStatus("Verification", at), map[string]bool{"errors": false, "latency": true}}},
			want:  untilHead + untilProd + "1.8e+09\n" + failingHead + failing("errors"),
		},
		{
			name: "the failing check passes on its next run",
			steps: []step{
				{untilStatus("Verification", at), map[string]bool{"errors": false}},
				{untilStatus("Verification", at.Add(time.Minute)), map[string]bool{"errors": true}},
			},
			want: untilHead + untilProd + "1.80000006e+09\n",
		},
		{
			name: "the group no longer waits for a verification",
			steps: []step{
				{untilStatus("Verification", at), map[string]bool{"errors": false}},
				{untilStatus("Approval", time.Time{}), nil},
			},
		},
		{
			name: "the group is gone",
			steps: []step{
				{untilStatus("Verification", at), map[string]bool{"errors": false}},
				{v1alpha1.AddOnRolloutStatus{}, nil},
			},
		},
		{
			name:   "the add-on is deleted",
			steps:  []step{{untilStatus("Verification", at), map[string]bool{"errors": false}}},
			forget: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reg := prometheus.NewRegistry()
			m, err := New(reg)
			require.NoError(t, err)
			for _, s := range tc.steps {
				m.Observe("a", false, s.st)
				for check, passed := range s.checks {
					m.Verification("a", "ns/p", v1alpha1.GroupStatus{Name: "prod", Index: 1}, check, passed)
				}
			}
			if tc.forget {
				m.Forget("a")
			}
			require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(tc.want), MetricVerificationFailing, MetricGroupUntil))
		})
	}
}
