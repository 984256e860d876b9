package hubplan

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// view makes an AddOnRollout's status from the planned steps.
type view struct {
	c       controls
	now     time.Time
	base    int // the index in Planner.Gates of the AddOnRollout's first gate
	invalid error
	addOn   string           // the ClusterManagementAddOn's name
	held    map[string]Hold  // the clusters whose works the work gate holds
	works   map[string]Works // what each cluster's works say; nil: not known
	gate    *GateCheck       // whether the work gate guards the works; nil: not known
	fast    map[int]bool     // the placements on a fast rollback, by index: no checks
}

// gatePriority orders the kinds of gate a group can be held by: WaitsFor
// names the first that holds it.
func gatePriority() [5]gateKind {
	return [...]gateKind{gateInvalid, gatePaused, gateApproval, gateWindow, gateVerification}
}

// placement returns the status of step s's placement, the checks due now
// and when the next retry of a failed check is due.
func (v view) placement(s Step, kinds []gateKind, prev *v1alpha1.PlacementStatus) placementView {
	ps := v.placementStart(s, prev)
	if s.Err != nil {
		ps.Message = s.Reason + ": " + ifield.OneLine(s.Err)
		return placementView{status: ps}
	}
	groups := rolloutOrder(s.Result.Groups)
	out := placementView{}
	verified := true
	for _, gp := range groups {
		gs := v.group(gp, kinds)
		v.holdsIn(s, gp.GroupKey, &gs)
		if gp.Phase == rollout.Blocked && v.holds(gp.Wait.HeldBy, kinds, gateApproval) {
			out.approve = append(out.approve, gp.Name)
		}
		if v.fast[s.Index] {
			ps.Groups = append(ps.Groups, gs)
			continue
		}
		gv := v.groupChecks(s, gp, &ps, &gs)
		verified = verified && gv.verified
		out.checks = append(out.checks, gv.due...)
		out.recheck = rollout.Sooner(out.recheck, gv.recheck)
		ps.Groups = append(ps.Groups, gs)
	}
	switch {
	case !s.Result.Done() || len(groups) == 0:
		// a cluster joined, or the rollout went back: not complete
		ps.CompletionTime = nil
	case verified && v.invalid == nil && ps.CompletionTime == nil:
		t := metav1.NewTime(v.now)
		ps.CompletionTime = &t
	}
	out.status = ps
	return out
}

// placementStart is the status of step s's placement before its groups:
// its revision, and when the revision started and completed (prev's, for
// the same revision; a new revision starts now).
func (v view) placementStart(s Step, prev *v1alpha1.PlacementStatus) v1alpha1.PlacementStatus {
	ps := v1alpha1.PlacementStatus{Namespace: s.Ref.Namespace, Name: s.Ref.Name, Revision: s.Revision, Kind: s.Kind, Rendering: s.Rendering}
	if prev != nil {
		ps.RevisionStartTime, ps.CompletionTime = prev.RevisionStartTime.DeepCopy(), prev.CompletionTime.DeepCopy()
		ps.Verifications = slices.Clone(prev.Verifications)
	}
	if ps.RevisionStartTime == nil && s.Revision != "" {
		t := metav1.NewTime(v.now)
		ps.RevisionStartTime = &t
	}
	return ps
}

