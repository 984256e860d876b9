package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestTwoPersonApproval: prod needs approvals from two distinct users
// (spec.minApproversByGroup). After a config change prod waits; alice's
// approval counts but is not enough (the approval's Approved condition
// says AwaitingApprovers, "1 of 2 approvals: alice", as do the group's
// message and pendingApprovals); alice approving again is not enough
// either; bob's approval releases prod. The approvals' usernames are
// written as the approvals' admission webhook records them (this hub runs
// without it; TestApprovalScopes runs it).
func TestTwoPersonApproval(t *testing.T) {
	t.Parallel()
	c := newControlled(t)
	ctx := context.Background()
	c.govern(t, v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"},
		ApproversSpec: v1alpha1.ApproversSpec{MinApproversByGroup: []v1alpha1.GroupApprovers{{Group: "prod", MinApprovers: 2}}}})
	c.setAgentImage(t, newImage)
	c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	pa := c.rollout(t).Status.PendingApprovals[0]
	assert.Equal(t, int32(2), pa.MinApprovers)
	approve := func(name, user string) {
		t.Helper()
		require.NoError(t, c.c.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: c.named(name)},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: c.addonName, Placement: pa.Placement, Group: "prod", Revision: pa.Revision, Username: user}}))
	}
	approved := func(t tb, name string) *metav1.Condition {
		var a v1alpha1.RolloutApproval
		require.NoError(t, c.c.Get(ctx, types.NamespacedName{Name: c.named(name)}, &a))
		return meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved)
	}

	approve("alice-1", "alice")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		cond := approved(ct, "alice-1")
		if assert.NotNil(ct, cond) {
			assert.Equal(ct, hubplan.ReasonAwaitingApprovers, cond.Reason)
			assert.Contains(ct, cond.Message, "1 of 2 approvals: alice")
		}
		ar := c.rollout(ct)
		if assert.Len(ct, ar.Status.PendingApprovals, 1) {
			assert.Equal(ct, []string{"alice"}, ar.Status.PendingApprovals[0].Approvers)
		}
	}, 30*time.Second, poll, "alice's approval counted")
	g, _ := c.group(t, "prod")
	assert.Contains(t, g.Message, "1 of 2 approvals: alice")
	c.holds(t, 3*soak, "one user had approved")

	approve("alice-2", "alice")
	c.holds(t, 3*soak, "one user had approved twice")
	assert.Equal(t, []string{"alice"}, c.rollout(t).Status.PendingApprovals[0].Approvers)

	approve("bob", "bob")
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, name := range []string{"alice-1", "alice-2", "bob"} {
			if cond := approved(ct, name); assert.NotNil(ct, cond) {
				assert.Equal(ct, hubplan.ReasonUsed, cond.Reason, name)
			}
		}
	}, 30*time.Second, poll, "the approvals used")
}
