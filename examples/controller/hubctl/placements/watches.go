package placements

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// allPlacements enqueues every Placement: a ManagedCluster or a
// ManagedClusterSet change can move a cluster into or out of any of them.
func (r *PlacementReconciler) allPlacements(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.placementsWhere(ctx, nil, func(*clusterv1beta1.Placement) bool { return true })
}

// placementsOfBinding enqueues the Placements of a
// ManagedClusterSetBinding's namespace: only there does it bind a set.
func (r *PlacementReconciler) placementsOfBinding(ctx context.Context, o client.Object) []reconcile.Request {
	return r.placementsWhere(ctx, []client.ListOption{client.InNamespace(o.GetNamespace())},
		func(*clusterv1beta1.Placement) bool { return true })
}

// placementsOfScore enqueues the Placements whose prioritizer policy
// names an AddOnPlacementScore's resource (its name), as OCM's scheduler
// does: no other Placement reads it.
func (r *PlacementReconciler) placementsOfScore(ctx context.Context, o client.Object) []reconcile.Request {
	return r.placementsWhere(ctx, nil, func(p *clusterv1beta1.Placement) bool {
		return scoresRead(p)[o.GetName()]
	})
}

// scoresRead returns the names of the AddOnPlacementScores p's prioritizer
// policy reads.
func scoresRead(p *clusterv1beta1.Placement) map[string]bool {
	names := make(map[string]bool)
	for _, c := range p.Spec.PrioritizerPolicy.Configurations {
		sc := c.ScoreCoordinate
		if sc != nil && sc.Type == clusterv1beta1.ScoreCoordinateTypeAddOn && sc.AddOn != nil {
			names[sc.AddOn.ResourceName] = true
		}
	}
	return names
}

// placementsWhere enqueues the Placements listed with opts that keep
// accepts.
func (r *PlacementReconciler) placementsWhere(ctx context.Context, opts []client.ListOption, keep func(*clusterv1beta1.Placement) bool) []reconcile.Request {
	var ps clusterv1beta1.PlacementList
	if err := r.Client.List(ctx, &ps, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		log.FromContext(ctx).Error(err, "listing placements")
		return nil
	}
	var reqs []reconcile.Request
	for i := range ps.Items {
		if p := &ps.Items[i]; keep(p) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
		}
	}
	return reqs
}

// placementOfDecision enqueues the Placement a PlacementDecision belongs to,
// found as OCM finds it: by the placement label, in the same namespace.
// Other Placements are not enqueued although the Balance prioritizer
// reads every Placement's decisions: OCM's scheduler does not enqueue them
// either, and two Placements balancing against each other would otherwise
// reschedule each other without end.
func placementOfDecision(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[clusterv1beta1.PlacementLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}
