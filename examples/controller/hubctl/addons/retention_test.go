package addons

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestApprovalRetention: an approval of a revision no longer rolled out
// is deleted once superseded for longer than the retention, with an
// event; the approval used for the current revision is kept, and the
// reconcile asks to run again when the next one expires.
func TestApprovalRetention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		retention time.Duration
		deleted   bool
	}{
		{"past an hour's retention: deleted", time.Hour, true},
		{"retention 0: kept forever", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"dev"}}))
			h.r.ApprovalRetention = tc.retention
			h.reconcile()
			pa := h.rollout().Status.PendingApprovals
			require.Len(t, pa, 1)
			approval := func(name, revision string) *v1alpha1.RolloutApproval {
				return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(h.clk.Now())},
					Spec: v1alpha1.RolloutApprovalSpec{AddOn: hubtest.SeedAddonName, Placement: pa[0].Placement, Group: "dev", Revision: revision, Username: "alice"}}
			}
			require.NoError(t, h.Client.Create(context.Background(), approval("old", "000000000000")))
			require.NoError(t, h.Client.Create(context.Background(), approval("current", pa[0].Revision)))
			recheck := h.reconcile()
			assert.Equal(t, "Used", h.approvedReason("current"))
			assert.Equal(t, hubplan.ReasonRevisionMismatch, h.approvedReason("old"))
			if tc.retention > 0 {
				assert.LessOrEqual(t, recheck, hubplan.ConfirmInterval)
			}
			h.clk.Step(time.Hour + time.Second)
			h.reconcile()
			assert.Equal(t, tc.deleted, !h.exists("old"))
			assert.True(t, h.exists("current"), "the approval used for the current revision")
			ev := strings.Join(h.events(), "\n")
			if tc.deleted {
				assert.Contains(t, ev, EventApprovalDeleted+" deleted RolloutApproval old (by alice) of revision 000000000000")
			} else {
				assert.NotContains(t, ev, EventApprovalDeleted)
			}
		})
	}
}

// approvedReason is the reason of the approval name's Approved condition.
func (h *rolloutHub) approvedReason(name string) string {
	h.T.Helper()
	var a v1alpha1.RolloutApproval
	require.NoError(h.T, h.Client.Get(context.Background(), types.NamespacedName{Name: name}, &a))
	for _, c := range a.Status.Conditions {
		if c.Type == hubplan.ConditionApproved {
			return c.Reason
		}
	}
	return ""
}

// exists reports whether the hub has the approval name.
func (h *rolloutHub) exists(name string) bool {
	h.T.Helper()
	err := h.Client.Get(context.Background(), types.NamespacedName{Name: name}, &v1alpha1.RolloutApproval{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(h.T, err)
	return true
}

// TestStatusConfirmed: the reconciler requeues at the status's
// recheckTime and writes an unchanged status only then.
func TestStatusConfirmed(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{Paused: true}))
	requeue := h.reconcile()
	ar := h.rollout()
	require.NotNil(t, ar.Status.RecheckTime)
	assert.Equal(t, hubtest.Start, ar.Status.LastConfirmedTime.UTC())
	assert.Equal(t, ar.Status.RecheckTime.Sub(h.clk.Now()), requeue, "requeued at the recheck time")
	h.clk.Step(time.Minute)
	requeue = h.reconcile()
	assert.Equal(t, ar.ResourceVersion, h.rollout().ResourceVersion, "nothing changed: nothing written")
	assert.Equal(t, hubplan.ConfirmInterval-time.Minute, requeue)
	h.clk.Step(requeue)
	h.reconcile()
	again := h.rollout()
	assert.NotEqual(t, ar.ResourceVersion, again.ResourceVersion, "confirmed at its recheck time")
	assert.Equal(t, hubtest.Start.Add(hubplan.ConfirmInterval), again.Status.LastConfirmedTime.UTC())
}
