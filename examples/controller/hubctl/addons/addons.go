package addons

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Reasons of the events the add-on reconciler sends. A placement that is
// not planned also gets an event whose reason is that of its install
// progression's condition (addon.ReasonPlacementNotFound,
// addon.ReasonConfigurationError, addon.ReasonInvalidAddons).
const (
	// ReasonInvalidRolloutStrategy is the reason of an install progression's
	// Progressing condition (False) and of the Warning event when a
	// placement's rolloutStrategy does not validate; the message carries
	// the field errors. Nothing is rolled out for that placement.
	ReasonInvalidRolloutStrategy = addon.ReasonInvalidRolloutStrategy

	// ReasonRolloutError is the reason of the Warning event when some of
	// the planned writes failed (an add-on that could not be created in a
	// missing cluster namespace, say); the other writes were made, and the
	// reconcile returns the error, so that it runs again on the
	// controller's rate limiter (rateLimiter).
	ReasonRolloutError = "RolloutError"
)

// AddonReconciler does, for every ClusterManagementAddOn it takes (its
// lifecycle annotation is one of Lifecycles), what OCM's add-on manager
// does: for an install strategy of type Placements, install and remove its
// ManagedClusterAddOns, roll its configs out placement by placement, and
// write its install progressions; for a Manual one, configure the add-ons
// created by hand with the default configs, all at once (see the package
// documentation).
type AddonReconciler struct {
	// Client reads from the manager's cache (config objects included, as
	// unstructured) and writes to the API server.
	Client client.Client
	// Clock is the planner's clock. Nil: the real clock.
	Clock clock.PassiveClock
	// Recorder receives an event for each placement that is not planned,
	// and for each reconcile whose writes met an error. Nil: no events.
	Recorder events.EventRecorder
	// Version is the add-on API version to read and write
	// ClusterManagementAddOns and ManagedClusterAddOns in: hubclient.V1alpha1 or
	// hubclient.V1beta1 (see hubclient.StorageVersion).
	Version string
	// Lifecycles are the values of the lifecycle annotation this
	// controller takes. Empty: hubclient.DefaultLifecycle.
	Lifecycles []string
	// Verifier runs the verifications of AddOnRollouts.
	Verifier verify.Verifier
	// Metrics receive each group's phase and counts, breaches,
	// verification results and revision durations. Nil: none.
	Metrics *rolloutmetrics.Metrics
	// Reader reads from the API server, for what the cache does not hold:
	// the work gate's ValidatingWebhookConfiguration. Nil: the AddOnRollout
	// gets no WorkGate condition.
	Reader client.Reader
	// ServesGate reports whether this controller serves the work gate
	// (hubctl.Options.WorkGate).
	ServesGate bool
	// ValidateQuery checks the PromQL queries of verifications (Setup
	// gives PromQL); nil: only that they are not empty.
	ValidateQuery hubplan.QueryValidator
	// ApprovalRetention is how long an approval of a revision its
	// placement no longer rolls out is kept before it is deleted; 0:
	// forever (hubplan.Controls.ApprovalRetention).
	ApprovalRetention time.Duration
	// HistoryNamespace is where the add-ons' revision histories are kept,
	// as ControllerRevisions (the controller's namespace), read with
	// Reader. Empty: no history, and neither spec.fastRollback nor
	// spec.onFailure: Rollback act.
	HistoryNamespace string

	// Set by SetupWithManager.
	rollouts bool // the hub serves rolloutkit.io's AddOnRollouts
	api      hubclient.AddonAPI
	configs  *configWatches
	phases   *phaseLog
	gate     *gatehook.Check
}

// notPlannedRetry is how soon a reconcile that left a placement unplanned
// (a config object missing, a config resource the controller may not
// watch, say) looks again, unless a soak or a deadline ends sooner: some
// of what fixes it (a grant of RBAC) sends the controller no event. The
// placement's install progression and an event already report it; the
// reconcile itself did not fail.
const notPlannedRetry = 15 * time.Second

