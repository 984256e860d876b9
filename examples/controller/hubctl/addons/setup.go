package addons

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// SetupWithManager registers the reconciler with mgr (whose client must
// read unstructured objects from its cache, and index ManagedClusterAddOns
// by name, as Setup does). It runs for a ClusterManagementAddOn when its
// spec or annotations change, when one of its
// ManagedClusterAddOns changes, when the Placement or the
// PlacementDecisions of one of its placements change, and when the spec of
// a config object of a resource it names changes.
func (r *AddonReconciler) SetupWithManager(mgr ctrl.Manager) error {
	api, err := hubclient.NewAddonAPI(r.Version)
	if err != nil {
		return err
	}
	r.api, r.phases = api, newPhaseLog()
	if r.Reader != nil {
		r.gate = gatehook.NewCheck(r.Reader, r.ServesGate, r.Clock)
	}
	if r.rollouts, err = hubclient.ServesRollouts(mgr.GetRESTMapper()); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("addon-rollout").
		For(api.NewCMA(), builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(api.NewMCA(), handler.EnqueueRequestsFromMapFunc(addonOfManagedAddon)).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(r.addonsOfDecision)).
		Watches(&clusterv1beta1.Placement{}, handler.EnqueueRequestsFromMapFunc(r.addonsOfPlacement), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// The rendering rollout counts a cluster done when its works take
		// the new content and are ready again.
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(cmaOfWork), builder.WithPredicates(workMoved()))
	if r.rollouts {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.RolloutApproval{}, hubclient.ApprovalAddOnIndex, func(o client.Object) []string {
			return []string{o.(*v1alpha1.RolloutApproval).Spec.AddOn}
		}); err != nil {
			return err
		}
		// An AddOnRollout's spec, and any change of an approval (its
		// creation is the act of approving), replan its add-on.
		b = b.Watches(&v1alpha1.AddOnRollout{}, handler.EnqueueRequestsFromMapFunc(addonOfRollout), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
			Watches(&v1alpha1.RolloutApproval{}, handler.EnqueueRequestsFromMapFunc(addonOfApproval), builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	} else {
		mgr.GetLogger().Info("the hub serves no rolloutkit.io AddOnRollouts (install examples/controller/config/crd): add-ons are rolled out without operator controls")
	}
	c, err := b.WithOptions(controller.Options{RateLimiter: rateLimiter()}).Build(r)
	if err != nil {
		return err
	}
	r.configs = newConfigWatches(mgr.GetClient(), mgr.GetRESTMapper(), func(gvk schema.GroupVersionKind) error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return c.Watch(source.Kind(mgr.GetCache(), client.Object(u), handler.EnqueueRequestsFromMapFunc(r.allAddons), specChanged()))
	}, listWatchAccess(mgr.GetClient()))
	return nil
}

// addonOfRollout enqueues the ClusterManagementAddOn an AddOnRollout
// governs: the one with its name.
func addonOfRollout(_ context.Context, o client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
}

// addonOfApproval enqueues the ClusterManagementAddOn a RolloutApproval
// names.
func addonOfApproval(_ context.Context, o client.Object) []reconcile.Request {
	a, ok := o.(*v1alpha1.RolloutApproval)
	if !ok || a.Spec.AddOn == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: a.Spec.AddOn}}}
}

// addonOfManagedAddon enqueues the ClusterManagementAddOn a
// ManagedClusterAddOn belongs to: the one with its name.
func addonOfManagedAddon(_ context.Context, o client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
}

// addonsOfDecision enqueues the ClusterManagementAddOns whose install
// strategy names the placement of a PlacementDecision.
func (r *AddonReconciler) addonsOfDecision(ctx context.Context, o client.Object) []reconcile.Request {
	return r.addonsOf(ctx, addonv1beta1.PlacementRef{Namespace: o.GetNamespace(), Name: o.GetLabels()[clusterv1beta1.PlacementLabel]})
}

// addonsOfPlacement enqueues the ClusterManagementAddOns whose install
// strategy names a Placement (its clustersPerDecisionGroup is Progressive's
// default window).
func (r *AddonReconciler) addonsOfPlacement(ctx context.Context, o client.Object) []reconcile.Request {
	return r.addonsOf(ctx, addonv1beta1.PlacementRef{Namespace: o.GetNamespace(), Name: o.GetName()})
}

// addonsOf enqueues the ClusterManagementAddOns whose install strategy
// names ref.
func (r *AddonReconciler) addonsOf(ctx context.Context, ref addonv1beta1.PlacementRef) []reconcile.Request {
	if ref.Name == "" {
		return nil
	}
	return r.addonsWhere(ctx, func(cma *addonv1beta1.ClusterManagementAddOn) bool {
		for _, ps := range cma.Spec.InstallStrategy.Placements {
			if ps.PlacementRef == ref {
				return true
			}
		}
		return false
	})
}

// allAddons enqueues every ClusterManagementAddOn the controller takes: a
// config object changed, and any of them may use it.
func (r *AddonReconciler) allAddons(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.addonsWhere(ctx, func(*addonv1beta1.ClusterManagementAddOn) bool { return true })
}

func (r *AddonReconciler) addonsWhere(ctx context.Context, keep func(*addonv1beta1.ClusterManagementAddOn) bool) []reconcile.Request {
	list := r.api.NewCMAList()
	if err := r.Client.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "listing clustermanagementaddons")
		return nil
	}
	cmas, err := r.api.Snapshot().CMAs(list)
	if err != nil {
		log.FromContext(ctx).Error(err, "reading clustermanagementaddons")
		return nil
	}
	var reqs []reconcile.Request
	for _, cma := range cmas {
		if !hubclient.Takes(r.Lifecycles, cma.Annotations) || !keep(cma) {
			continue
		}
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: cma.Name}})
	}
	return reqs
}
