package hubplan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestApprovers: the approvals of a group at a revision count by
// distinct user; the same user twice counts once; approvals of another
// group, revision, placement or add-on do not count; MinApprovers takes
// the group's override, else the rollout's, else 1; the progress reads
// "1 of 2 approvals: alice".
func TestApprovers(t *testing.T) {
	t.Parallel()
	ref := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "global"}
	by := func(user, group, revision string) *v1alpha1.RolloutApproval {
		return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: user + "-" + group + "-" + revision},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy", Placement: v1alpha1.PlacementRef{Namespace: ref.Namespace, Name: ref.Name},
				Group: group, Revision: revision, Username: user}}
	}
	other := by("carol", "prod", "r1")
	other.Spec.AddOn = "managed-serviceaccount"
	elsewhere := by("dave", "prod", "r1")
	elsewhere.Spec.Placement.Name = "canary"
	twoForProd := v1alpha1.ApproversSpec{MinApprovers: 1, MinApproversByGroup: []v1alpha1.GroupApprovers{{Group: "prod", MinApprovers: 2}}}
	tests := []struct {
		name      string
		approvals []*v1alpha1.RolloutApproval
		spec      v1alpha1.ApproversSpec
		wantUsers []string
		wantMin   int
		wantText  string
	}{
		{"none", nil, twoForProd, nil, 2, "0 of 2 approvals"},
		{"one approver", []*v1alpha1.RolloutApproval{by("alice", "prod", "r1")}, twoForProd, []string{"alice"}, 2, "1 of 2 approvals: alice"},
		{"the same user twice", []*v1alpha1.RolloutApproval{by("alice", "prod", "r1"), by("alice", "prod", "r1")}, twoForProd, []string{"alice"}, 2, "1 of 2 approvals: alice"},
		{"two users", []*v1alpha1.RolloutApproval{by("bob", "prod", "r1"), by("alice", "prod", "r1")}, twoForProd, []string{"alice", "bob"}, 2, "2 of 2 approvals: alice, bob"},
		{"others do not count", []*v1alpha1.RolloutApproval{by("bob", "stg", "r1"), by("erin", "prod", "r0"), other, elsewhere, nil},
			v1alpha1.ApproversSpec{MinApprovers: 3}, nil, 3, "0 of 3 approvals"},
		{"no user recorded", []*v1alpha1.RolloutApproval{by("", "prod", "r1"), by("", "prod", "r1")}, v1alpha1.ApproversSpec{}, []string{""}, 1, "1 of 1 approvals: (unrecorded)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			users := hubplan.Approvers(tt.approvals, "cluster-proxy", ref, "prod", "r1")
			require.Equal(t, tt.wantUsers, users)
			n := hubplan.MinApprovers(tt.spec, "prod")
			assert.Equal(t, tt.wantMin, n)
			assert.Equal(t, tt.wantText, hubplan.ApprovalProgress(users, n))
		})
	}
}

// TestValidateSpecMinApprovers: a group of spec.minApproversByGroup that
// spec.approvalRequired does not name is refused, naming field and value.
func TestValidateSpecMinApprovers(t *testing.T) {
	t.Parallel()
	ar := &v1alpha1.AddOnRollout{Spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"},
		ApproversSpec: v1alpha1.ApproversSpec{MinApproversByGroup: []v1alpha1.GroupApprovers{{Group: "prod", MinApprovers: 2}, {Group: "stg", MinApprovers: 2}}}}}
	errs := hubplan.ValidateSpec(ar, nil)
	require.Len(t, errs, 1)
	assert.Equal(t, `spec.minApproversByGroup[1].group: Invalid value: "stg": want a group of spec.approvalRequired (prod): no other group waits for approvals`, errs[0].Error())
}

// TestPendingProgress checks the words status, -dry-run and examples/plan
// print for a pending approval's progress.
func TestPendingProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pa   v1alpha1.PendingApprovers
		want string
	}{
		{"one approval is enough", v1alpha1.PendingApprovers{}, ""},
		{"one is enough, one given", v1alpha1.PendingApprovers{Approvers: []string{"alice"}, MinApprovers: 1}, ""},
		{"none of two", v1alpha1.PendingApprovers{MinApprovers: 2}, "0 of 2 approvals"},
		{"one of two", v1alpha1.PendingApprovers{Approvers: []string{"alice"}, MinApprovers: 2}, "1 of 2 approvals: alice"},
		{"unrecorded user", v1alpha1.PendingApprovers{Approvers: []string{"", "bob"}, MinApprovers: 3}, "2 of 3 approvals: (unrecorded), bob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, hubplan.PendingProgress(v1alpha1.PendingApproval{Group: "prod", Revision: "r1", PendingApprovers: tt.pa}))
		})
	}
}
