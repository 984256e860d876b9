package addon

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/clock"
)

// MessageHold is how long [PlanProgress] holds back a change of only the
// message of an add-on's Progressing condition while it stays True with
// the reason Progressing, counted from the condition's
// lastTransitionTime, when the add-on started progressing. In a rollout
// an add-on goes from "mca and work configs mismatch" (written with its
// new desired configs) to "work is not ready" (its works carry them) to
// Completed within seconds: the middle write, one in three of an add-on's
// progress writes, tells no reader anything a rollout acts on. An add-on
// whose works stay not ready says so once the hold is over.
const MessageHold = 30 * time.Second

// ProgressPlan is what the progress of one add-on calls for: the status
// [Progressing] gives it, and whether that is to be written now.
type ProgressPlan struct {
	// Status is the add-on's status with its Progressing condition, and
	// its lastAppliedConfigs when Completed, as Progressing gives them.
	Status addonv1beta1.ManagedClusterAddOnStatus
	// Write is true when Status differs from the add-on's status and is
	// to be written now.
	Write bool
	// RecheckAfter is not zero when Status differs from the add-on's only
	// in the Progressing message and the change is held back
	// (MessageHold): how long until the hold is over. The caller plans
	// again then, unless something else changes first.
	RecheckAfter time.Duration
}

// PlanProgress returns what the progress of the ManagedClusterAddOn mca
// calls for, from works, as [Progressing] reports it (clk: nil is the real
// clock): its new status, and whether to write it. A status that equals
// mca's is not written. Nor, for MessageHold after the Progressing
// condition's lastTransitionTime, is one that differs from mca's only in
// the Progressing condition's message while the condition is True with
// the reason Progressing before and after: OCM's add-on manager writes
// every such message (docs/compatibility.md, W3); a rollout reads the
// condition's status and reason, which do not change. Every other change
// is written at once: a new status or reason, Completed and the
// lastAppliedConfigs with it, a message older than the hold. mca and works
// are not modified, and the result shares nothing with them. The errors
// are Progressing's.
func PlanProgress(mca *addonv1beta1.ManagedClusterAddOn, works []*workv1.ManifestWork, clk clock.PassiveClock) (ProgressPlan, error) {
	status, err := Progressing(mca, works, clk)
	if err != nil {
		return ProgressPlan{}, err
	}
	plan := ProgressPlan{Status: status}
	if equality.Semantic.DeepEqual(status.ConfigReferences, mca.Status.ConfigReferences) &&
		equality.Semantic.DeepEqual(status.Conditions, mca.Status.Conditions) {
		return plan, nil
	}
	before := meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	if before == nil || !progressingMessageOnly(mca.Status, status, before) {
		plan.Write = true
		return plan, nil
	}
	if left := before.LastTransitionTime.Add(MessageHold).Sub(clock.NowOf(clk)); left > 0 {
		plan.RecheckAfter = left
		return plan, nil
	}
	plan.Write = true
	return plan, nil
}

// progressingMessageOnly reports whether the status after differs from
// before only in the message of a Progressing condition (before's is
// cond) that is True with the reason Progressing in both.
func progressingMessageOnly(before, after addonv1beta1.ManagedClusterAddOnStatus, cond *metav1.Condition) bool {
	now := meta.FindStatusCondition(after.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	progressing := func(c *metav1.Condition) bool {
		return c.Status == metav1.ConditionTrue && c.Reason == addonv1beta1.ProgressingReasonProgressing
	}
	if now == nil || !progressing(cond) || !progressing(now) || now.Message == cond.Message {
		return false
	}
	kept := slices.Clone(after.Conditions) // metav1.Condition holds no pointers
	meta.FindStatusCondition(kept, addonv1beta1.ManagedClusterAddOnConditionProgressing).Message = cond.Message
	return equality.Semantic.DeepEqual(after.ConfigReferences, before.ConfigReferences) &&
		equality.Semantic.DeepEqual(kept, before.Conditions)
}
