package addons

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// DefaultApprovalRetention is the default of the controller's
// -approval-retention: a week (hubplan.DefaultApprovalRetention).
const DefaultApprovalRetention = hubplan.DefaultApprovalRetention

// expire deletes the approvals past their retention (the plan's Expired:
// approvals of a revision their placement no longer rolls out, for longer
// than ApprovalRetention), each with a log line and an event on ar. The
// delete is made on the approval's UID, so that one created again under
// the same name since is kept.
func (r *AddonReconciler) expire(ctx context.Context, ar *v1alpha1.AddOnRollout, approvals []*v1alpha1.RolloutApproval,
	expired []hubplan.Expiry) error {
	var errs []error
	for _, e := range expired {
		i := indexOfApproval(approvals, e.Name)
		if i < 0 {
			continue
		}
		a := approvals[i]
		uid := a.UID
		if err := r.Client.Delete(ctx, a, client.Preconditions{UID: &uid}); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting rolloutapproval %q past its retention: %w", a.Name, err))
			}
			continue
		}
		msg := fmt.Sprintf("deleted RolloutApproval %s (by %s) of revision %s of placement %s/%s group %q: superseded by revision %s since %s, longer than the retention of %s",
			a.Name, approver(a), e.Revision, a.Spec.Placement.Namespace, a.Spec.Placement.Name, a.Spec.Group, e.Current,
			e.Since.UTC().Format("2006-01-02T15:04:05Z"), r.ApprovalRetention)
		log.FromContext(ctx).Info("approval past its retention deleted", "rolloutapproval", a.Name, "revision", e.Revision,
			"current", e.Current, "since", e.Since, "retention", r.ApprovalRetention)
		if ar != nil {
			r.event(ar, nil, corev1.EventTypeNormal, EventApprovalDeleted, hubclient.EventAction("delete", a.Name), "%s", msg)
		}
	}
	return errors.Join(errs...)
}

// approver names who created approval a: its spec.username, or "unknown
// user" for an approval created before the webhook recorded it.
func approver(a *v1alpha1.RolloutApproval) string {
	if a.Spec.Username != "" {
		return a.Spec.Username
	}
	return "unknown user"
}
