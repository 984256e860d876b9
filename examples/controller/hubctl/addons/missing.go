package addons

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// missing writes what the AddOnRollout and the RolloutApprovals that name
// the add-on name say while the hub has no ClusterManagementAddOn of that
// name (hubplan.Planner.Plan, without the add-on): a typo, or an add-on deleted. Both
// watches map to the add-on's name, so that they reach here without it;
// the add-on's creation replans it as usual.
func (r *AddonReconciler) missing(ctx context.Context, name string) (ctrl.Result, error) {
	if !r.rollouts {
		return ctrl.Result{}, nil
	}
	h := r.pass().hub(ctx)
	ar, err := h.AddOnRollout(name)
	if err != nil {
		return ctrl.Result{}, err
	}
	approvals, err := h.RolloutApprovals(name)
	if err != nil {
		return ctrl.Result{}, err
	}
	p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: r.Clock}}.Plan(hubplan.Inputs{AddOn: name, Controls: hubplan.Controls{Rollout: ar, Approvals: approvals}})
	if err != nil {
		return ctrl.Result{}, err
	}
	var errs []error
	if ar != nil && !equality.Semantic.DeepEqual(ar.Status, p.Status) {
		next := ar.DeepCopy()
		next.Status = p.Status
		if err := hubclient.PatchStatus(ctx, r.Client, ar, next); err != nil {
			errs = append(errs, fmt.Errorf("writing the status of addonrollout %q: %w", ar.Name, err))
		} else if c := meta.FindStatusCondition(p.Status.Conditions, hubplan.ConditionProgressing); c != nil && !notFoundIn(ar.Status.Conditions) {
			r.event(ar, nil, corev1.EventTypeWarning, EventAddOnNotFound, "Find", "%s", c.Message)
		}
	}
	errs = append(errs, r.writeApprovals(ctx, nil, approvals, p.Approvals))
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: p.RecheckAfter}, nil
}

// notFoundIn reports whether conds already say the add-on is not found.
func notFoundIn(conds []metav1.Condition) bool {
	c := meta.FindStatusCondition(conds, hubplan.ConditionProgressing)
	return c != nil && c.Reason == hubplan.ReasonAddOnNotFound
}
