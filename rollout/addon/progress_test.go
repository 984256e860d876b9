package addon_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

func TestProgressCondition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		p          addon.Progress
		wantStatus metav1.ConditionStatus
		wantReason string
		wantMsg    string
	}{
		{"first group rolling", addon.Progress{Selected: 3, Rolling: 1},
			metav1.ConditionTrue, "Progressing", "selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout."},
		{"rolling counts the succeeded ones too", addon.Progress{Selected: 3, Rolling: 1, Succeeded: 1, Failed: 1, TimedOut: 1},
			metav1.ConditionTrue, "Progressing", "selected clusters 3. configured addons 2/3 progressing..., 1 failed 1 timeout."},
		{"all but one succeeded, nothing rolling", addon.Progress{Selected: 3, Succeeded: 2, Failed: 1},
			metav1.ConditionTrue, "Progressing", "selected clusters 3. configured addons 2/3 progressing..., 1 failed 0 timeout."},
		{"all succeeded", addon.Progress{Selected: 3, Succeeded: 3},
			metav1.ConditionFalse, "Completed", "selected clusters 3. configured addons 3/3 completed with no errors, 0 failed 0 timeout."},
		{"an empty placement never completes (as in OCM)", addon.Progress{},
			metav1.ConditionTrue, "Progressing", "selected clusters 0. configured addons 0/0 progressing..., 0 failed 0 timeout."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.p.Condition()
			assert.Equal(t, metav1.Condition{
				Type:    "Progressing",
				Status:  tt.wantStatus,
				Reason:  tt.wantReason,
				Message: tt.wantMsg,
			}, got)
			assert.Equal(t, tt.wantReason == "Completed", tt.p.Completed())
		})
	}
}

// TestProgressConditionVersusOCM shows the one difference from OCM v1.2.0
// (cma_progressing_reconciler.go): the same status, reason and numbers, but
// OCM's message has no "selected clusters %d. configured addons " prefix.
func TestProgressConditionVersusOCM(t *testing.T) {
	t.Parallel()
	ocm := func(p addon.Progress) string {
		if p.Completed() {
			return fmt.Sprintf("%d/%d completed with no errors, %d failed %d timeout.", p.Succeeded, p.Selected, p.Failed, p.TimedOut)
		}
		return fmt.Sprintf("%d/%d progressing..., %d failed %d timeout.", p.Rolling+p.Succeeded, p.Selected, p.Failed, p.TimedOut)
	}
	for _, p := range []addon.Progress{{Selected: 3, Rolling: 1}, {Selected: 3, Succeeded: 3}, {Selected: 5, Rolling: 2, Succeeded: 1, Failed: 1, TimedOut: 1}} {
		got := p.Condition().Message
		assert.Equal(t, fmt.Sprintf("selected clusters %d. configured addons %s", p.Selected, ocm(p)), got)
	}
}

func observed(cluster string, s rollout.Status, custom bool) addon.Cluster {
	return addon.Cluster{Status: rollout.ClusterStatus{Cluster: cluster, Status: s}, Custom: custom}
}

func listed(clusters ...string) []rollout.ClusterStatus {
	out := make([]rollout.ClusterStatus, len(clusters))
	for i, c := range clusters {
		out[i] = rollout.ClusterStatus{Cluster: c}
	}
	return out
}

