package hubctl

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Every write of the controller is a merge patch of the object as read,
// carrying the resourceVersion it was computed from (an optimistic lock):
// a concurrent write by anyone else makes it fail with a conflict, and the
// reconcile runs again on fresh data. Nothing is ever forced over newer
// data.

// patchStatus patches the status subresource of cur to next, locked on
// cur's resourceVersion.
func patchStatus(ctx context.Context, c client.Client, cur, next client.Object) error {
	return c.Status().Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}

// patchObject patches cur (outside its status) to next, locked on cur's
// resourceVersion.
func patchObject(ctx context.Context, c client.Client, cur, next client.Object) error {
	return c.Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}

// conflictRetry is how soon a reconcile whose write met a conflict runs
// again; the other writer's change usually triggers it sooner.
const conflictRetry = 200 * time.Millisecond

// requeueOnConflict turns a conflict (someone wrote the object since it was
// read) into a quiet retry on fresh data; other errors are returned.
func requeueOnConflict(err error) (ctrl.Result, error) {
	if apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: conflictRetry}, nil
	}
	return ctrl.Result{}, err
}

// onlyConflicts reports whether every error joined or wrapped in err is an
// API conflict: the reconcile then runs again soon on fresh data, and
// nothing is worth logging.
func onlyConflicts(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlyConflicts(e) {
				return false
			}
		}
		return true
	}
	if u := errors.Unwrap(err); u != nil {
		return onlyConflicts(u)
	}
	return apierrors.IsConflict(err)
}
