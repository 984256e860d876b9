package gatehook

import (
	"context"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// WorkGateDeletionWebhook is the name of the webhook of the work gate's
// configuration that the API server asks about deletes of a taken
// add-on's works (failurePolicy Ignore: a delete passes whether or not a
// replica answers); the gate admits them, saying what happens to a work
// created in their place.
const WorkGateDeletionWebhook = "manifestwork-deletions.gate.rolloutkit.io"

// gateWebhooks are the webhooks of the work gate's configuration whose
// objectSelector GateScope keeps.
var gateWebhooks = [...]string{WorkGateWebhook, WorkGateDeletionWebhook}

// gateScopeKey is the one key GateScope reconciles: the configuration.
var gateScopeKey = reconcile.Request{NamespacedName: types.NamespacedName{Name: WorkGateConfiguration}}

// gateScopeResync is how often GateScope checks the configuration with
// nothing changed, should a watch event have been missed.
const gateScopeResync = 5 * time.Minute

// GateScope keeps the work gate's ValidatingWebhookConfiguration
// (WorkGateConfiguration) scoped to the add-ons the controller takes: the
// objectSelector of its webhooks selects the works labelled with their
// names (workgate.Scope), and no other. The works of every other add-on,
// OCM's own included, are never sent to the gate, so that they go on being
// written, created and deleted while no replica of the controller
// answers. It runs on the leader, when a ClusterManagementAddOn is
// created, deleted or its lifecycle annotation changes, when the
// configuration changes (a kubectl apply puts the shipped selector back),
// and every gateScopeResync. Its writes are patches locked on the
// configuration's resourceVersion, and need get, list, watch and patch
// on that one name (config/rbac/webhook_role.yaml).
type GateScope struct {
	// Client reads ClusterManagementAddOns from the manager's cache and
	// writes the configuration.
	Client client.Client
	// Reader reads the configuration from the API server.
	Reader client.Reader
	// Version is the add-on API version the hub is read in.
	Version string
	// Lifecycles are the lifecycle annotation values the controller takes.
	Lifecycles []string

	api hubclient.AddonAPI
}

// SetupWithManager registers the reconciler with mgr, and an informer of
// the one configuration, listed and watched by name (clientset: its
// client).
func (s *GateScope) SetupWithManager(mgr ctrl.Manager, clientset kubernetes.Interface) error {
	api, err := hubclient.NewAddonAPI(s.Version)
	if err != nil {
		return err
	}
	s.api = api
	f := informers.NewSharedInformerFactoryWithOptions(clientset, gateScopeResync, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", WorkGateConfiguration).String()
	}))
	inf := f.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer()
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		f.Start(ctx.Done())
		<-ctx.Done()
		f.Shutdown()
		return nil
	})); err != nil {
		return err
	}
	always := handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(_ context.Context, _ event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(gateScopeKey)
		},
		UpdateFunc: func(_ context.Context, _ event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(gateScopeKey)
		},
		DeleteFunc: func(_ context.Context, _ event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(gateScopeKey)
		},
		GenericFunc: func(_ context.Context, _ event.TypedGenericEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(gateScopeKey)
		},
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("work-gate-scope").
		For(api.NewCMA(), builder.WithPredicates(predicate.AnnotationChangedPredicate{})).
		WatchesRawSource(&source.Informer{Informer: inf, Handler: always}).
		Complete(reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
			return s.Reconcile(ctx, gateScopeKey)
		}))
}

// Reconcile scopes the configuration to the add-ons taken now. Whatever
// the request, it scopes the one configuration.
func (s *GateScope) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	taken, err := s.taken(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	switch err := s.Reader.Get(ctx, types.NamespacedName{Name: WorkGateConfiguration}, &cfg); {
	case apierrors.IsNotFound(err):
		return reconcile.Result{RequeueAfter: gateScopeResync}, nil // not installed: the WorkGate condition says so
	case err != nil:
		return reconcile.Result{}, err
	}
	next, changed, err := workgate.Scoped(&cfg, gateWebhooks[:], taken)
	if err != nil {
		log.FromContext(ctx).Error(err, "the work gate's configuration cannot be scoped to the add-ons taken")
		return reconcile.Result{RequeueAfter: gateScopeResync}, nil
	}
	if !changed {
		return reconcile.Result{RequeueAfter: gateScopeResync}, nil
	}
	if err := hubclient.PatchObject(ctx, s.Client, &cfg, next); err != nil {
		return reconcile.Result{}, fmt.Errorf("scoping ValidatingWebhookConfiguration %s: %w", cfg.Name, err)
	}
	log.FromContext(ctx).Info("work gate scoped to the add-ons taken", "configuration", cfg.Name, "addons", taken)
	return reconcile.Result{RequeueAfter: gateScopeResync}, nil
}

// taken lists the names of the ClusterManagementAddOns the controller
// takes, from the cache.
func (s *GateScope) taken(ctx context.Context) ([]string, error) {
	list := s.api.NewCMAList()
	if err := s.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing clustermanagementaddons: %w", err)
	}
	var out []string
	for _, o := range s.api.CMAs(list) {
		if hubclient.Takes(s.Lifecycles, o.GetAnnotations()) {
			out = append(out, o.GetName())
		}
	}
	return out, nil
}
