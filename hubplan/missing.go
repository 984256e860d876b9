package hubplan

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
)

// ReasonAddOnNotFound is the reason of an AddOnRollout's Progressing
// condition and of a RolloutApproval's Approved condition (both False)
// when the hub has no ClusterManagementAddOn of the name they give.
const ReasonAddOnNotFound = "AddOnNotFound"

// planMissing is what the AddOnRollout and the approvals of ctl say when
// the hub has no ClusterManagementAddOn named addOn ([Planner.Plan]): the
// AddOnRollout's Progressing condition is False, reason AddOnNotFound,
// and its status lists no placement and no pending approval; each
// approval naming addOn gets an Approved condition False, reason
// AddOnNotFound. Both messages say how to fix a typo. The status is
// confirmed as a plan's is.
func (pl Planner) planMissing(ctl Controls, addOn string) Plan {
	now := clock.NowOf(pl.Rollout.Clock)
	var p Plan
	if ar := ctl.Rollout; ar != nil {
		st := v1alpha1.AddOnRolloutStatus{ObservedGeneration: ar.Generation, Conditions: setConditions(ar.Status.Conditions,
			conditionAt(ConditionProgressing, metav1.ConditionFalse, ReasonAddOnNotFound, fmt.Sprintf(
				"the hub has no ClusterManagementAddOn %q: an AddOnRollout governs the add-on of its own name; "+
					"if the name is mistyped, create the AddOnRollout again under the add-on's name (kubectl get clustermanagementaddons)",
				addOn), ar.Generation, now))}
		p.Status, p.RecheckAfter = confirm(st, ar.Status, now, 0)
	}
	msg := fmt.Sprintf("the hub has no ClusterManagementAddOn %q: this approval approves nothing; "+
		"if spec.addOn is mistyped, create another RolloutApproval naming the add-on (kubectl get clustermanagementaddons)", addOn)
	for _, a := range ctl.Approvals {
		if a == nil || a.Spec.AddOn != addOn {
			continue
		}
		conds := setConditions(a.Status.Conditions,
			conditionAt(ConditionApproved, metav1.ConditionFalse, ReasonAddOnNotFound, msg, a.Generation, now))
		if !slices.EqualFunc(conds, a.Status.Conditions, sameCondition) {
			p.Approvals = append(p.Approvals, ApprovalStatus{Name: a.Name, Conditions: conds})
		}
	}
	slices.SortFunc(p.Approvals, func(a, b ApprovalStatus) int { return cmp.Compare(a.Name, b.Name) })
	return p
}