// Reconcile installs, plans and writes the next step of one add-on's
// rollout.
func (r *AddonReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.api.NewCMA()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.phases.forget(req.Name)
			r.Metrics.Forget(req.Name)
			return r.missing(ctx, req.Name)
		}
		return ctrl.Result{}, err
	}
	rp := r.pass()
	cma, err := rp.snap.CMA(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !hubclient.Takes(r.Lifecycles, cma.Annotations) || !cma.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	in, err := hubplan.ReadInputs(rp.hub(ctx), cma.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	in.ClusterManagementAddOn = cma
	inputs, mcas := in.Placements, in.Addons
	installErr := errors.Join(rp.install(ctx, cma, inputs, mcas), rp.adopt(ctx, cma, mcas))
	in.Controls.WorkGate = r.gate.Guards(ctx, cma.Name)
	var historyErr error
	if in.Controls.Rollout != nil {
		if in.Controls.History, historyErr = r.readHistory(ctx, cma.Name); historyErr != nil {
			r.event(in.Controls.Rollout, nil, corev1.EventTypeWarning, EventHistoryError, "ReadHistory", "%s", oneLine(historyErr))
		}
	}
	ctl := in.Controls
	in.Controls = withView(ctl, cma.Name)
	p, err := r.plan(ctx, in)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(p.Rollbacks) > 0 {
		// The configs first: the status then records what was done.
		if err := r.rollBack(ctx, rp.hub(ctx), ctl.Rollout, p.Rollbacks); err != nil {
			return ctrl.Result{}, err
		}
	}
	r.Metrics.Observe(cma.Name, ctl.Rollout != nil, p.Status)
	renderingErr := rp.writeRendering(ctx, obj, p.Plan, mcas, ctl.Works)
	controlsErr := r.writeControls(ctx, ctl, p)
	if ctl.Rollout != nil && historyErr == nil && controlsErr == nil && len(p.Rollbacks) == 0 {
		if historyErr = r.writeHistory(ctx, rp.hub(ctx), in, ctl.History, p.Status); historyErr != nil {
			r.event(ctl.Rollout, nil, corev1.EventTypeWarning, EventHistoryError, "RecordHistory", "%s", oneLine(historyErr))
		}
	}
	return rp.write(ctx, obj, cma, mcas, p.Steps, errors.Join(installErr, renderingErr, controlsErr, historyErr), recheckOf(ctl, p.Plan))
}

// recheckOf is when to reconcile again for the plan p's own sake: its
// RecheckAfter, which keeps the AddOnRollout's status confirmed; without
// an AddOnRollout, nothing is confirmed, and write takes the steps'.
func recheckOf(ctl hubplan.Controls, p hubplan.Plan) time.Duration {
	if ctl.Rollout == nil {
		return 0
	}
	return p.RecheckAfter
}

// withView returns ctl, with an AddOnRollout without controls when it has
// none: the plan is then the one without an AddOnRollout (no gate holds
// anything), and its status feeds the metrics; it is never written.
func withView(ctl hubplan.Controls, name string) hubplan.Controls {
	if ctl.Rollout == nil {
		ctl.Rollout = &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	return ctl
}

// install creates the add-ons of the selected clusters that have none, and
// deletes those of the clusters no placement selects any more
// (addon.Install). A created add-on shows up in a later reconcile, through
// the watch.
func (r *pass) install(ctx context.Context, cma *addonv1beta1.ClusterManagementAddOn,
	inputs []addon.PlacementInput, mcas []*addonv1beta1.ManagedClusterAddOn) error {
	existing := make([]string, len(mcas))
	for i, m := range mcas {
		existing[i] = m.Namespace
	}
	create, remove := addon.Install(cma, inputs, existing)
	var errs []error
	for _, c := range create {
		if err := r.Client.Create(ctx, r.api.NewAddon(cma, c), client.FieldOwner(hubclient.FieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("creating managedclusteraddon %q: %w", c+"/"+cma.Name, err))
		}
	}
	for _, c := range remove {
		obj, err := r.snap.Read(types.NamespacedName{Namespace: c, Name: cma.Name})
		if err != nil {
			return err
		}
		uid := obj.GetUID()
		if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting managedclusteraddon %q: %w", c+"/"+cma.Name, err))
		}
	}
	if len(create)+len(remove) > 0 {
		log.FromContext(ctx).Info("add-ons installed and removed", "created", create, "deleted", remove)
	}
	return errors.Join(errs...)
}

// write makes the writes the steps call for, reports the placements that
// were not planned, and says when to reconcile again. Failed writes are
// returned, so that the controller's rate limiter (rateLimiter) retries
// them; only conflicts (the cache is behind) go without an event.
func (r *pass) write(ctx context.Context, obj client.Object, cma *addonv1beta1.ClusterManagementAddOn,
	mcas []*addonv1beta1.ManagedClusterAddOn, steps []hubplan.Step, installErr error, recheck time.Duration) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	byCluster := make(map[string]*addonv1beta1.ManagedClusterAddOn, len(mcas))
	for _, m := range mcas {
		byCluster[m.Namespace] = m
	}
	errs := []error{installErr}
	notPlanned, stale := false, false
	next := cma.DeepCopy()
	next.Status.InstallProgressions = nil
	for _, s := range steps {
		if s.Index >= 0 { // a Manual strategy's add-ons have no install progression
			next.Status.InstallProgressions = append(next.Status.InstallProgressions, s.Progression)
		}
		if s.Err != nil {
			notPlanned = true
			r.notPlanned(ctx, obj, s)
			continue
		}
		r.phases.observe(logger, cma.Name, s.Ref, s.Result.Groups)
		recheck = rollout.Sooner(recheck, s.Result.RecheckAfter)
		if stale {
			continue // a refused write: the cache is behind, and so are these
		}
		left, err := r.writeAddons(ctx, byCluster, s.Writes)
		if err != nil {
			errs = append(errs, err)
			stale = apierrors.IsConflict(err) // any of them
		}
		if left > 0 {
			recheck = rollout.Sooner(recheck, waitingRetry)
		}
	}
	if !equality.Semantic.DeepEqual(cma.Status.InstallProgressions, next.Status.InstallProgressions) {
		if err := r.snap.PatchProgressions(ctx, r.Client, next); err != nil {
			errs = append(errs, err)
		}
	}
	err := errors.Join(errs...)
	switch {
	case err != nil && onlyConflicts(err):
		return ctrl.Result{}, err
	case err != nil:
		if r.Recorder != nil {
			r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonRolloutError, "Write", "%s", err.Error())
		}
		return ctrl.Result{}, fmt.Errorf("add-on rollout: some writes failed; the others were made: %w", err)
	case notPlanned:
		return ctrl.Result{RequeueAfter: rollout.Sooner(recheck, notPlannedRetry)}, nil
	}
	return ctrl.Result{RequeueAfter: recheck}, nil
}

