package hubplan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// MinApprovers returns how many distinct users must approve group under
// spec: its spec.minApproversByGroup entry, else spec.minApprovers, else
// 1 (a value below 1 is taken as 1).
func MinApprovers(spec v1alpha1.ApproversSpec, group string) int {
	n := spec.MinApprovers
	for _, g := range spec.MinApproversByGroup {
		if g.Group == group {
			n = g.MinApprovers
		}
	}
	return max(int(n), 1)
}

// Approvers returns the users whose RolloutApprovals approve group of the
// add-on's placement ref at revision (see [Approves]), each once, sorted:
// the approvals count by username, so one user's approvals count once.
// Approvals with no recorded username (created where the approvals'
// admission webhook did not run) count together as one user, "".
func Approvers(approvals []*v1alpha1.RolloutApproval, addOn string, ref addonv1beta1.PlacementRef, group, revision string) []string {
	var users []string
	for _, a := range approvals {
		if Approves(a, addOn, ref, group, revision) && !slices.Contains(users, a.Spec.Username) {
			users = append(users, a.Spec.Username)
		}
	}
	slices.Sort(users)
	return users
}

// ApprovalProgress words how far a group's approval is:
// "1 of 2 approvals: alice"; "0 of 2 approvals". A user not recorded is
// shown as "(unrecorded)".
func ApprovalProgress(users []string, minApprovers int) string {
	s := fmt.Sprintf("%d of %d approvals", len(users), minApprovers)
	if len(users) == 0 {
		return s
	}
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = cmp.Or(u, "(unrecorded)")
	}
	return s + ": " + strings.Join(names, ", ")
}

// approvalGate admits a group of c.need once Approvers of it reach its
// MinApprovers; it holds it saying how far its approval is.
func (c controls) approvalGate(approvals []*v1alpha1.RolloutApproval, addOn string, ref addonv1beta1.PlacementRef, revision string) rollout.Gate {
	var ok []grouping.GroupKey
	progress := make(map[string]string, len(c.need))
	for _, g := range c.need {
		users, n := Approvers(approvals, addOn, ref, g, revision), MinApprovers(c.approvers, g)
		if len(users) >= n {
			ok = append(ok, grouping.GroupKey{Name: g})
		} else if n > 1 || len(users) > 0 {
			progress[g] = ApprovalProgress(users, n)
		}
	}
	gate := rollout.RequireApproval(c.need, ok...)
	return rollout.GateFunc(func(k grouping.GroupKey, now time.Time) rollout.Admission {
		a := gate.Admit(k, now)
		if p, found := progress[k.Name]; !a.Admitted && found {
			a.Reason += " (" + p + ")"
		}
		return a
	})
}

// approverErrors returns the problems of spec.minApproversByGroup: a
// group that spec.approvalRequired does not name.
func approverErrors(spec *field.Path, ar *v1alpha1.AddOnRollout) []error {
	var errs []error
	for i, g := range ar.Spec.MinApproversByGroup {
		if !slices.Contains(ar.Spec.ApprovalRequired, g.Group) {
			errs = append(errs, field.Invalid(spec.Child("minApproversByGroup").Index(i).Child("group"), g.Group,
				fmt.Sprintf("want a group of spec.approvalRequired (%s): no other group waits for approvals", strings.Join(ar.Spec.ApprovalRequired, ", "))))
		}
	}
	return errs
}

// PendingProgress words how far the approval of pa's group is, as
// status shows it: "1 of 2 approvals: alice"; "" when one approval is
// enough.
func PendingProgress(pa v1alpha1.PendingApproval) string {
	if pa.MinApprovers <= 1 {
		return ""
	}
	return ApprovalProgress(pa.Approvers, int(pa.MinApprovers))
}
