package hubplan

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Plan is what [Planner.Plan] decides for one add-on.
type Plan struct {
	// Steps are rollout/addon's PlanAddon's, with the AddOnRollout's
	// gates.
	Steps []Step
	// Status is the AddOnRollout's status to write: equal to the one read
	// when nothing changed and its recheckTime is ahead; otherwise
	// confirmed now (lastConfirmedTime, recheckTime: see ConfirmInterval). Zero when there is no AddOnRollout. Its
	// Placements[i] is the placement of Steps[i].
	Status v1alpha1.AddOnRolloutStatus
	// Invalid lists every problem of the AddOnRollout's spec, each a
	// *field.Error whose path starts at its root; the add-on is then held:
	// nothing new starts until it is fixed. Nil when the spec is valid.
	Invalid error
	// Checks are the verifications due now: run each, give the results to
	// [Plan.Record] and plan again.
	Checks []Check
	// Approvals are the new statuses of the RolloutApprovals of the add-on
	// whose status changes, by name.
	Approvals []ApprovalStatus
	// RecheckAfter is when to plan again if nothing else happens: the
	// nearest of the steps', of the next retry of a failed check, of the
	// status's recheckTime and of the next approval's expiry; 0: nothing
	// to wait for on the clock (only without an AddOnRollout).
	RecheckAfter time.Duration
	// Expired are the approvals of the add-on past the Planner's
	// ApprovalRetention, by name: delete each.
	Expired []Expiry
	// Rendering is the rendering revision to write as the
	// ClusterManagementAddOn's RenderingAnnotation, before any of the
	// steps' Releases and Writes: one this call opened, or the one in
	// flight, now complete (CompletedAt). Nil when it does not change.
	Rendering *RenderingRevision
	// Rollbacks are the automatic rollbacks decided now
	// (spec.onFailure: Rollback): restore each one's configs, then write
	// the status, which records them.
	Rollbacks []Rollback
}

// Step is what [Planner.Plan] decides for one install-strategy
// placement (or the add-ons of a Manual install strategy): the
// [addon.Step] of its config rollout under the AddOnRollout's gates, or,
// once that is done, of its rendering rollout.
type Step struct {
	addon.Step
	// Kind is the kind of revision Result rolls out: KindConfig;
	// KindRendering or KindConfigAndRendering while a rendering revision
	// is in flight (or is complete and the AddOnRollout's status still
	// shows it), joined to the configs' revision. Empty for a step that
	// could not be planned (Err). While the placement rolls a rendering
	// out, Revision is the CombinedRevision of its configs' revision and
	// the rendering revision.
	Kind string
	// Rendering is the rendering revision the step rolls out, joined to
	// its configs' (Revision is their CombinedRevision); empty for a
	// config revision.
	Rendering string
	// Releases are the rendering rollout's new releases, sorted by
	// cluster: write each as its add-on's ReleaseAnnotation. Only with a
	// Rendering.
	Releases []ReleaseWrite

	renderingDone bool // every cluster took the Rendering
}

// stepsOf wraps the config steps addon.PlanAddon returns.
func stepsOf(steps []addon.Step, err error) ([]Step, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		out[i] = Step{Step: s}
	}
	return out, nil
}

// Check is a verification due now for one group of one placement.
type Check struct {
	// Placement is the group's placement.
	Placement addonv1beta1.PlacementRef
	// Group is the group.
	Group grouping.GroupKey
	// Name is the verification's name (its name, or "verifications[i]").
	Name string
	// Verification is the check as the spec gives it, with the defaults
	// of its interval and timeout filled in.
	Verification v1alpha1.Verification
	// Request is what a webhook check posts.
	Request v1alpha1.VerificationRequest
}

// CheckResult is the outcome of one [Check].
type CheckResult struct {
	// Check is the check run.
	Check Check
	// Passed is whether it passed.
	Passed bool
	// Message is its answer, for people: a status code, an error, the
	// number of series a query returned.
	Message string
	// At is when it ran.
	At time.Time
}

