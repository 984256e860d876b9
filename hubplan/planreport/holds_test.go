package planreport

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// holdsNow is when the holds of these tests are judged.
var holdsNow = time.Date(2026, 11, 30, 12, 6, 5, 0, time.UTC)

// heldAt is a time a hold began: 12:01:05, 5m before holdsNow.
var heldAt = metav1.NewTime(time.Date(2026, 11, 30, 12, 1, 5, 0, time.UTC))

// TestHeldSummary: a group's counts say how many clusters the work gate
// holds, since when the oldest hold has waited (the date too when it is
// not today), and how many miss a work; nothing when it holds none.
func TestHeldSummary(t *testing.T) {
	t.Parallel()
	yesterday := metav1.NewTime(time.Date(2026, 11, 29, 23, 6, 5, 0, time.UTC))
	tests := []struct {
		name   string
		status *v1alpha1.GroupStatus
		want   string
	}{
		{"no status", nil, ""},
		{"none held", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{ToApply: 1}}, ""},
		{"held, no time (an older controller's status)", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 2}}, "2 held"},
		{"held since", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 2}, HeldSince: &heldAt}, "2 held since 12:01:05, 5m ago"},
		{"held since, one missing a work", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 2, Missing: 1}, HeldSince: &heldAt},
			"2 held since 12:01:05, 5m ago; 1 with a missing work"},
		{"held since yesterday", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 1}, HeldSince: &yesterday},
			"1 held since 2026-11-29 23:06:05, 13h ago"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, heldSummary(tt.status, holdsNow))
		})
	}
}

// TestCountsOf: the counts column of the status's table says what the
// work gate holds after the clusters by status.
func TestCountsOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status v1alpha1.GroupStatus
		want   string
	}{
		{"none held", v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Succeeded: 1, ToApply: 2}}, "1/0/0/0/2"},
		{"held, missing", v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{ToApply: 2, Held: 2, Missing: 1}, HeldSince: &heldAt},
			"0/0/0/0/2 (2 held since 12:01:05, 5m ago; 1 with a missing work)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, countsOf(&tt.status, holdsNow))
			assert.Equal(t, tt.want, Group{Status: &tt.status}.Row(holdsNow).Counts)
		})
	}
}

// TestHoldLine: a hold says its cluster, the works held with the missing
// ones marked, since when, the gate's reason and its message.
func TestHoldLine(t *testing.T) {
	t.Parallel()
	const deploy, hosted = "addon-cluster-proxy-deploy-0", "addon-cluster-proxy-hosted"
	moved := "config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy has moved on: the cluster's group has not started"
	tests := []struct {
		name string
		hold v1alpha1.ClusterHold
		want string
	}{
		{"a missing work", v1alpha1.ClusterHold{Cluster: "prod-cluster", Works: []string{deploy}, Missing: []string{deploy}, Reason: "ConfigMovedOn",
			Since: heldAt, Message: moved},
			"prod-cluster: work addon-cluster-proxy-deploy-0 missing, held since 12:01:05 (5m ago): ConfigMovedOn: " + moved},
		{"a work held", v1alpha1.ClusterHold{Cluster: "prod-cluster", Works: []string{deploy}, Reason: hubplan.HoldRenderingHeld, Since: heldAt,
			Message: "new content of unchanged configs"},
			"prod-cluster: work addon-cluster-proxy-deploy-0, held since 12:01:05 (5m ago): RenderingHeld: new content of unchanged configs"},
		{"one held, one missing", v1alpha1.ClusterHold{Cluster: "stg-cluster", Works: []string{deploy, hosted}, Missing: []string{hosted},
			Reason: "NotHandedOver", Since: heldAt, Message: "not handed over"},
			"stg-cluster: work addon-cluster-proxy-deploy-0, work addon-cluster-proxy-hosted missing, held since 12:01:05 (5m ago): NotHandedOver: not handed over"},
		{"a missing work not among the works", v1alpha1.ClusterHold{Cluster: "stg-cluster", Works: []string{deploy}, Missing: []string{hosted},
			Reason: "Unreadable", Since: heldAt, Message: "unreadable"},
			"stg-cluster: work addon-cluster-proxy-deploy-0, work addon-cluster-proxy-hosted missing, held since 12:01:05 (5m ago): Unreadable: unreadable"},
		{"no replica of the gate answered: no works named", v1alpha1.ClusterHold{Cluster: "dev-cluster", Reason: hubplan.ReasonGateUnavailable,
			Since: heldAt, Message: `failed calling webhook "manifestworks.gate.rolloutkit.io"`},
			`dev-cluster: held since 12:01:05 (5m ago): GateUnavailable: failed calling webhook "manifestworks.gate.rolloutkit.io"`},
		{"no message", v1alpha1.ClusterHold{Cluster: "dev-cluster", Works: []string{deploy}, Reason: hubplan.HoldRenderingTaken, Since: heldAt},
			"dev-cluster: work addon-cluster-proxy-deploy-0, held since 12:01:05 (5m ago): RenderingTaken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, holdLine(tt.hold, holdsNow))
		})
	}
}