// rolloutOrder returns groups in rollout order: the mandatory groups
// first, then by index.
func rolloutOrder(groups []rollout.GroupProgress) []rollout.GroupProgress {
	out := slices.Clone(groups)
	slices.SortStableFunc(out, func(a, b rollout.GroupProgress) int {
		if a.Mandatory != b.Mandatory {
			if a.Mandatory {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return out
}

// groupVerdict is what the checks of one group say.
type groupVerdict struct {
	verified bool          // every check of the group passed
	due      []Check       // the checks due now
	recheck  time.Duration // until the next retry of a failed check
}

// groupChecks weighs the checks of group gp of step s against their
// results in ps. A complete group whose checks have not all passed is held
// by them: gs then says so, the first not passed speaking for the group, as
// it does in the reason of the groups after it (controls.pending), and its
// wait ends at the nearest retry.
func (v view) groupChecks(s Step, gp rollout.GroupProgress, ps *v1alpha1.PlacementStatus, gs *v1alpha1.GroupStatus) groupVerdict {
	out := groupVerdict{verified: true}
	blocked := false // by a check of its own
	for _, ch := range v.c.checks {
		if !ch.appliesTo(gp.GroupKey) || gp.Size == 0 {
			continue // a group without clusters has nothing to verify
		}
		vs := result(ps, ch.name, gp.GroupKey)
		if vs != nil && vs.Passed {
			continue
		}
		out.verified = false
		if gp.Phase != rollout.Complete || v.invalid != nil {
			continue
		}
		if !blocked {
			blocked = true
			gs.Phase, gs.WaitsFor, gs.Message, gs.Until = rollout.Blocked.String(), string(gateVerification), checkText(ch, vs), nil
		}
		if vs != nil {
			if next := vs.LastCheckTime.Add(ch.interval); next.After(v.now) {
				if gs.Until == nil || next.Before(gs.Until.Time) {
					t := metav1.NewTime(next)
					gs.Until = &t
				}
				out.recheck = rollout.Sooner(out.recheck, next.Sub(v.now))
				continue
			}
		}
		out.due = append(out.due, v.check(s, gp, ch))
	}
	return out
}

// maxHolds is how many held clusters a group's status lists.
const maxHolds = 10

// holdsIn sets the work gate's holds of the clusters of group key of
// step s in gs: their counts, since when the oldest has waited, and the
// longest held of them.
func (v view) holdsIn(s Step, key grouping.GroupKey, gs *v1alpha1.GroupStatus) {
	var holds []v1alpha1.ClusterHold
	for _, g := range s.Groups {
		if g.GroupKey != key {
			continue
		}
		for _, c := range g.Clusters {
			h, ok := v.held[c]
			if !ok {
				continue
			}
			ch := v1alpha1.ClusterHold{Cluster: c, Reason: h.Reason, Since: h.Since, Message: h.Why}
			if h.Works != nil {
				var content map[string]string
				if v.works != nil {
					content = contentOf(v.works[c])
				}
				ch.Works, ch.Missing = h.Held(content), h.Missing(content)
				if content == nil {
					ch.Works = slices.Sorted(maps.Keys(h.Works))
				}
			}
			if len(ch.Missing) > 0 {
				gs.Counts.Missing++
			}
			holds = append(holds, ch)
		}
	}
	gs.Counts.Held = int32(len(holds))
	if len(holds) == 0 {
		return
	}
	slices.SortFunc(holds, func(a, b v1alpha1.ClusterHold) int {
		if c := a.Since.Compare(b.Since.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Cluster, b.Cluster)
	})
	since := holds[0].Since
	gs.HeldSince = &since
	gs.Holds = holds[:min(len(holds), maxHolds)]
}

// placementView is what the status says of one placement, and what it
// asks of the caller.
type placementView struct {
	status  v1alpha1.PlacementStatus
	checks  []Check       // due now
	recheck time.Duration // until the next retry of a failed check
	approve []string      // the groups an approval gate holds, in rollout order
}

// holds reports whether a gate of kind k is among those at indices held.
func (v view) holds(held []int, kinds []gateKind, k gateKind) bool {
	for _, i := range held {
		if j := i - v.base; j >= 0 && j < len(kinds) && kinds[j] == k {
			return true
		}
	}
	return false
}

// check is the check ch of group gp of step s, due now.
func (v view) check(s Step, gp rollout.GroupProgress, ch check) Check {
	var clusters []string
	for _, g := range s.Groups {
		if g.GroupKey == gp.GroupKey {
			clusters = slices.Clone(g.Clusters)
		}
	}
	slices.Sort(clusters)
	if clusters == nil {
		clusters = []string{}
	}
	return Check{Placement: s.Ref, Group: gp.GroupKey, Name: ch.name, Verification: *ch.spec.DeepCopy(),
		Request: v1alpha1.VerificationRequest{
			AddOn:     v.addOn,
			Placement: v1alpha1.PlacementRef{Namespace: s.Ref.Namespace, Name: s.Ref.Name},
			Group:     gp.Name, Revision: s.Revision, Clusters: clusters,
		}}
}

// group returns a group's status as the planner explains it, with what
// holds it named by the kind of gate.
func (v view) group(gp rollout.GroupProgress, kinds []gateKind) v1alpha1.GroupStatus {
	c := gp.Counts
	gs := v1alpha1.GroupStatus{
		Name: gp.Name, Index: gp.Index, Mandatory: gp.Mandatory, Phase: gp.Phase.String(), Message: gp.Summary(),
		Counts: v1alpha1.GroupCounts{
			Succeeded: int32(c.Succeeded + c.Soaking), Progressing: int32(c.Progressing), Failed: int32(c.Failed),
			TimedOut: int32(c.TimedOut), ToApply: int32(c.ToApply), Soaking: int32(c.Soaking), Skipped: int32(c.Skipped),
		},
	}
	until := gp.Wait.Until
	switch gp.Wait.Kind {
	case rollout.WaitNone:
	case rollout.WaitGate:
		gs.WaitsFor = string(v.holder(gp.Wait.HeldBy, kinds))
		if gs.WaitsFor == string(gateVerification) && gp.Phase == rollout.Blocked {
			// held only for an earlier group's checks: it waits, as for
			// that group, and says so without the "held: " of a gate
			gs.Phase, gs.Message = rollout.Waiting.String(), strings.Join(gp.Wait.Gates, "; ")
		}
	case rollout.WaitWindow:
		gs.WaitsFor = "MaxConcurrency"
	default:
		gs.WaitsFor = gp.Wait.Kind.String()
		if k := v.holder(gp.Wait.HeldBy, kinds); len(gp.Wait.HeldBy) > 0 && (k == gateInvalid || k == gatePaused) {
			// the group waited for is held by a gate that holds every
			// group: this one is held by it as much
			gs.WaitsFor = string(k)
		}
		if until.IsZero() {
			until = gp.Wait.Cluster.Until
		}
	}
	if !until.IsZero() {
		t := metav1.NewTime(until)
		gs.Until = &t
	}
	return gs
}

// holder is the kind of the first gate, by gatePriority, of those at
// indices held (in Planner.Gates); "Gate" for a gate that is not the
// AddOnRollout's.
func (v view) holder(held []int, kinds []gateKind) gateKind {
	have := make(map[gateKind]bool, len(held))
	for _, i := range held {
		if j := i - v.base; j >= 0 && j < len(kinds) {
			have[kinds[j]] = true
		} else {
			have["Gate"] = true
		}
	}
	for _, k := range gatePriority() {
		if have[k] {
			return k
		}
	}
	return "Gate"
}

// conditions returns the AddOnRollout's conditions: Valid, Paused and
// Progressing.
func (v view) conditions(ar *v1alpha1.AddOnRollout, steps []Step, st v1alpha1.AddOnRolloutStatus) []metav1.Condition {
	gen := ar.Generation
	valid := conditionAt(ConditionValid, metav1.ConditionTrue, ReasonValid, "the spec is valid", gen, v.now)
	if v.invalid != nil {
		valid = conditionAt(ConditionValid, metav1.ConditionFalse, ReasonInvalidSpec,
			"the add-on is held until the spec is fixed: "+ifield.OneLine(v.invalid), gen, v.now)
	}
	paused := conditionAt(ConditionPaused, metav1.ConditionFalse, ReasonNotPaused, "spec.paused is false", gen, v.now)
	if ar.Spec.Paused {
		paused = conditionAt(ConditionPaused, metav1.ConditionTrue, ReasonPaused,
			"spec.paused is true: no cluster starts; clusters in flight finish", gen, v.now)
	}
	reason, msg := v.progress(steps, st)
	status := metav1.ConditionTrue
	if reason == ReasonCompleted {
		status = metav1.ConditionFalse
	}
	conds := []metav1.Condition{valid, paused, conditionAt(ConditionProgressing, status, reason, msg, gen, v.now)}
	if v.gate != nil {
		gate := conditionAt(ConditionWorkGate, metav1.ConditionTrue, ReasonGuarded, v.gate.Message, gen, v.now)
		if !v.gate.Guarded {
			gate.Status, gate.Reason = metav1.ConditionFalse, ReasonNotGuarded
		}
		conds = append(conds, gate)
	}
	return setConditions(ar.Status.Conditions, conds...)
}

// progress is the reason and message of the Progressing condition: what
// holds the rollout, by priority, or that it rolls out or completed.
func (v view) progress(steps []Step, st v1alpha1.AddOnRolloutStatus) (string, string) {
	type why struct{ reason, msg string }
	var found []why
	add := func(reason, msg string) { found = append(found, why{reason, msg}) }
	complete := len(st.Placements) > 0
	for i, ps := range st.Placements {
		s := steps[i]
		if s.Err != nil {
			add(ReasonNotPlanned, placementLabel(s.Ref)+" is not planned: "+ps.Message)
			complete = false
			continue
		}
		if ps.CompletionTime == nil {
			complete = false
		}
		for _, g := range ps.Groups {
			label := fmt.Sprintf("%s group %s", placementLabel(s.Ref), groupLabel(g))
			switch {
			case g.Phase == rollout.Breached.String():
				add(ReasonBreached, label+" breached its failure budget: "+g.Message)
			case g.WaitsFor == string(gateInvalid):
				add(ReasonInvalidSpec, "the AddOnRollout is invalid: "+ifield.OneLine(v.invalid))
			case g.WaitsFor == string(gatePaused):
				add(ReasonPaused, "paused: "+label+" does not start")
			case g.WaitsFor == string(gateApproval):
				add(ReasonWaitingForApproval, label+" waits for an approval of revision "+ps.Revision)
			case g.WaitsFor == string(gateVerification) && g.Phase == rollout.Blocked.String():
				add(ReasonWaitingForVerification, label+" is held by its checks: "+g.Message)
			case g.WaitsFor == string(gateWindow):
				add(ReasonOutsideWindow, label+": "+strings.TrimPrefix(g.Message, "held: "))
			}
		}
	}
	if complete {
		return ReasonCompleted, fmt.Sprintf("every placement's rollout is complete and verified (%d)", len(st.Placements))
	}
	for _, r := range []string{ReasonInvalidSpec, ReasonNotPlanned, ReasonBreached, ReasonPaused, ReasonWaitingForApproval,
		ReasonWaitingForVerification, ReasonOutsideWindow} {
		for _, w := range found {
			if w.reason == r {
				return w.reason, w.msg
			}
		}
	}
	return ReasonRollingOut, "rolling out"
}

// groupLabel names a group in a message: "prod" (index 2), or "#2".
func groupLabel(g v1alpha1.GroupStatus) string {
	if g.Name != "" {
		return fmt.Sprintf("%q", g.Name)
	}
	return fmt.Sprintf("#%d", g.Index)
}

// approvalStatuses returns the new status of every approval of the add-on
// whose status changes, sorted by name.
func approvalStatuses(approvals []*v1alpha1.RolloutApproval, cma *addonv1beta1.ClusterManagementAddOn, c controls, steps []Step,
	st v1alpha1.AddOnRolloutStatus, now time.Time) []ApprovalStatus {
	var out []ApprovalStatus
	for _, a := range approvals {
		if a == nil || a.Spec.AddOn != cma.Name {
			continue
		}
		reason, msg := approvalVerdict(a, approvals, c, steps, st)
		status := metav1.ConditionFalse
		if reason == ReasonUsed {
			status = metav1.ConditionTrue
		}
		conds := setConditions(a.Status.Conditions, conditionAt(ConditionApproved, status, reason, msg, a.Generation, now))
		if slices.EqualFunc(conds, a.Status.Conditions, sameCondition) {
			continue
		}
		out = append(out, ApprovalStatus{Name: a.Name, Conditions: conds})
	}
	slices.SortFunc(out, func(a, b ApprovalStatus) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// approvalVerdict says what approval a does: its Approved condition's
// reason and message (approvals: the others, which count with it).
func approvalVerdict(a *v1alpha1.RolloutApproval, approvals []*v1alpha1.RolloutApproval, c controls, steps []Step, st v1alpha1.AddOnRolloutStatus) (string, string) {
	ref := addonv1beta1.PlacementRef{Namespace: a.Spec.Placement.Namespace, Name: a.Spec.Placement.Name}
	i := slices.IndexFunc(steps, func(s Step) bool { return s.Ref == ref && s.Index >= 0 })
	if i < 0 {
		return ReasonUnknownGroup, fmt.Sprintf("the add-on %s has no install-strategy placement %s/%s", a.Spec.AddOn, ref.Namespace, ref.Name)
	}
	s, ps := steps[i], st.Placements[i]
	gi := slices.IndexFunc(ps.Groups, func(g v1alpha1.GroupStatus) bool { return g.Name == a.Spec.Group })
	switch {
	case gi < 0:
		return ReasonUnknownGroup, fmt.Sprintf("%s has no decision group %q", placementLabel(ref), a.Spec.Group)
	case !slices.Contains(c.need, a.Spec.Group):
		return ReasonNotRequired, fmt.Sprintf("group %q does not need an approval (spec.approvalRequired of the AddOnRollout)", a.Spec.Group)
	case a.Spec.Revision != s.Revision:
		return ReasonRevisionMismatch, fmt.Sprintf("approves revision %s; %s rolls out revision %s: it approves nothing", a.Spec.Revision, placementLabel(ref), s.Revision)
	}
	g := ps.Groups[gi]
	n := g.Counts
	// An Active group none of whose clusters has moved yet is starting
	// them now, under the approval.
	started := n.Succeeded+n.Progressing+n.Failed+n.TimedOut+n.Skipped > 0 || g.Phase == rollout.Active.String()
	if g.WaitsFor == string(gateApproval) {
		users := Approvers(approvals, a.Spec.AddOn, ref, a.Spec.Group, s.Revision)
		if n := MinApprovers(c.approvers, a.Spec.Group); len(users) < n {
			return ReasonAwaitingApprovers, fmt.Sprintf("group %q of %s needs approvals from %d distinct users: %s", a.Spec.Group, placementLabel(ref), n, ApprovalProgress(users, n))
		}
	}
	if g.WaitsFor == string(gateApproval) || !started {
		return ReasonNotUsedYet, fmt.Sprintf("group %q of %s has not started under it yet: %s", a.Spec.Group, placementLabel(ref), g.Message)
	}
	return ReasonUsed, fmt.Sprintf("group %q of %s started under it at revision %s", a.Spec.Group, placementLabel(ref), s.Revision)
}

// sameCondition compares conditions but for their transition time.
func sameCondition(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message && a.ObservedGeneration == b.ObservedGeneration
}
