package addons

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Reasons of the events the controller sends about an AddOnRollout (on
// the AddOnRollout) and a RolloutApproval (on the approval).
const (
	// EventInvalidSpec (Warning): the AddOnRollout's spec is invalid; the
	// message names every field at fault. The add-on is held.
	EventInvalidSpec = "InvalidSpec"
	// EventGroupPhase (Normal): a group's phase changed; the message says
	// from what to what, and why.
	EventGroupPhase = "GroupPhaseChanged"
	// EventBreached (Warning): a group breached its failure budget.
	EventBreached = "Breached"
	// EventVerificationFailed (Warning): a verification of a group failed;
	// it is retried every interval and the groups after it wait.
	EventVerificationFailed = "VerificationFailed"
	// EventVerificationPassed (Normal): a verification of a group passed.
	EventVerificationPassed = "VerificationPassed"
	// EventApprovalRequested (Normal): a group waits for an approval of
	// the revision; the message says which RolloutApproval to create.
	EventApprovalRequested = "ApprovalRequested"
	// EventApprovalUsed (Normal): an approval let its group start.
	EventApprovalUsed = "ApprovalUsed"
	// EventRolloutCompleted (Normal): a placement's revision completed.
	EventRolloutCompleted = "RevisionCompleted"
	// EventApprovalDeleted (Normal): an approval of a superseded revision
	// was deleted, past the approval retention (hubctl.Options.ApprovalRetention).
	EventApprovalDeleted = "ApprovalDeleted"
	// EventAddOnNotFound (Warning): the hub has no ClusterManagementAddOn
	// of the name an AddOnRollout or a RolloutApproval gives.
	EventAddOnNotFound = hubplan.ReasonAddOnNotFound
)

// planned is one reconcile's plan under the add-on's controls, and the
// results of the checks run to make it.
type planned struct {
	hubplan.Plan
	results []hubplan.CheckResult
}

// plan plans the add-on under the controls of in. When checks are due it
// runs them, records their results into the controls and plans again, so
// that a passed check lets the next group start in the same reconcile.
func (r *AddonReconciler) plan(ctx context.Context, in hubplan.Inputs) (planned, error) {
	planner := hubplan.Planner{Rollout: rollout.Planner{Clock: r.Clock}, ValidateQuery: r.ValidateQuery, ApprovalRetention: r.ApprovalRetention}
	p, err := planner.Plan(in)
	if err != nil || len(p.Checks) == 0 || in.Controls.Rollout == nil {
		return planned{Plan: p}, err
	}
	results := r.Verifier.Run(ctx, p.Checks)
	in.Controls = p.Record(in.Controls, results)
	p, err = planner.Plan(in)
	return planned{Plan: p, results: results}, err
}

// writeControls writes what the plan says of the AddOnRollout and the
// approvals, sends the events of what changed, and sets the metrics.
func (r *AddonReconciler) writeControls(ctx context.Context, ctl hubplan.Controls, p planned) error {
	ar := ctl.Rollout
	if ar == nil {
		return nil
	}
	var errs []error
	if !equality.Semantic.DeepEqual(ar.Status, p.Status) {
		next := ar.DeepCopy()
		next.Status = p.Status
		if err := hubclient.PatchStatus(ctx, r.Client, ar, next); err != nil {
			// The transitions are told once the status that makes them
			// is written (see report).
			errs = append(errs, fmt.Errorf("writing the status of addonrollout %q: %w", ar.Name, err))
			return errors.Join(append(errs, r.writeApprovals(ctx, ar, ctl.Approvals, p.Approvals))...)
		}
	}
	errs = append(errs, r.writeApprovals(ctx, ar, ctl.Approvals, p.Approvals), r.expire(ctx, ar, ctl.Approvals, p.Expired))
	r.report(ctx, ar, p)
	return errors.Join(errs...)
}

// writeApprovals writes the approvals' new statuses, with an event on the
// approval and on ar (nil: none) for each one used.
func (r *AddonReconciler) writeApprovals(ctx context.Context, ar *v1alpha1.AddOnRollout, approvals []*v1alpha1.RolloutApproval,
	statuses []hubplan.ApprovalStatus) error {
	var errs []error
	for _, a := range statuses {
		i := indexOfApproval(approvals, a.Name)
		if i < 0 {
			continue
		}
		cur := approvals[i]
		next := cur.DeepCopy()
		next.Status.Conditions = a.Conditions
		if err := hubclient.PatchStatus(ctx, r.Client, cur, next); err != nil {
			errs = append(errs, fmt.Errorf("writing the status of rolloutapproval %q: %w", cur.Name, err))
			continue
		}
		c := meta.FindStatusCondition(a.Conditions, hubplan.ConditionApproved)
		switch {
		case c == nil:
		case c.Reason == hubplan.ReasonUsed:
			r.event(cur, nil, corev1.EventTypeNormal, EventApprovalUsed, "Use", "%s", c.Message)
			if ar != nil {
				r.event(ar, cur, corev1.EventTypeNormal, EventApprovalUsed, hubclient.EventAction("use", cur.Name), "%s (RolloutApproval %s)", c.Message, cur.Name)
			}
		case c.Reason == hubplan.ReasonAddOnNotFound:
			r.event(cur, nil, corev1.EventTypeWarning, EventAddOnNotFound, "Find", "%s", c.Message)
		}
	}
	return errors.Join(errs...)
}

// report sends the events of what changed between the AddOnRollout's
// status as read and the plan's, and sets the metrics.
func (r *AddonReconciler) report(ctx context.Context, ar *v1alpha1.AddOnRollout, p planned) {
	old, st := ar.Status, p.Status
	if p.Invalid != nil {
		if c := meta.FindStatusCondition(old.Conditions, hubplan.ConditionValid); c == nil || c.Status != "False" || c.ObservedGeneration != ar.Generation {
			r.event(ar, nil, corev1.EventTypeWarning, EventInvalidSpec, "Validate", "the add-on is held until the spec is fixed: %s", oneLine(p.Invalid))
			log.FromContext(ctx).Info("invalid AddOnRollout: the add-on is held", "addonrollout", ar.Name, "error", oneLine(p.Invalid))
		}
	}
	if c := meta.FindStatusCondition(st.Conditions, hubplan.ConditionWorkGate); c != nil {
		if was := meta.FindStatusCondition(old.Conditions, hubplan.ConditionWorkGate); was == nil || was.Status != c.Status {
			kind := corev1.EventTypeNormal
			if c.Status != metav1.ConditionTrue {
				kind = corev1.EventTypeWarning
			}
			r.event(ar, nil, kind, c.Reason, hubclient.EventAction("work gate", string(c.Status)), "work gate: %s", c.Message)
		}
	}
	for _, ps := range st.Placements {
		prev := placementOf(old, ps.Namespace, ps.Name)
		where := ps.Namespace + "/" + ps.Name
		for _, g := range ps.Groups {
			was := groupOf(prev, ps.Revision, g)
			if was == nil || was.Phase != g.Phase {
				from := "new"
				if was != nil {
					from = was.Phase
				}
				r.event(ar, nil, corev1.EventTypeNormal, EventGroupPhase, hubclient.EventAction(where, groupName(g), from+"->"+g.Phase, ps.Revision),
					"placement %s group %s: %s -> %s: %s", where, groupName(g), from, g.Phase, g.Message)
				if g.Phase == rollout.Breached.String() {
					r.event(ar, nil, corev1.EventTypeWarning, EventBreached, hubclient.EventAction(where, groupName(g), "breached", ps.Revision),
						"placement %s group %s: %s", where, groupName(g), g.Message)
					r.Metrics.Breach(ar.Name, where, g)
				}
			}
		}
		if ps.CompletionTime != nil && (prev == nil || prev.Revision != ps.Revision || prev.CompletionTime == nil) {
			r.event(ar, nil, corev1.EventTypeNormal, EventRolloutCompleted, hubclient.EventAction(where, "complete", ps.Revision),
				"placement %s: revision %s complete and verified", where, ps.Revision)
			if ps.RevisionStartTime != nil {
				r.Metrics.Completed(ar.Name, where, ps.CompletionTime.Sub(ps.RevisionStartTime.Time).Seconds())
			}
		}
	}
	for _, pa := range st.PendingApprovals {
		if !pendingIn(old, pa) {
			where := pa.Placement.Namespace + "/" + pa.Placement.Name
			r.event(ar, nil, corev1.EventTypeNormal, EventApprovalRequested, hubclient.EventAction(where, strconv.Quote(pa.Group), "approval", pa.Revision),
				"placement %s group %q waits for an approval of revision %s (%s): create a RolloutApproval (kubectl rolloutkit approve %s %s --revision %s)",
				where, pa.Group, pa.Revision, hubplan.ConfigsText(pa.Configs), ar.Name, pa.Group, pa.Revision)
		}
	}
	r.reportChecks(ar, p.results)
}

// reportChecks sends the events of the checks run, and sets their
// metrics.
func (r *AddonReconciler) reportChecks(ar *v1alpha1.AddOnRollout, results []hubplan.CheckResult) {
	for _, res := range results {
		where := res.Check.Placement.Namespace + "/" + res.Check.Placement.Name
		g := v1alpha1.GroupStatus{Name: res.Check.Group.Name, Index: res.Check.Group.Index}
		r.Metrics.Verification(ar.Name, where, g, res.Check.Name, res.Passed)
		kind, reason := corev1.EventTypeWarning, EventVerificationFailed
		if res.Passed {
			kind, reason = corev1.EventTypeNormal, EventVerificationPassed
		}
		r.event(ar, nil, kind, reason, hubclient.EventAction(where, groupName(g), "check "+res.Check.Name, res.Check.Request.Revision),
			"placement %s group %s revision %s: %s: %s", where, groupName(g), res.Check.Request.Revision, res.Check.Name, res.Message)
	}
}

// event sends an event about obj, and related (nil: none), when there is
// a recorder. act is the event's action: what happened to what.
//
// client-go's event broadcaster merges the events of one key (type,
// reason, action, regarding object at its resourceVersion, related) into a
// series that keeps the first message. Each action names its subject (a
// placement's group, a check, a revision), so that two events of one
// reconcile are never of one key; and the events of a reconcile are sent
// once its status is written, regarding the object at the resourceVersion
// it was read at: one write, one set of events. So every transition the
// controller writes is an event of its own.
func (r *AddonReconciler) event(obj, related client.Object, kind, reason, act, format string, args ...any) {
	if r.Recorder == nil {
		return
	}
	if related == nil {
		r.Recorder.Eventf(obj, nil, kind, reason, act, format, args...)
		return
	}
	r.Recorder.Eventf(obj, related, kind, reason, act, format, args...)
}

func indexOfApproval(as []*v1alpha1.RolloutApproval, name string) int {
	for i, a := range as {
		if a.Name == name {
			return i
		}
	}
	return -1
}

func placementOf(st v1alpha1.AddOnRolloutStatus, ns, name string) *v1alpha1.PlacementStatus {
	for i := range st.Placements {
		if st.Placements[i].Namespace == ns && st.Placements[i].Name == name {
			return &st.Placements[i]
		}
	}
	return nil
}

// groupOf is g's status in prev when prev is for revision.
func groupOf(prev *v1alpha1.PlacementStatus, revision string, g v1alpha1.GroupStatus) *v1alpha1.GroupStatus {
	if prev == nil || prev.Revision != revision {
		return nil
	}
	for i := range prev.Groups {
		if prev.Groups[i].Name == g.Name && prev.Groups[i].Index == g.Index {
			return &prev.Groups[i]
		}
	}
	return nil
}

func pendingIn(st v1alpha1.AddOnRolloutStatus, pa v1alpha1.PendingApproval) bool {
	for _, p := range st.PendingApprovals {
		if p.Placement == pa.Placement && p.Group == pa.Group && p.Revision == pa.Revision {
			return true
		}
	}
	return false
}

// groupName names a group in a message: "prod", or "#2".
func groupName(g v1alpha1.GroupStatus) string {
	if g.Name != "" {
		return strconv.Quote(g.Name)
	}
	return "#" + itoa(g.Index)
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }

// oneLine words err on one line, for an event or a log: the problems it
// joins, separated by "; ".
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
