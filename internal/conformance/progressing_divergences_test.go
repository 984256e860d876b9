package conformance

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// progressingDivergence is a documented difference between OCM's
// addonprogressing controller and addon.Progressing
// (docs/compatibility.md, W1...). Applies says, from the input and OCM's
// outcome, whether a scenario touches it; the parity test lets the two
// disagree only then, and requires each to explain a disagreement at
// least once in a full run. Confirm, when set, must then show that OCM
// itself gives our answer for another order of the same input.
type progressingDivergence struct {
	ID, Summary string
	Applies     func(pc progressingCase, theirs progressingOutcome) bool
	Confirm     func(pc progressingCase, ours progressingOutcome) []string
}

var progressingDivergences = []progressingDivergence{
	{
		ID:      "W1",
		Summary: "a mismatching work and a work not ready in one namespace: OCM's message follows its informer's order, ours is the mismatch",
		Applies: mismatchBehindNotReady,
		Confirm: mismatchFirstAgrees,
	},
	{
		ID:      "W2",
		Summary: "Completed after another reason of status False (WaitingForManifestApplied, say): ours takes a new lastTransitionTime, so the soak starts then; OCM keeps the old one",
		Applies: completedAfterOtherFalse,
		Confirm: onlyCompletedTime,
	},
}

// completedAfterOtherFalse: the add-on's Progressing condition was False
// with a reason other than Completed, and OCM now says Completed.
func completedAfterOtherFalse(pc progressingCase, theirs progressingOutcome) bool {
	if pc.MCA == nil || theirs.progressing().Reason != "Completed" {
		return false
	}
	old := meta.FindStatusCondition(pc.MCA.Status.Conditions, "Progressing")
	return old != nil && old.Status == metav1.ConditionFalse && old.Reason != "Completed"
}

// onlyCompletedTime returns how ours differs from OCM's once ours is given
// OCM's time, the one the condition had: nothing, when W2 is the only
// difference.
func onlyCompletedTime(pc progressingCase, ours progressingOutcome) []string {
	old := meta.FindStatusCondition(pc.MCA.Status.Conditions, "Progressing")
	adjusted := ours
	adjusted.NewTime = false
	adjusted.Status = *ours.Status.DeepCopy()
	if c := meta.FindStatusCondition(adjusted.Status.Conditions, "Progressing"); c != nil {
		c.LastTransitionTime = old.LastTransitionTime
	}
	return diffProgressing(adjusted, runOCMProgressing(pc))
}

// progressingMsgNotReady and progressingMsgMismatch are OCM's messages
// for a work that is not ready and one whose configs do not match.
const (
	progressingMsgNotReady = "progressing... work is not ready"
	progressingMsgMismatch = "progressing... mca and work configs mismatch"
)

// mismatchBehindNotReady: OCM reported a work not ready, and one of the
// works, run alone through OCM's controller, mismatches.
func mismatchBehindNotReady(pc progressingCase, theirs progressingOutcome) bool {
	if theirs.progressing().Message != progressingMsgNotReady {
		return false
	}
	return len(aloneMismatching(pc)) > 0
}

// aloneMismatching lists the works that OCM's controller, given only that
// work, finds mismatching.
func aloneMismatching(pc progressingCase) map[*workv1.ManifestWork]bool {
	out := map[*workv1.ManifestWork]bool{}
	for _, w := range pc.Works {
		if w == nil {
			continue
		}
		alone := pc
		alone.Works = []*workv1.ManifestWork{w}
		if runOCMProgressing(alone).progressing().Message == progressingMsgMismatch {
			out[w] = true
		}
	}
	return out
}

// mismatchFirstAgrees runs OCM's controller again with the mismatching
// works listed first (an order its informer can give) and returns how it
// still differs from ours.
func mismatchFirstAgrees(pc progressingCase, ours progressingOutcome) []string {
	bad := aloneMismatching(pc)
	reordered := pc
	reordered.Works = slices.Clone(pc.Works)
	slices.SortStableFunc(reordered.Works, func(a, b *workv1.ManifestWork) int {
		switch {
		case bad[a] == bad[b]:
			return 0
		case bad[a]:
			return -1
		}
		return 1
	})
	return diffProgressing(ours, runOCMProgressing(reordered))
}