// notPlanned reports a placement (or a Manual strategy's add-ons) the
// library did not plan: a log line and a Warning event with the step's
// reason and error, which name the field or the object at fault, as the
// placement's install progression condition does.
func (r *AddonReconciler) notPlanned(ctx context.Context, obj client.Object, s hubplan.Step) {
	what := "placement " + s.Ref.Namespace + "/" + s.Ref.Name
	if s.Index < 0 {
		what = "add-ons of the Manual install strategy"
	}
	msg := strings.ReplaceAll(s.Err.Error(), "\n", "; ")
	log.FromContext(ctx).Info("not planned: nothing is rolled out for it", "for", what, "reason", s.Reason, "error", msg)
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, s.Reason, "Plan", "%s: %s", what, msg)
	}
}

// pass is one reconcile of an add-on: the reconciler, and the add-on
// objects the reconcile read and wrote, as the hub holds them
// (a hubclient.Snapshot). Its reads (hub) convert each add-on object to
// v1beta1 once, and its writes put the reconcile's v1beta1 status and
// metadata back onto the object as read, in the hub's version: the
// methods of pass are the reconcile's edge with the hub's version, and
// nothing else of the reconciler sees it.
type pass struct {
	*AddonReconciler
	snap *hubclient.Snapshot
}

// pass starts a reconcile.
func (r *AddonReconciler) pass() *pass {
	return &pass{AddonReconciler: r, snap: r.api.Snapshot()}
}

// hub is the reconcile's cache as hubplan.ReadInputs reads it.
func (r *pass) hub(ctx context.Context) hubclient.CacheHub {
	return hubclient.CacheHub{Ctx: ctx, Reader: r.Client, Snap: r.snap, API: r.api, Rollouts: r.rollouts, Configs: r.configs.object}
}