// TestHoldLines: a group's holds are said one a line, in the status's
// order (the longest held first), then how many held clusters the status
// does not list.
func TestHoldLines(t *testing.T) {
	t.Parallel()
	a := v1alpha1.ClusterHold{Cluster: "a", Works: []string{"w"}, Reason: "RenderingHeld", Since: heldAt}
	b := v1alpha1.ClusterHold{Cluster: "b", Works: []string{"w"}, Reason: "RenderingHeld", Since: metav1.NewTime(holdsNow)}
	lineA := "a: work w, held since 12:01:05 (5m ago): RenderingHeld"
	lineB := "b: work w, held since 12:06:05 (now): RenderingHeld"
	tests := []struct {
		name   string
		status *v1alpha1.GroupStatus
		want   []string
	}{
		{"none", &v1alpha1.GroupStatus{}, []string{}},
		{"every one listed", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 2}, Holds: []v1alpha1.ClusterHold{a, b}}, []string{lineA, lineB}},
		{"one more", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 2}, Holds: []v1alpha1.ClusterHold{a}},
			[]string{lineA, "and 1 more held cluster, not listed"}},
		{"more than the status lists", &v1alpha1.GroupStatus{Counts: v1alpha1.GroupCounts{Held: 14}, Holds: []v1alpha1.ClusterHold{a, b}},
			[]string{lineA, lineB, "and 12 more held clusters, not listed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, holdLines(tt.status, holdsNow))
		})
	}
}

// TestRevisionKind: a rendering revision is named, of unchanged configs
// or joined with a config change; a config change alone says nothing
// more.
func TestRevisionKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		placement Placement
		want      string
	}{
		{"config", Placement{Kind: hubplan.KindConfig}, ""},
		{"no kind (an older controller's status)", Placement{}, ""},
		{"rendering", Placement{Kind: hubplan.KindRendering, Rendering: "84a8fa1ef0c0"},
			"rendering revision 84a8fa1ef0c0 of unchanged configs, held by the work gate until released"},
		{"config and rendering", Placement{Kind: hubplan.KindConfigAndRendering, Rendering: "84a8fa1ef0c0"},
			"a config change joined with rendering revision 84a8fa1ef0c0: one revision of both, from the first group"},
		{"rendering, not named", Placement{Kind: hubplan.KindRendering},
			"a new rendering of unchanged configs, held by the work gate until released"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, revisionKind(tt.placement))
		})
	}
}

// TestPlacementState: the status's line of a placement says its
// revision's kind after the revision.
func TestPlacementState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		placement Placement
		want      string
	}{
		{"config", Placement{Strategy: "All", Revision: "ee3a0a2630de", Kind: hubplan.KindConfig}, "revision ee3a0a2630de, All"},
		{"rendering", Placement{Strategy: "All", Revision: "00e0d6cc6a8d", Kind: hubplan.KindRendering, Rendering: "84a8fa1ef0c0"},
			"revision 00e0d6cc6a8d (rendering revision 84a8fa1ef0c0 of unchanged configs, held by the work gate until released), All"},
		{"config and rendering", Placement{Strategy: "All", Revision: "00e0d6cc6a8d", Kind: hubplan.KindConfigAndRendering, Rendering: "84a8fa1ef0c0"},
			"revision 00e0d6cc6a8d (a config change joined with rendering revision 84a8fa1ef0c0: one revision of both, from the first group), All"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, placementState(tt.placement))
		})
	}
}
