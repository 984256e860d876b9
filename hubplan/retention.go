package hubplan

import (
	"cmp"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// DefaultApprovalRetention is how long the controller keeps an approval
// of a superseded revision unless told otherwise: a week, long enough to
// read who approved what after a rollout moved on.
const DefaultApprovalRetention = 7 * 24 * time.Hour

// Expiry is an approval past its retention.
type Expiry struct {
	// Name is the RolloutApproval's name.
	Name string
	// Revision is the revision it approves.
	Revision string
	// Current is the revision its placement rolls out instead.
	Current string
	// Since is when it was superseded at the latest: the later of its
	// creation and the start of the current revision.
	Since time.Time
}

// expired returns the approvals of the add-on that are past retention,
// sorted by name, and how long until the next one is (0: none).
//
// An approval expires when its Approved condition, as the plan leaves it
// (statuses override what approvals say), is RevisionMismatch: its
// placement rolls out another revision. It has been superseded since the
// later of its creation and the start of that revision (the placement's
// revisionStartTime in st), and expires once that is retention ago. An
// approval Used, NotUsedYet, pending or of any other reason is kept, and
// retention 0 keeps every one.
func expired(approvals []*v1alpha1.RolloutApproval, statuses []ApprovalStatus, addOn string, st v1alpha1.AddOnRolloutStatus,
	retention time.Duration, now time.Time) ([]Expiry, time.Duration) {
	if retention <= 0 {
		return nil, 0
	}
	var (
		out  []Expiry
		next time.Duration
	)
	for _, a := range approvals {
		if a == nil || a.Spec.AddOn != addOn || !superseded(a, statuses) {
			continue
		}
		i := slices.IndexFunc(st.Placements, func(ps v1alpha1.PlacementStatus) bool {
			return ps.Namespace == a.Spec.Placement.Namespace && ps.Name == a.Spec.Placement.Name
		})
		if i < 0 || st.Placements[i].Revision == a.Spec.Revision || st.Placements[i].RevisionStartTime == nil {
			continue
		}
		ps := st.Placements[i]
		since := later(a.CreationTimestamp.Time, ps.RevisionStartTime.Time)
		if left := since.Add(retention).Sub(now); left > 0 {
			next = rollout.Sooner(next, left)
			continue
		}
		out = append(out, Expiry{Name: a.Name, Revision: a.Spec.Revision, Current: ps.Revision, Since: since})
	}
	slices.SortFunc(out, func(x, y Expiry) int { return cmp.Compare(x.Name, y.Name) })
	return out, next
}

// superseded reports whether a's Approved condition, as statuses leave
// it, is RevisionMismatch.
func superseded(a *v1alpha1.RolloutApproval, statuses []ApprovalStatus) bool {
	conds := a.Status.Conditions
	if i := slices.IndexFunc(statuses, func(s ApprovalStatus) bool { return s.Name == a.Name }); i >= 0 {
		conds = statuses[i].Conditions
	}
	c := meta.FindStatusCondition(conds, ConditionApproved)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == ReasonRevisionMismatch
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