// ApprovalStatus is the new status of one RolloutApproval.
type ApprovalStatus struct {
	// Name is the approval's name.
	Name string
	// Conditions are its conditions, with Approved set.
	Conditions []metav1.Condition
}

// Conditions of an AddOnRollout and a RolloutApproval, and their reasons.
const (
	// ConditionValid is True when the AddOnRollout's spec is valid.
	ConditionValid = "Valid"
	// ConditionPaused is True when spec.paused is.
	ConditionPaused = "Paused"
	// ConditionProgressing is True while some placement's rollout is not
	// complete and verified, with the reason of what it waits for; False,
	// reason Completed, when every one is.
	ConditionProgressing = "Progressing"
	// ConditionApproved is a RolloutApproval's: True, reason Used, once its
	// group started under it.
	ConditionApproved = "Approved"
	// ConditionWorkGate is True, reason Guarded, when the work gate guards
	// the add-on's ManifestWorks on the hub; False, reason NotGuarded,
	// when it does not: the works can then change ahead of the rollout.
	// Set only when Controls.WorkGate is.
	ConditionWorkGate = "WorkGate"

	ReasonValid                  = "Valid"
	ReasonInvalidSpec            = "InvalidSpec"
	ReasonPaused                 = "Paused"
	ReasonNotPaused              = "NotPaused"
	ReasonRollingOut             = "RollingOut"
	ReasonCompleted              = "Completed"
	ReasonBreached               = "Breached"
	ReasonWaitingForApproval     = "WaitingForApproval"
	ReasonWaitingForVerification = "WaitingForVerification"
	ReasonOutsideWindow          = "OutsideWindow"
	ReasonNotPlanned             = "NotPlanned"
	ReasonUsed                   = "Used"
	ReasonNotUsedYet             = "NotUsedYet"
	// ReasonAwaitingApprovers: the approval counts, but its group needs
	// approvals from more distinct users (spec.minApprovers).
	ReasonAwaitingApprovers = "AwaitingApprovers"
	ReasonRevisionMismatch  = "RevisionMismatch"
	ReasonNotRequired       = "NotRequired"
	ReasonUnknownGroup      = "UnknownGroup"
	ReasonGuarded           = "Guarded"
	ReasonNotGuarded        = "NotGuarded"
)

