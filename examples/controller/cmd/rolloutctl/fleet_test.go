package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

func TestPlacementPhase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		p            planreport.Placement
		phase, waits string
	}{
		{"all complete", planreport.Placement{Groups: []planreport.Group{{Name: "canary", Phase: "Complete"}}}, "Complete", "-"},
		{"not planned", planreport.Placement{NotPlanned: &planreport.NotPlanned{Reason: "InvalidStrategy"}}, "NotPlanned", "InvalidStrategy"},
		{"planner's wait", planreport.Placement{Groups: []planreport.Group{
			{Name: "canary", Phase: "Complete"},
			{Index: 1, Phase: "Waiting", Wait: &planreport.Wait{Kind: "Group"}},
		}}, "Waiting", "group 1: Group"},
		{"rollout's status wins", planreport.Placement{Groups: []planreport.Group{
			{Name: "canary", Phase: "Complete", Status: &v1alpha1.GroupStatus{Phase: "Complete"}},
			{Name: "prod", Phase: "Active", Status: &v1alpha1.GroupStatus{Phase: "Waiting", WaitsFor: "Approval"}},
		}}, "Waiting", "group prod: Approval"},
		{"complete but not verified", planreport.Placement{Groups: []planreport.Group{
			{Name: "canary", Phase: "Complete", Status: &v1alpha1.GroupStatus{Phase: "Active", WaitsFor: "Verification"}},
		}}, "Active", "group canary: Verification"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			phase, waits := placementPhase(tt.p)
			assert.Equal(t, tt.phase, phase)
			assert.Equal(t, tt.waits, waits)
		})
	}
}

func TestGovernance(t *testing.T) {
	t.Parallel()
	h := &planreport.Hub{AddOnRollouts: []*v1alpha1.AddOnRollout{
		{ObjectMeta: metav1.ObjectMeta{Name: "running"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "held", Annotations: map[string]string{
			PauseReasonAnnotation: "change freeze", PausedAtAnnotation: "2026-12-05T03:00:00Z"}}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bare"}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}},
	}}
	for name, want := range map[string]string{
		"running": "yes",
		"held":    "paused (change freeze) since 2026-12-05T03:00:00Z",
		"bare":    "paused",
		"absent":  "not governed",
	} {
		assert.Equal(t, want, governance(h, name), name)
	}
}

func TestWriteFleet(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, writeFleet(&b, []fleetRow{
		{"cluster-proxy", "ocm/global", "yes", "3f2a", "Waiting", "group prod: Approval"},
		{"managed-serviceaccount", "-", "not governed", "-", "-", "no install-strategy placement"},
	}))
	assert.Equal(t, ""+
		"ADDON                   PLACEMENT   ROLLOUT       REVISION  PHASE    WAITS FOR\n"+
		"cluster-proxy           ocm/global  yes           3f2a      Waiting  group prod: Approval\n"+
		"managed-serviceaccount  -           not governed  -         -        no install-strategy placement\n",
		b.String())
}

func TestPausedBy(t *testing.T) {
	t.Parallel()
	now, err := time.Parse(time.RFC3339, "2026-12-05T04:00:00+01:00")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{PausedAtAnnotation: "2026-12-05T03:00:00Z"}, pausedBy("", now))
	assert.Equal(t, map[string]string{PausedAtAnnotation: "2026-12-05T03:00:00Z", PauseReasonAnnotation: "freeze"}, pausedBy("freeze", now))
}
