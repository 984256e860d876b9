package progress

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ProgressReconciler does the job of OCM's addonprogressing controller for
// the add-ons of the ClusterManagementAddOns the controller takes: it
// writes each ManagedClusterAddOn's Progressing condition and, once its
// ManifestWorks carry its desired configs and are applied and available,
// its lastAppliedConfigs (addon.Progressing). It writes what
// addon.PlanProgress says to: a change of only the Progressing message of
// an add-on that has just started progressing is held back. The rollout
// reads them back as the add-on's status.
type ProgressReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Clock stamps the Progressing condition. Nil: the real clock.
	Clock clock.PassiveClock
	// Version is the add-on API version (see AddonReconciler.Version).
	Version string
	// Lifecycles are the lifecycle annotation values taken (see
	// AddonReconciler.Lifecycles).
	Lifecycles []string
}

// Reconcile writes the progress of one ManagedClusterAddOn.
func (r *ProgressReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	api, err := hubclient.NewAddonAPI(r.Version)
	if err != nil {
		return ctrl.Result{}, err
	}
	snap := api.Snapshot()
	cmaObj := api.NewCMA()
	if err := r.Client.Get(ctx, types.NamespacedName{Name: req.Name}, cmaObj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !hubclient.Takes(r.Lifecycles, cmaObj.GetAnnotations()) {
		return ctrl.Result{}, nil
	}
	obj := api.NewMCA()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	mca, err := snap.MCA(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	works, err := hubclient.AddonWorks(ctx, r.Client, mca)
	if err != nil {
		return ctrl.Result{}, err
	}
	p, err := addon.PlanProgress(mca, works, r.Clock)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !p.Write {
		// A message held back (addon.MessageHold) is written when the hold
		// is over, unless the add-on moves on first.
		return ctrl.Result{RequeueAfter: p.RecheckAfter}, nil
	}
	mca.Status = p.Status
	if err := snap.PatchAddonStatus(ctx, r.Client, mca); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// progressWorkers is how many add-ons the progress reconciler handles at
// once: each of its reconciles is one add-on, and when a group's works
// become ready together it has one patch to send for each of them, which
// one worker sends one after another (OCM's addonprogressing runs two).
const progressWorkers = 8

// SetupWithManager registers the reconciler with mgr. It runs for a
// ManagedClusterAddOn when it changes, when one of its ManifestWorks
// changes, and for all the add-ons of a ClusterManagementAddOn when that
// changes (its lifecycle annotation, say).
func (r *ProgressReconciler) SetupWithManager(mgr ctrl.Manager) error {
	api, err := hubclient.NewAddonAPI(r.Version)
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-progress").
		WithOptions(controller.Options{MaxConcurrentReconciles: progressWorkers}).
		For(api.NewMCA()).
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(addonOfWork)).
		Watches(api.NewCMA(), handler.EnqueueRequestsFromMapFunc(r.addonsOfCMA)).
		Complete(r)
}

// addonOfWork enqueues the add-on a ManifestWork belongs to: the one named
// by its addon-name label, in its namespace or, for a hosted add-on's
// work, in the namespace its addon-namespace label names.
func addonOfWork(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[addonv1beta1.AddonLabelKey]
	if name == "" {
		return nil
	}
	ns := o.GetNamespace()
	if n := o.GetLabels()[addonv1beta1.AddonNamespaceLabelKey]; n != "" {
		ns = n
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// addonsOfCMA enqueues every ManagedClusterAddOn of a ClusterManagementAddOn.
func (r *ProgressReconciler) addonsOfCMA(ctx context.Context, o client.Object) []reconcile.Request {
	api, err := hubclient.NewAddonAPI(r.Version)
	if err != nil {
		return nil
	}
	list := api.NewMCAList()
	if err := r.Client.List(ctx, list, client.MatchingFields{hubclient.MCANameIndex: o.GetName()}); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, m := range api.MCAs(list) {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(m)})
	}
	return reqs
}