func TestTally(t *testing.T) {
	t.Parallel()
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-1", "prod-2"}},
	}
	tests := []struct {
		name   string
		groups []grouping.Group
		addons []addon.Cluster
		result rollout.Result
		want   addon.Progress
	}{
		{
			name:   "nothing evaluated",
			groups: groups,
			want:   addon.Progress{Selected: 4},
		},
		{
			name:   "listed add-ons roll; a listed cluster without an add-on does not count",
			groups: groups,
			addons: []addon.Cluster{observed("dev-cluster", rollout.ToApply, false), observed("stg-cluster", rollout.ToApply, false)},
			result: rollout.Result{ToRollout: listed("dev-cluster", "prod-2")},
			want:   addon.Progress{Selected: 4, Rolling: 1},
		},
		{
			name:   "succeeded and failed add-ons count once no longer listed",
			groups: groups,
			addons: []addon.Cluster{
				observed("dev-cluster", rollout.Succeeded, false),
				observed("stg-cluster", rollout.Succeeded, false), // soaking: listed
				observed("prod-1", rollout.Failed, false),
				observed("prod-2", rollout.Failed, false), // within the deadline: listed
			},
			result: rollout.Result{ToRollout: listed("stg-cluster", "prod-2")},
			want:   addon.Progress{Selected: 4, Rolling: 2, Succeeded: 1, Failed: 1},
		},
		{
			name:   "a Failed add-on past its deadline counts as failed and as timed out",
			groups: groups,
			addons: []addon.Cluster{observed("prod-1", rollout.Failed, false), observed("prod-2", rollout.Progressing, false)},
			result: rollout.Result{TimedOut: []rollout.ClusterStatus{{Cluster: "prod-1", Status: rollout.TimeOut}, {Cluster: "prod-2", Status: rollout.TimeOut}}},
			want:   addon.Progress{Selected: 4, Failed: 1, TimedOut: 2},
		},
		{
			// OCM, comparing their configs by pointer, would count neither
			// dev nor stg here (docs/compatibility.md, A3).
			name:   "custom add-ons count by value: succeeded, failed and rolling",
			groups: groups,
			addons: []addon.Cluster{
				observed("dev-cluster", rollout.Succeeded, true),
				observed("stg-cluster", rollout.Failed, true),
				observed("prod-1", rollout.Progressing, true),
			},
			result: rollout.Result{ToRollout: listed("prod-1")},
			want:   addon.Progress{Selected: 4, Rolling: 1, Succeeded: 1, Failed: 1},
		},
		{
			name:   "add-ons on clusters outside the groups are ignored",
			groups: groups,
			addons: []addon.Cluster{observed("old-cluster", rollout.Succeeded, false), observed("gone", rollout.ToApply, false)},
			result: rollout.Result{ToRollout: listed("gone")},
			want:   addon.Progress{Selected: 4},
		},
		{
			name:   "a cluster in two groups is selected once",
			groups: append(groups, grouping.Group{GroupKey: grouping.GroupKey{Index: 3}, Clusters: []string{"prod-1"}}),
			want:   addon.Progress{Selected: 4},
		},
		{
			name:   "all done",
			groups: groups,
			addons: []addon.Cluster{
				observed("dev-cluster", rollout.Succeeded, false), observed("stg-cluster", rollout.Succeeded, false),
				observed("prod-1", rollout.Succeeded, false), observed("prod-2", rollout.Succeeded, false),
			},
			want: addon.Progress{Selected: 4, Succeeded: 4},
		},
		{
			name: "no groups",
			want: addon.Progress{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, addon.Tally(tt.groups, tt.addons, tt.result))
		})
	}
}

// TestSeedRolloutWithPlanner runs the seed's dev -> stg -> prod rollout
// through the planner and writes the install progression condition at each
// step, as OCM's add-on manager would.
func TestSeedRolloutWithPlanner(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	strategy := cma.Spec.InstallStrategy.Placements[0].RolloutStrategy
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	now := time.Date(2026, 11, 30, 12, 0, 10, 0, time.UTC)
	planner := rollout.Planner{Clock: fake.New(now)}
	upgraded := lookup(t, proxyConfig(t, "proxyAgent", "proxyServer"))
	done := readMCAs(t, "managedclusteraddons.yaml")
	dev, stg, prod := done[0], done[1], done[2]

	steps := []struct {
		name      string
		specHash  addon.SpecHashFunc
		mcas      []*addonv1beta1.ManagedClusterAddOn
		toRollout []string
		message   string
	}{
		{"before the upgrade: complete", lookup(t, proxyConfig(t)), done, nil,
			"selected clusters 3. configured addons 3/3 completed with no errors, 0 failed 0 timeout."},
		{"new spec hash: dev starts", upgraded, done, []string{"dev-cluster"},
			"selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout."},
		{"dev applying: stg waits", upgraded, []*addonv1beta1.ManagedClusterAddOn{readMCA(t, "managedclusteraddon-progressing.yaml"), stg, prod}, []string{"dev-cluster"},
			"selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout."},
		{"no add-on on prod yet: not counted", upgraded, []*addonv1beta1.ManagedClusterAddOn{dev, stg}, []string{"dev-cluster"},
			"selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout."},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			addons, err := addon.Evaluate(cma, addontest.SeedPlacement(), s.mcas, s.specHash)
			require.NoError(t, err)
			result, err := planner.Plan(strategy, groups, addon.Statuses(addons))
			require.NoError(t, err)
			var got []string
			for _, c := range result.ToRollout {
				got = append(got, c.Cluster)
			}
			assert.Equal(t, s.toRollout, got)
			assert.Equal(t, s.message, addon.Tally(groups, addons, result).Condition().Message)
		})
	}
}
