package hubctl

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
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
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/placements"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/progress"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
)

// Options choose what Setup registers.
type Options struct {
	// Placements turns on the Placement reconciler. Leave it off on a hub
	// where OCM's placement controller runs.
	Placements bool
	// Addons turns on the add-on rollout reconciler.
	Addons bool
	// AddonVersion is the version to read and write ClusterManagementAddOns
	// and ManagedClusterAddOns in: hubclient.V1alpha1 or hubclient.V1beta1. Empty: the version
	// the hub stores (hubclient.StorageVersion).
	AddonVersion string
	// Clock is the reconcilers' clock. Nil: the real clock.
	Clock clock.PassiveClock
	// Lifecycles are the values of the ClusterManagementAddOn annotation
	// addon.open-cluster-management.io/lifecycle whose add-ons the
	// controller takes (installs, rolls out, reads the progress of);
	// every other add-on is never read into a plan or written. Empty:
	// hubclient.DefaultLifecycle.
	Lifecycles []string
	// Metrics is where the rollout metrics are registered
	// (controller-runtime's metrics.Registry in the controller). Nil: no
	// rollout metrics.
	Metrics prometheus.Registerer
	// Verifier runs the verifications of AddOnRollouts. Its zero value
	// uses http.DefaultClient and the real clock.
	Verifier verify.Verifier
	// WorkGate serves the ManifestWork gate (WorkGate) on the manager's
	// webhook server at WorkGatePath, and keeps its configuration scoped
	// to the add-ons the controller takes (GateScope). Only with Addons.
	WorkGate bool
	// ApprovalRetention is how long an approval of a revision its
	// placement no longer rolls out is kept before the controller deletes
	// it (flag -approval-retention, default
	// hubplan.DefaultApprovalRetention); 0: forever.
	ApprovalRetention time.Duration
}

// Setup registers the reconcilers that opts turns on with mgr, whose client
// must read unstructured objects from its cache (client.CacheOptions
// Unstructured) so that config objects are cached too. It returns the
// add-on API version in use ("" when the add-on reconciler is off).
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) (string, error) {
	if opts.Placements {
		r := &placements.PlacementReconciler{Client: mgr.GetClient(), Clock: opts.Clock}
		if err := r.SetupWithManager(mgr); err != nil {
			return "", fmt.Errorf("setting up the placement reconciler: %w", err)
		}
	}
	if !opts.Addons {
		return "", nil
	}
	version := opts.AddonVersion
	if version == "" {
		v, err := hubclient.StorageVersion(ctx, mgr.GetAPIReader())
		if err != nil {
			return "", fmt.Errorf("finding the stored add-on API version (or set it): %w", err)
		}
		version = v
	}
	api, err := hubclient.NewAddonAPI(version)
	if err != nil {
		return "", err
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, api.NewMCA(), hubclient.MCANameIndex, func(o client.Object) []string {
		return []string{o.GetName()}
	}); err != nil {
		return "", err
	}
	var metrics *rolloutmetrics.Metrics
	if opts.Metrics != nil {
		if metrics, err = rolloutmetrics.New(opts.Metrics); err != nil {
			return "", fmt.Errorf("registering the rollout metrics: %w", err)
		}
	}
	r := &AddonReconciler{Client: mgr.GetClient(), Clock: opts.Clock, Recorder: mgr.GetEventRecorder(hubclient.FieldManager), Version: version,
		Lifecycles: opts.Lifecycles, Verifier: opts.Verifier, Metrics: metrics, Reader: mgr.GetAPIReader(), ServesGate: opts.WorkGate,
		ValidateQuery: verify.PromQL(), ApprovalRetention: opts.ApprovalRetention}
	if err := r.SetupWithManager(mgr); err != nil {
		return "", fmt.Errorf("setting up the add-on reconciler: %w", err)
	}
	p := &progress.ProgressReconciler{Client: mgr.GetClient(), Clock: opts.Clock, Version: version, Lifecycles: opts.Lifecycles}
	if err := p.SetupWithManager(mgr); err != nil {
		return "", fmt.Errorf("setting up the add-on progress reconciler: %w", err)
	}
	if opts.WorkGate {
		if err := setupWorkGate(mgr, opts, version, metrics); err != nil {
			return "", err
		}
	}
	return version, nil
}

// setupWorkGate registers the work gate's webhook and the controller that
// keeps its configuration scoped to the add-ons taken.
func setupWorkGate(mgr ctrl.Manager, opts Options, version string, metrics *rolloutmetrics.Metrics) error {
	g := &gatehook.WorkGate{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Mapper: mgr.GetRESTMapper(), Version: version,
		Lifecycles: opts.Lifecycles, Clock: opts.Clock, Metrics: metrics, Recorder: mgr.GetEventRecorder(hubclient.FieldManager),
		Decoder: admission.NewDecoder(mgr.GetScheme())}
	if err := g.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the work gate: %w", err)
	}
	cs, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("setting up the work gate's scope: %w", err)
	}
	scope := &gatehook.GateScope{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Version: version, Lifecycles: opts.Lifecycles}
	if err := scope.SetupWithManager(mgr, cs); err != nil {
		return fmt.Errorf("setting up the work gate's scope: %w", err)
	}
	return nil
}

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
