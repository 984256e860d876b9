package planreport

import (
	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// withStatus returns pr with what the AddOnRollout's status ps says of
// its placement: its revision and each group's status.
func withStatus(pr Placement, ps v1alpha1.PlacementStatus) Placement {
	pr.Revision, pr.Kind = ps.Revision, ps.Kind
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

// rolloutReport is what the AddOnRollout ar makes of the plan p.
func rolloutReport(ar *v1alpha1.AddOnRollout, p addonrollout.Plan) *Rollout {
	r := &Rollout{
		Name: ar.Name, Generation: ar.Generation, ObservedGeneration: ar.Status.ObservedGeneration, Paused: ar.Spec.Paused,
		Invalid: problems(p.Invalid), PendingApprovals: []v1alpha1.PendingApproval{}, Checks: []Check{},
		Conditions: p.Status.Conditions,
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