// planControlled plans the add-on in.ClusterManagementAddOn ([Planner.Plan]).
func (pl Planner) planControlled(in Inputs) (Plan, error) {
	planner, ctl, cma, placements, mcas, specHash := pl.Rollout, in.Controls, in.ClusterManagementAddOn, in.Placements, in.Addons, in.SpecHash
	now := clock.NowOf(planner.Clock)
	planner.Clock = clock.At(now)
	if ctl.Rollout == nil {
		steps, err := stepsOf(addon.PlanAddon(planner, cma, placements, mcas, specHash))
		if err != nil || ctl.Works == nil {
			return Plan{Steps: steps, RecheckAfter: stepsRecheck(steps)}, err
		}
		p := Plan{}
		p.Steps, p.Rendering = newRenderings(cma, placements, mcas, ctl, now).stage(planner, steps, nil)
		p.RecheckAfter = stepsRecheck(p.Steps)
		return p, nil
	}
	ar := ctl.Rollout
	c, invalid := parseControls(ar, groupNames(placements), pl.ValidateQuery)
	base := len(planner.Gates)
	kinds := make(map[int][]gateKind)
	fast := fastPaths(in)
	gates := func(i int, ref addonv1beta1.PlacementRef, revision string, s clusterv1alpha1.RolloutStrategy, groups []grouping.Group) []rollout.Gate {
		gates, ks := c.gates(invalid, ctl.Approvals, cma.Name, ref, revision, s, groups, placementStatusOf(ar.Status, ref, revision), fast[i])
		kinds[i] = ks
		return gates
	}
	// A fast rollback is planned without the soaks of its placements'
	// strategies; the status still shows the ClusterManagementAddOn.
	steps, err := stepsOf(addon.PlanAddon(planner, withoutSoak(cma, fast), placements, mcas, specHash, gates))
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Invalid: invalid}
	if ctl.Works != nil {
		r := newRenderings(withoutSoak(cma, fast), placements, mcas, ctl, now)
		r.checked = func(s Step, ps *v1alpha1.PlacementStatus) bool {
			return invalid == nil && (fast[s.Index] || len(c.pending(s.Groups, ps)) == 0)
		}
		steps, p.Rendering = r.stage(planner, steps, gates)
	}
	p.Steps, p.RecheckAfter = steps, stepsRecheck(steps)
	v := view{c: c, now: now, base: base, invalid: invalid, addOn: cma.Name, held: heldClusters(cma.Name, mcas, ctl.Works), works: ctl.Works, gate: ctl.WorkGate, fast: fast}
	if err := p.addPlacements(v, ctl, cma, kinds, specHash); err != nil {
		return Plan{}, err
	}
	for i := range p.Status.Placements {
		p.Status.Placements[i].FastRollback = fast[p.Steps[i].Index]
	}
	p.Rollbacks, p.Status.Rollbacks = rollbacks(ar, p.Status, ctl.History, metav1.NewTime(now.UTC().Truncate(time.Second)))
	p.Status.ObservedGeneration = ar.Generation
	p.Status.Conditions = v.conditions(ar, steps, p.Status)
	p.Approvals = approvalStatuses(ctl.Approvals, cma, c, steps, p.Status, now)
	var next time.Duration
	p.Status, next = confirm(p.Status, ar.Status, now, p.RecheckAfter)
	p.RecheckAfter = rollout.Sooner(p.RecheckAfter, next)
	p.Expired, next = expired(ctl.Approvals, p.Approvals, cma.Name, p.Status, pl.ApprovalRetention, now)
	p.RecheckAfter = rollout.Sooner(p.RecheckAfter, next)
	return p, nil
}

// addPlacements adds to p the status of each step's placement, its
// revision's configs, the approvals it waits for, the checks due and
// when to plan again for them.
func (p *Plan) addPlacements(v view, ctl Controls, cma *addonv1beta1.ClusterManagementAddOn, kinds map[int][]gateKind,
	specHash addon.SpecHashFunc) error {
	for _, s := range p.Steps {
		prev := placementStatusOf(ctl.Rollout.Status, s.Ref, s.Revision)
		pv := v.placement(s, kinds[s.Index], prev)
		if s.Err == nil {
			configs, err := revisionConfigs(cma, s.Ref, specHash, ctl.Images)
			if err != nil {
				return fmt.Errorf("configs of %s: %w", placementLabel(s.Ref), err)
			}
			pv.status.Configs = configs
		}
		p.Status.Placements = append(p.Status.Placements, pv.status)
		p.Checks = append(p.Checks, pv.checks...)
		p.RecheckAfter = rollout.Sooner(p.RecheckAfter, pv.recheck)
		for _, g := range pv.approve {
			// held for an approval, whatever else holds it too (a pause):
			// the approval can be given meanwhile
			p.Status.PendingApprovals = append(p.Status.PendingApprovals, v1alpha1.PendingApproval{
				Placement: v1alpha1.PlacementRef{Namespace: s.Ref.Namespace, Name: s.Ref.Name}, Group: g, Revision: s.Revision,
				Configs: slices.Clone(pv.status.Configs), PendingApprovers: pendingApprovers(ctl, cma.Name, s, g)})
		}
	}
	return nil
}

// pendingApprovers says who has approved group g of step s so far, and,
// when it needs more than one, how many users must.
func pendingApprovers(ctl Controls, addOn string, s Step, g string) v1alpha1.PendingApprovers {
	pa := v1alpha1.PendingApprovers{Approvers: Approvers(ctl.Approvals, addOn, s.Ref, g, s.Revision)}
	if n := MinApprovers(ctl.Rollout.Spec.ApproversSpec, g); n > 1 {
		pa.MinApprovers = int32(n)
	}
	return pa
}

