package planreport

import (
	"cmp"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// withStatus returns pr with what the AddOnRollout's status ps says of
// its placement: its revision, its kind and rendering revision, its
// configs and each group's status.
func withStatus(pr Placement, ps v1alpha1.PlacementStatus) Placement {
	pr.Revision, pr.Kind, pr.Rendering, pr.FastRollback = ps.Revision, ps.Kind, ps.Rendering, ps.FastRollback
	if len(ps.Configs) > 0 {
		pr.Configs = make([]v1alpha1.RevisionConfig, len(ps.Configs))
		copy(pr.Configs, ps.Configs)
	}
	groups := make([]Group, len(pr.Groups))
	copy(groups, pr.Groups)
	for i, g := range groups {
		for _, gs := range ps.Groups {
			if gs.Name == g.Name && gs.Index == g.Index {
				groups[i].Status = gs.DeepCopy()
				break
			}
		}
	}
	pr.Groups = groups
	return pr
}

// rolloutReport is what the AddOnRollout ar makes of the plan p at now,
// with the add-on's approvals among approvals.
func rolloutReport(ar *v1alpha1.AddOnRollout, p hubplan.Plan, approvals []*v1alpha1.RolloutApproval, now time.Time) *Rollout {
	r := &Rollout{
		Name: ar.Name, Generation: ar.Generation, ObservedGeneration: ar.Status.ObservedGeneration, Paused: ar.Spec.Paused,
		Invalid: problems(p.Invalid), NotActedOn: []NotActedOn{}, PendingApprovals: []v1alpha1.PendingApproval{}, Checks: []Check{},
		Conditions: p.Status.Conditions, Confirmation: confirmationOf(ar, now), Approvals: approvalsOf(ar.Name, approvals),
	}
	if ar.Status.ObservedGeneration > 0 {
		r.NotActedOn = notActedOn(ar.Status.Placements, p.Status.Placements)
	}
	if r.Confirmation.Stale || len(r.NotActedOn) > 0 {
		r.Written = ar.Status.DeepCopy()
	}
	r.PendingApprovals = append(r.PendingApprovals, p.Status.PendingApprovals...)
	for _, c := range p.Checks {
		r.Checks = append(r.Checks, Check{
			Placement:    v1alpha1.PlacementRef{Namespace: c.Placement.Namespace, Name: c.Placement.Name},
			Group:        GroupRef{Index: c.Group.Index, Name: c.Group.Name},
			Name:         c.Name,
			Verification: *c.Verification.DeepCopy(),
		})
	}
	return r
}

// notActedOn lists the placements of planned (the status the controller
// would write now) whose revision is not the one written (the status as
// read) gives them. A placement planned without a revision (one that
// cannot be planned), or one the status gives no revision, is not listed:
// no revision is waiting for it, or the status says nothing to compare.
func notActedOn(written, planned []v1alpha1.PlacementStatus) []NotActedOn {
	out := []NotActedOn{}
	for _, ps := range planned {
		was := ""
		for _, ws := range written {
			if ws.Namespace == ps.Namespace && ws.Name == ps.Name {
				was = ws.Revision
				break
			}
		}
		if ps.Revision == "" || was == "" || was == ps.Revision {
			continue
		}
		out = append(out, NotActedOn{Placement: v1alpha1.PlacementRef{Namespace: ps.Namespace, Name: ps.Name},
			Revision: ps.Revision, Configs: append([]v1alpha1.RevisionConfig{}, ps.Configs...), Written: was})
	}
	return out
}

// approvalsOf lists the approvals of addOn among approvals (sorted by
// name), each with what its Approved condition says.
func approvalsOf(addOn string, approvals []*v1alpha1.RolloutApproval) []Approval {
	out := []Approval{}
	for _, a := range approvals {
		if a == nil || a.Spec.AddOn != addOn {
			continue
		}
		v := Approval{Name: a.Name, Placement: a.Spec.Placement, Group: a.Spec.Group, Revision: a.Spec.Revision, Username: a.Spec.Username}
		if c := meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved); c != nil && c.ObservedGeneration == a.Generation {
			v.Reason, v.Message = c.Reason, c.Message
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b Approval) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// problems lists the problems err joins (each a *field.Error naming its
// field), one string each; empty for nil.
func problems(err error) []string {
	out := []string{}
	if err == nil {
		return out
	}
	joined, ok := err.(interface{ Unwrap() []error }) // errors.Join's; not errors.As, which would drop a wrapper's words
	if !ok {
		return append(out, err.Error())
	}
	for _, e := range joined.Unwrap() {
		out = append(out, problems(e)...)
	}
	return out
}
