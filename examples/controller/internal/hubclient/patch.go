package hubclient

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Every write of the controller is a merge patch of the object as read,
// carrying the resourceVersion it was computed from (an optimistic lock):
// a concurrent write by anyone else makes it fail with a conflict, which
// the reconcile returns, and it runs again on fresh data. Nothing is ever forced over newer
// data.

// PatchStatus patches the status subresource of cur to next, locked on
// cur's resourceVersion.
func PatchStatus(ctx context.Context, c client.Client, cur, next client.Object) error {
	return c.Status().Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}

// PatchObject patches cur (outside its status) to next, locked on cur's
// resourceVersion.
func PatchObject(ctx context.Context, c client.Client, cur, next client.Object) error {
	return c.Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}