// Record returns ctl with its AddOnRollout's status replaced by the plan's,
// and the results of the checks run recorded in it, for the next call of
// [Planner.Plan]. ctl is not modified.
func (p Plan) Record(ctl Controls, results []CheckResult) Controls {
	if ctl.Rollout == nil {
		return ctl
	}
	ar := ctl.Rollout.DeepCopy()
	ar.Status = *p.Status.DeepCopy()
	for _, r := range results {
		ref := r.Check.Placement
		i := slices.IndexFunc(ar.Status.Placements, func(ps v1alpha1.PlacementStatus) bool {
			return ps.Namespace == ref.Namespace && ps.Name == ref.Name
		})
		if i < 0 || ar.Status.Placements[i].Revision != r.Check.Request.Revision {
			continue // the revision moved on: the result is for nothing
		}
		ps := &ar.Status.Placements[i]
		vs := v1alpha1.VerificationStatus{Name: r.Check.Name, Group: r.Check.Group.Name, Index: r.Check.Group.Index,
			Passed: r.Passed, Message: r.Message, LastCheckTime: metav1.NewTime(r.At)}
		if j := slices.IndexFunc(ps.Verifications, sameCheck(vs)); j >= 0 {
			ps.Verifications[j] = vs
		} else {
			ps.Verifications = append(ps.Verifications, vs)
		}
	}
	ctl.Rollout = ar
	return ctl
}

// gates returns the gates of one placement's rollout at revision, and
// their kinds, in order.
func (c controls) gates(invalid error, approvals []*v1alpha1.RolloutApproval, addOn string, ref addonv1beta1.PlacementRef, revision string,
	s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, prev *v1alpha1.PlacementStatus, fast bool) ([]rollout.Gate, []gateKind) {
	var (
		gates []rollout.Gate
		kinds []gateKind
	)
	add := func(k gateKind, g rollout.Gate) { gates, kinds = append(gates, g), append(kinds, k) }
	if invalid != nil {
		add(gateInvalid, rollout.GateFunc(func(grouping.GroupKey, time.Time) rollout.Admission {
			return rollout.Admission{Reason: "the AddOnRollout is invalid: " + ifield.OneLine(invalid)}
		}))
	}
	if c.paused {
		add(gatePaused, rollout.Paused("spec.paused of the AddOnRollout"))
	}
	if fast {
		return gates, kinds // a fast rollback: no approval, window or verification
	}
	if len(c.need) > 0 {
		add(gateApproval, c.approvalGate(approvals, addOn, ref, revision))
	}
	if len(c.windows) > 0 {
		add(gateWindow, rollout.AnyOf(c.windows...))
	}
	if len(c.checks) > 0 {
		if order, err := rollout.WalkOrder(s, groups); err == nil {
			add(gateVerification, rollout.AfterVerified(order, c.pending(groups, prev)))
		}
	}
	return gates, kinds
}

// Approves reports whether the RolloutApproval a lets group of the
// add-on's placement ref start at revision: it names all four. An
// approval of another revision approves nothing (a new revision starts
// with no approval); revision "" (nothing planned) is never approved.
func Approves(a *v1alpha1.RolloutApproval, addOn string, ref addonv1beta1.PlacementRef, group, revision string) bool {
	return a != nil && revision != "" && a.Spec.AddOn == addOn && a.Spec.Placement.Namespace == ref.Namespace &&
		a.Spec.Placement.Name == ref.Name && a.Spec.Group == group && a.Spec.Revision == revision
}

