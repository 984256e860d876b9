package hubctl

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
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
	// uses http.DefaultClient and the real clock, and reads no
	// credentials (the controller gives it the manager's uncached API
	// reader and -verification-secret-namespaces).
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
	// HistoryNamespace is the namespace of the add-ons' revision
	// histories (ControllerRevisions): the controller's own. Empty: no
	// history (addons.AddonReconciler.HistoryNamespace).
	HistoryNamespace string
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
	r := &addons.AddonReconciler{Client: mgr.GetClient(), Clock: opts.Clock, Recorder: mgr.GetEventRecorder(hubclient.FieldManager), Version: version,
		Lifecycles: opts.Lifecycles, Verifier: opts.Verifier, Metrics: metrics, Reader: mgr.GetAPIReader(), ServesGate: opts.WorkGate,
		ValidateQuery: verify.PromQL(), ApprovalRetention: opts.ApprovalRetention, HistoryNamespace: opts.HistoryNamespace}
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
