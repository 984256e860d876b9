package planreport_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// soakingStatus is the status the controller wrote at 12:11, confirmed
// then (confirmed true) or with only its conditions' times: stg soaks
// until 12:15, when the controller is due to recheck (recheck true).
func soakingStatus(confirmed, recheck bool) v1alpha1.AddOnRolloutStatus {
	written := metav1.NewTime(at(12, 11))
	until := metav1.NewTime(at(12, 15))
	st := v1alpha1.AddOnRolloutStatus{
		ObservedGeneration: 2,
		Placements: []v1alpha1.PlacementStatus{{Namespace: hubNS, Name: placeName, Revision: seedRevision(), Groups: []v1alpha1.GroupStatus{
			{Name: "dev", Index: 0, Phase: "Complete", Message: "complete: 1 succeeded", Counts: v1alpha1.GroupCounts{Succeeded: 1}},
			{Name: "stg", Index: 1, Phase: "Active", WaitsFor: "Cluster", Until: &until, Message: `1 soaking; waiting for "stg-cluster" soaking until 12:15:00 (4m0s left)`,
				Counts: v1alpha1.GroupCounts{Succeeded: 1, Soaking: 1}},
			{Name: "prod", Index: 2, Phase: "Waiting", WaitsFor: "Group", Until: &until, Message: `waiting for group "stg": "stg-cluster" soaking until 12:15:00 (4m0s left)`,
				Counts: v1alpha1.GroupCounts{ToApply: 1}},
		}}},
		Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionTrue, Reason: "RollingOut", Message: "rolling out", LastTransitionTime: written}},
	}
	if confirmed {
		st.LastConfirmedTime = &written
	}
	if recheck {
		st.RecheckTime = &until
	}
	return st
}

// TestWriteStatusConfirmation: the status says when the controller last
// confirmed the AddOnRollout's status; past its recheck time (and the
// grace) it says the status is stale, shows the groups as the status last
// said them with their times past as past, and never that anything starts
// now or that the controller has written it for the current spec.
func TestWriteStatusConfirmation(t *testing.T) {
	t.Parallel()
	stale := []string{"starting now", "the controller has written it for the current spec"}
	tests := []struct {
		name          string
		status        v1alpha1.AddOnRolloutStatus
		now           time.Time
		stale         bool
		source        string
		want, wantNot []string
	}{
		{
			name: "before the recheck: live", status: soakingStatus(true, true), now: at(12, 14), source: planreport.SourceLastConfirmedTime,
			want: []string{"status of generation 2: the controller has written it for the current spec; the controller last confirmed it at 2026-11-30 12:11:00 UTC (3m ago), " +
				"and rechecks it by 2026-11-30 12:15:00 UTC (in 60s)"},
			wantNot: []string{"stale"},
		},
		{
			name: "past the recheck, within the grace: live", status: soakingStatus(true, true), now: at(12, 15).Add(50 * time.Second), source: planreport.SourceLastConfirmedTime,
			want:    []string{"and rechecks it by 2026-11-30 12:15:00 UTC (50s ago)"},
			wantNot: []string{"stale"},
		},
		{
			name: "past the recheck and the grace: stale", status: soakingStatus(true, true), now: at(12, 20), stale: true, source: planreport.SourceLastConfirmedTime,
			want: []string{
				"status of generation 2: status is stale: the controller last confirmed it at 2026-11-30 12:11:00 UTC (9m ago) " +
					"and was due to recheck by 2026-11-30 12:15:00 UTC (5m ago): is the controller running?",
				"the groups as the stale status last said them; nothing acts on them until a controller runs:",
				"2026-11-30 12:15:00 UTC (5m ago)",
				`a running controller would start: prod-cluster`,
				"conditions, as the stale status last said them:",
			},
			wantNot: stale,
		},
		{
			name: "stale, written without lastConfirmedTime: the time of the last write", status: soakingStatus(false, true), now: at(12, 20), stale: true,
			source:  planreport.SourceStatusWrite,
			want:    []string{"status is stale: the controller last wrote it at 2026-11-30 12:11:00 UTC (9m ago) and was due to recheck by"},
			wantNot: stale,
		},
		{
			name: "no recheck time: nothing tells it stale", status: soakingStatus(true, false), now: at(12, 20), source: planreport.SourceLastConfirmedTime,
			want:    []string{"the controller has written it for the current spec; the controller last confirmed it at 2026-11-30 12:11:00 UTC (9m ago)\n"},
			wantNot: []string{"stale"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(controlled(v1alpha1.AddOnRolloutSpec{}, tt.status), addonName, tt.now, nil)
			require.NoError(t, err)
			var text bytes.Buffer
			require.NoError(t, rep.WriteStatus(&text, planreport.StatusOptions{Command: "rolloutctl"}))
			for _, w := range tt.want {
				assert.Contains(t, text.String(), w)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, text.String(), w)
			}

			var js bytes.Buffer
			require.NoError(t, rep.WriteJSON(&js))
			var doc struct {
				Rollout struct {
					Confirmation planreport.Confirmation      `json:"confirmation"`
					Written      *v1alpha1.AddOnRolloutStatus `json:"written"`
				} `json:"rollout"`
			}
			require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
			c := doc.Rollout.Confirmation
			assert.Equal(t, tt.stale, c.Stale)
			assert.Equal(t, tt.source, c.Source)
			require.NotNil(t, c.LastConfirmed)
			assert.Equal(t, at(12, 11), c.LastConfirmed.UTC())
			assert.Equal(t, tt.stale, doc.Rollout.Written != nil, "the status as read, when stale")
			if tt.stale {
				assert.InDelta(t, tt.now.Sub(at(12, 15)).Seconds(), c.StaleSeconds, 0)
				assert.Equal(t, "Active", doc.Rollout.Written.Placements[0].Groups[1].Phase)
			}
		})
	}
}