// pending maps every group that has checks not yet passed for the
// revision (prev holds the results) to why.
func (c controls) pending(groups []grouping.Group, prev *v1alpha1.PlacementStatus) map[grouping.GroupKey]string {
	out := make(map[grouping.GroupKey]string)
	for _, g := range groups {
		if len(g.Clusters) == 0 {
			continue // nothing to verify
		}
		for _, ch := range c.checks {
			if !ch.appliesTo(g.GroupKey) {
				continue
			}
			if vs := result(prev, ch.name, g.GroupKey); vs == nil || !vs.Passed {
				out[g.GroupKey] = checkText(ch, vs)
				break
			}
		}
	}
	return out
}

// checkText says where check ch stands, from its last result vs (nil:
// none).
func checkText(ch check, vs *v1alpha1.VerificationStatus) string {
	if vs == nil {
		return "verification " + ch.name + " has not passed yet"
	}
	return "verification " + ch.name + ": " + vs.Message
}

// result is the last result of check name for group g in prev; nil when
// there is none.
func result(prev *v1alpha1.PlacementStatus, name string, g grouping.GroupKey) *v1alpha1.VerificationStatus {
	if prev == nil {
		return nil
	}
	want := v1alpha1.VerificationStatus{Name: name, Group: g.Name, Index: g.Index}
	if i := slices.IndexFunc(prev.Verifications, sameCheck(want)); i >= 0 {
		return &prev.Verifications[i]
	}
	return nil
}

// placementStatusOf is the status of placement ref in st when it is for
// revision; nil otherwise: a new revision starts afresh.
func placementStatusOf(st v1alpha1.AddOnRolloutStatus, ref addonv1beta1.PlacementRef, revision string) *v1alpha1.PlacementStatus {
	for i := range st.Placements {
		ps := &st.Placements[i]
		if ps.Namespace == ref.Namespace && ps.Name == ref.Name && ps.Revision == revision && revision != "" {
			return ps
		}
	}
	return nil
}

// groupNames are the names of the decision groups of the placements, and
// those their Placements name.
func groupNames(placements []addon.PlacementInput) map[string]bool {
	out := make(map[string]bool)
	for _, in := range placements {
		if in.Placement == nil {
			continue
		}
		for _, g := range in.Groups {
			if g.Name != "" {
				out[g.Name] = true
			}
		}
		// A group the Placement names is a group of it even while it
		// selects no cluster: an AddOnRollout naming it stays valid.
		for _, g := range in.Placement.Spec.DecisionStrategy.GroupStrategy.DecisionGroups {
			if g.GroupName != "" {
				out[g.GroupName] = true
			}
		}
	}
	return out
}

// stepsRecheck is the nearest RecheckAfter of the planned steps.
func stepsRecheck(steps []Step) time.Duration {
	var d time.Duration
	for _, s := range steps {
		if s.Err == nil {
			d = rollout.Sooner(d, s.Result.RecheckAfter)
		}
	}
	return d
}

// conditionAt returns a condition with its transition time at now, for
// meta.SetStatusCondition (which keeps the old time when the status does
// not change).
func conditionAt(typ string, status metav1.ConditionStatus, reason, message string, gen int64, now time.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message, ObservedGeneration: gen,
		LastTransitionTime: metav1.NewTime(now)}
}

// setConditions returns prev with each of next set, by type.
func setConditions(prev []metav1.Condition, next ...metav1.Condition) []metav1.Condition {
	out := make([]metav1.Condition, len(prev))
	copy(out, prev)
	for _, c := range next {
		meta.SetStatusCondition(&out, c)
	}
	return out
}

// placementLabel names a placement in a message.
func placementLabel(ref addonv1beta1.PlacementRef) string {
	if ref.Name == "" {
		return "the add-ons of the Manual install strategy"
	}
	return fmt.Sprintf("placement %s/%s", ref.Namespace, ref.Name)
}

// sameCheck matches the results of the check of want (its name, group
// name and index).
func sameCheck(want v1alpha1.VerificationStatus) func(v1alpha1.VerificationStatus) bool {
	return func(v v1alpha1.VerificationStatus) bool {
		return v.Name == want.Name && v.Group == want.Group && v.Index == want.Index
	}
}
