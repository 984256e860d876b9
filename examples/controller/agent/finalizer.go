package agent

import (
	"context"
	"fmt"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// WorkFinalizer is the finalizer OCM's work agent puts on every
// ManifestWork before it applies it, and takes off once it has deleted
// what the work applied: a deleted work stays, deleting, until then.
// It is workv1.ManifestWorkFinalizer, named here because the work agent
// is the one that writes it.
const WorkFinalizer = workv1.ManifestWorkFinalizer

// addFinalizer puts WorkFinalizer on work, with an update of the work
// carrying the resourceVersion read (a concurrent write makes it fail with
// a conflict, and the agent reads again), and returns the work as stored.
// OCM's work agent does this before it applies anything.
func (w *WorkAgent) addFinalizer(ctx context.Context, work *workv1.ManifestWork) (*workv1.ManifestWork, error) {
	next := work.DeepCopy()
	controllerutil.AddFinalizer(next, WorkFinalizer)
	if err := w.Client.Update(ctx, next, client.FieldOwner(WorkAgentFieldManager)); err != nil {
		return nil, fmt.Errorf("adding finalizer %s to work %s/%s: %w", WorkFinalizer, work.Namespace, work.Name, err)
	}
	return next, nil
}

// cleanUp moves the deletion of a work forward: Delay after the agent
// first saw it deleting (the time it takes to delete what the work
// applied), it takes WorkFinalizer off, with an update carrying the
// resourceVersion read, and the delete completes. A deleting work without
// WorkFinalizer is not the agent's to hold and is left as it is.
func (w *WorkAgent) cleanUp(ctx context.Context, key string, work *workv1.ManifestWork, now time.Time) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(work, WorkFinalizer) {
		w.forget(key)
		return ctrl.Result{}, nil
	}
	since := w.begin(key, begun{cleanup: true, at: now})
	if left := since.Add(w.Delay).Sub(now); left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	next := work.DeepCopy()
	controllerutil.RemoveFinalizer(next, WorkFinalizer)
	if err := w.Client.Update(ctx, next, client.FieldOwner(WorkAgentFieldManager)); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("removing finalizer %s from work %s/%s: %w", WorkFinalizer, work.Namespace, work.Name, err)
	}
	log.FromContext(ctx).V(1).Info("cleaned up", "work", key)
	w.forget(key)
	return ctrl.Result{}, nil
}
