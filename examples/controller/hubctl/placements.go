package hubctl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/placement"
)

// PlacementReconciler does the job of OCM's placement controller for one
// Placement: it schedules it over the ManagedClusters with
// placement.Scheduler and writes the PlacementDecisions and the Placement's
// status. Nothing is written when nothing changed.
type PlacementReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Clock stamps condition transition times. Nil: the real clock.
	Clock clock.Clock
}

// SetupWithManager registers the reconciler: it runs for a Placement when the
// Placement, any ManagedCluster, or one of its PlacementDecisions changes.
func (r *PlacementReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("placement").
		For(&clusterv1beta1.Placement{}).
		Watches(&clusterv1.ManagedCluster{}, handler.EnqueueRequestsFromMapFunc(r.allPlacements)).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(placementOfDecision)).
		Complete(r)
}

// allPlacements enqueues every Placement: a ManagedCluster change can move
// a cluster into or out of any of them.
func (r *PlacementReconciler) allPlacements(ctx context.Context, _ client.Object) []reconcile.Request {
	var ps clusterv1beta1.PlacementList
	if err := r.Client.List(ctx, &ps); err != nil {
		log.FromContext(ctx).Error(err, "listing placements")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(ps.Items))
	for _, p := range ps.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
	}
	return reqs
}

// placementOfDecision enqueues the Placement a PlacementDecision belongs to,
// found as OCM finds it: by the placement label, in the same namespace.
func placementOfDecision(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[clusterv1beta1.PlacementLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// Reconcile schedules one Placement and writes the difference.
func (r *PlacementReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	var p clusterv1beta1.Placement
	if err := r.Client.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !p.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	var mcs clusterv1.ManagedClusterList
	if err := r.Client.List(ctx, &mcs); err != nil {
		return ctrl.Result{}, err
	}
	clusters := make([]*clusterv1.ManagedCluster, len(mcs.Items))
	for i := range mcs.Items {
		clusters[i] = &mcs.Items[i]
	}
	res, err := placement.Scheduler{Clock: r.Clock}.Schedule(&p, clusters)
	if err != nil {
		// A misconfigured Placement still gets what OCM writes for it
		// (PlacementMisconfigured True); an error without a status
		// (a nameless cluster, say) leaves everything as it is.
		if res.Status.Conditions == nil {
			return ctrl.Result{}, err
		}
		logger.Info("placement misconfigured", "error", err.Error())
	}
	for _, w := range res.Warnings {
		logger.V(1).Info("placement warning", "warning", w.String())
	}
	if err := r.writeDecisions(ctx, &p, res.Decisions); err != nil {
		return ctrl.Result{}, err
	}
	if equality.Semantic.DeepEqual(p.Status, res.Status) {
		return ctrl.Result{}, nil
	}
	next := p.DeepCopy()
	next.Status = res.Status
	if err := r.Client.Status().Patch(ctx, next, client.MergeFromWithOptions(&p, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); err != nil {
		return requeueOnConflict(err)
	}
	logger.Info("placement status written", "selected", res.Status.NumberOfSelectedClusters, "groups", len(res.Groups))
	return ctrl.Result{}, nil
}

// writeDecisions makes the Placement's PlacementDecisions those of want:
// missing ones are created, changed ones patched (labels and owner
// references, then status), and the others deleted.
func (r *PlacementReconciler) writeDecisions(ctx context.Context, p *clusterv1beta1.Placement, want []*clusterv1beta1.PlacementDecision) error {
	var have clusterv1beta1.PlacementDecisionList
	if err := r.Client.List(ctx, &have, client.InNamespace(p.Namespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: p.Name}); err != nil {
		return err
	}
	existing := make(map[string]*clusterv1beta1.PlacementDecision, len(have.Items))
	for i := range have.Items {
		existing[have.Items[i].Name] = &have.Items[i]
	}
	var errs []error
	for _, d := range want {
		cur, ok := existing[d.Name]
		delete(existing, d.Name)
		if !ok {
			errs = append(errs, r.createDecision(ctx, d))
			continue
		}
		errs = append(errs, r.updateDecision(ctx, cur, d))
	}
	for _, d := range existing {
		if err := r.Client.Delete(ctx, d, client.Preconditions{UID: &d.UID}); client.IgnoreNotFound(err) != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (r *PlacementReconciler) createDecision(ctx context.Context, d *clusterv1beta1.PlacementDecision) error {
	obj := d.DeepCopy()
	if err := r.Client.Create(ctx, obj, client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("creating placementdecision %q: %w", d.Namespace+"/"+d.Name, err)
	}
	if len(d.Status.Decisions) == 0 {
		return nil
	}
	// Create ignores the status subresource: write it next.
	created := obj.DeepCopy()
	obj.Status = d.Status
	return r.Client.Status().Patch(ctx, obj, client.MergeFromWithOptions(created, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}

func (r *PlacementReconciler) updateDecision(ctx context.Context, cur, want *clusterv1beta1.PlacementDecision) error {
	if !equality.Semantic.DeepEqual(cur.Labels, want.Labels) || !equality.Semantic.DeepEqual(cur.OwnerReferences, want.OwnerReferences) {
		next := cur.DeepCopy()
		next.Labels = want.Labels
		next.OwnerReferences = want.OwnerReferences
		if err := r.Client.Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); err != nil {
			return err
		}
		cur = next
	}
	if equality.Semantic.DeepEqual(cur.Status.Decisions, want.Status.Decisions) {
		return nil
	}
	next := cur.DeepCopy()
	next.Status = want.Status
	return r.Client.Status().Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
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
