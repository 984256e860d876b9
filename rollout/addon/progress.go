package addon

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Progress holds the numbers OCM's add-on manager writes into the
// Progressing condition of a ClusterManagementAddOn's install progression
// (status.installProgressions[] of one placement).
type Progress struct {
	// Selected is the number of clusters the placement selects.
	Selected int
	// Rolling is the number of add-ons the rollout lists to apply or keep
	// applying (in rollout.Result.ToRollout): starting, progressing, failed
	// within the deadline, soaking.
	Rolling int
	// Succeeded is the number of add-ons that succeeded and are no longer
	// listed (their soak is over).
	Succeeded int
	// Failed is the number of add-ons whose Progressing condition says
	// Failed and that are no longer listed (past the deadline, or not
	// reached by the rollout).
	Failed int
	// TimedOut is the number of clusters the rollout timed out
	// (len(rollout.Result.TimedOut)).
	TimedOut int
}

// Tally counts an install progression the way OCM's add-on manager does,
// from the placement's groups, the placement's evaluated add-ons (from
// [Evaluate]; add-ons on clusters outside the groups are ignored) and the
// planner's result for them:
//
//   - Selected: the distinct clusters of groups;
//   - Rolling: the add-ons whose cluster is in r.ToRollout (a cluster listed
//     without an add-on is not counted);
//   - Succeeded and Failed: the add-ons not in r.ToRollout whose observed
//     status is Succeeded or Failed, Custom ones included: an add-on with
//     spec.configs of its own is compared by value (docs/semantics.md §5.3),
//     so it can succeed and the progression can complete. OCM compares such
//     configs by pointer and never counts them, so its progression never
//     completes (docs/compatibility.md, A3);
//   - TimedOut: len(r.TimedOut).
//
// A Failed add-on past its deadline is counted as failed and as timed out,
// as in OCM.
func Tally(groups []grouping.Group, addons []Cluster, r rollout.Result) Progress {
	clusters := make(map[string]bool)
	for _, g := range groups {
		for _, c := range g.Clusters {
			clusters[c] = true
		}
	}
	listed := make(map[string]bool, len(r.ToRollout))
	for _, s := range r.ToRollout {
		listed[s.Cluster] = true
	}
	p := Progress{Selected: len(clusters), TimedOut: len(r.TimedOut)}
	for _, a := range addons {
		switch c := a.Status.Cluster; {
		case !clusters[c]:
		case listed[c]:
			p.Rolling++
		case a.Status.Status == rollout.Succeeded:
			p.Succeeded++
		case a.Status.Status == rollout.Failed:
			p.Failed++
		}
	}
	return p
}

// Completed reports whether the install progression is complete: the
// placement selects at least one cluster and every selected cluster has a
// succeeded add-on. An empty placement is never complete, as in OCM.
func (p Progress) Completed() bool {
	return p.Succeeded == p.Selected && p.Selected != 0
}

// Condition returns the install progression's Progressing condition for p:
//
//	True,  reason Progressing: "selected clusters %d. configured addons %d/%d progressing..., %d failed %d timeout."
//	False, reason Completed:   "selected clusters %d. configured addons %d/%d completed with no errors, %d failed %d timeout."
//
// with Selected; Rolling+Succeeded (progressing) or Succeeded (completed);
// Selected; Failed; TimedOut. LastTransitionTime and ObservedGeneration are
// left zero: set the condition with meta.SetStatusCondition, which keeps the
// time when the status does not change, as [InstallProgression] does.
//
// OCM v1.2.0 writes the same reasons and numbers but its message has no
// "selected clusters %d. configured addons " prefix (it starts at "%d/%d");
// the message here is the one the project's specification gives.
func (p Progress) Condition() metav1.Condition {
	c := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing}
	if p.Completed() {
		c.Status = metav1.ConditionFalse
		c.Reason = addonv1beta1.ProgressingReasonCompleted
		c.Message = fmt.Sprintf("selected clusters %d. configured addons %d/%d completed with no errors, %d failed %d timeout.",
			p.Selected, p.Succeeded, p.Selected, p.Failed, p.TimedOut)
		return c
	}
	c.Status = metav1.ConditionTrue
	c.Reason = addonv1beta1.ProgressingReasonProgressing
	c.Message = fmt.Sprintf("selected clusters %d. configured addons %d/%d progressing..., %d failed %d timeout.",
		p.Selected, p.Rolling+p.Succeeded, p.Selected, p.Failed, p.TimedOut)
	return c
}