// TestRelative: a time from now says how long ago or in how long.
func TestRelative(t *testing.T) {
	t.Parallel()
	now := at(12, 0)
	for _, tt := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(-12 * time.Minute), "12m ago"},
		{now.Add(90 * time.Second), "in 90s"},
		{now.Add(500 * time.Millisecond), "now"},
		{now.Add(-25 * time.Hour), "25h ago"},
	} {
		assert.Equal(t, tt.want, planreport.Relative(tt.t, now), "%s", tt.t)
	}
}

// TestWriteStatusNotActedOn: when the configs on the hub make a revision
// other than the one the status was written for (the controller is
// stopped, or has not reconciled since the change), the status says at
// once, however recently the status was confirmed, that the controller has
// not acted on the new revision, with its configs and the revision the
// status describes; it shows the groups as the status last said them and
// never as live, and its JSON lists the placement.
func TestWriteStatusNotActedOn(t *testing.T) {
	t.Parallel()
	config := "(placement open-cluster-management/cluster-proxy-placement, config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy: spec hash "
	tests := []struct {
		name    string
		status  func() v1alpha1.AddOnRolloutStatus
		written string
		want    []string
	}{
		{
			name: "written for another revision",
			status: func() v1alpha1.AddOnRolloutStatus {
				st := soakingStatus(true, true)
				st.Placements[0].Revision = "0123456789ab"
				return st
			},
			written: "0123456789ab",
			want: []string{"status of generation 2: the controller has not acted on revision " + seedRevision() + " yet " + config,
				"): the status describes revision 0123456789ab, as the controller last confirmed it at 2026-11-30 12:11:00 UTC (3m ago)\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(controlled(v1alpha1.AddOnRolloutSpec{}, tt.status()), addonName, at(12, 14), nil)
			require.NoError(t, err)
			var text bytes.Buffer
			require.NoError(t, rep.WriteStatus(&text, planreport.StatusOptions{Command: "rolloutctl"}))
			for _, w := range append(tt.want, "the groups as the status last said them, for the revisions before the change; nothing acts on the change until the controller does:",
				"conditions, as the status last said them before the change:") {
				assert.Contains(t, text.String(), w)
			}
			for _, w := range []string{"starting now", "the controller has written it for the current spec", "stale"} {
				assert.NotContains(t, text.String(), w)
			}

			var js bytes.Buffer
			require.NoError(t, rep.WriteJSON(&js))
			var doc struct {
				Rollout struct {
					NotActedOn []planreport.NotActedOn      `json:"notActedOn"`
					Written    *v1alpha1.AddOnRolloutStatus `json:"written"`
				} `json:"rollout"`
			}
			require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
			require.Len(t, doc.Rollout.NotActedOn, 1)
			n := doc.Rollout.NotActedOn[0]
			assert.Equal(t, v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}, n.Placement)
			assert.Equal(t, seedRevision(), n.Revision)
			assert.Equal(t, tt.written, n.Written)
			require.Len(t, n.Configs, 1)
			assert.NotEmpty(t, n.Configs[0].SpecHash)
			assert.NotNil(t, doc.Rollout.Written, "the status as read, when it does not describe the hub")
		})
	}
}

// TestNotActedOnNeedsARevision: a status that gives a placement no
// revision (it names another placement, or none) says nothing to compare
// the configs with: the placement is not listed as not acted on.
func TestNotActedOnNeedsARevision(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func(*v1alpha1.AddOnRolloutStatus){
		"another placement": func(st *v1alpha1.AddOnRolloutStatus) { st.Placements[0].Name = "another-placement" },
		"no revision":       func(st *v1alpha1.AddOnRolloutStatus) { st.Placements[0].Revision = "" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := soakingStatus(true, true)
			edit(&st)
			rep, err := planreport.New(controlled(v1alpha1.AddOnRolloutSpec{}, st), addonName, at(12, 14), nil)
			require.NoError(t, err)
			require.NotNil(t, rep.Rollout)
			assert.Empty(t, rep.Rollout.NotActedOn)
			assert.Nil(t, rep.Rollout.Written)
		})
	}
}
