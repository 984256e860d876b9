package hubctl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Reasons of the conditions and events the add-on reconciler writes.
const (
	// ReasonInvalidRolloutStrategy is the reason of an install progression's
	// Progressing condition (False) and of the Warning event when a
	// placement's rolloutStrategy does not validate; the message carries
	// the field errors. Nothing is rolled out for that placement.
	ReasonInvalidRolloutStrategy = "InvalidRolloutStrategy"

	// ReasonRolloutError is the reason of the Warning event when part of a
	// rollout could not be planned or written (a config object or a
	// cluster namespace missing, say); the rest goes ahead, and the
	// reconcile runs again within errorRetry.
	ReasonRolloutError = "RolloutError"

	reasonConfigured    = "ConfigurationsConfigured"
	reasonNotConfigured = "ConfigurationsNotConfigured"
)

// mcaNameIndex is the cache index of ManagedClusterAddOns by name.
const mcaNameIndex = "rolloutkit.metadata.name"

// AddonReconciler does the rollout job of OCM's add-on manager for one
// ClusterManagementAddOn whose install strategy is Placements (see the
// package documentation).
type AddonReconciler struct {
	// Client reads from the manager's cache (config objects included, as
	// unstructured) and writes to the API server.
	Client client.Client
	// Clock is the planner's clock. Nil: the real clock.
	Clock clock.PassiveClock
	// Recorder receives an event for each add-on whose rollout strategy is
	// invalid, and for each reconcile that met an error. Nil: no events.
	Recorder events.EventRecorder
	// Version is the add-on API version to read and write
	// ClusterManagementAddOns and ManagedClusterAddOns in: V1alpha1 or
	// V1beta1 (see StorageVersion).
	Version string

	// Set by SetupWithManager.
	api     addonAPI
	configs *configWatches
	phases  *phaseLog
}

// placementOutcome is what one install-strategy placement contributes to a
// reconcile.
type placementOutcome struct {
	progression addonv1beta1.InstallProgression
	recheck     time.Duration
}

// errorRetry is how soon a reconcile that met an error other than a
// conflict (a config object or a cluster namespace missing, say) runs
// again, unless a soak or a deadline ends sooner. It is a fixed poll, not an
// exponential backoff, so that a problem on one cluster never delays the
// clock-driven steps of the others.
const errorRetry = 15 * time.Second

// Reconcile plans and writes the next step of one add-on's rollout.
func (r *AddonReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.api.newCMA()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.phases.forget(req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cma, err := r.api.cma(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cma.Spec.InstallStrategy.Type != addonv1beta1.AddonInstallStrategyPlacements || !cma.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	groups, err := r.ownedGroups(ctx, cma)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := clock.NowOf(r.Clock)
	specHash := r.configs.specHash(ctx)

	var (
		ips     []addonv1beta1.InstallProgression
		recheck time.Duration
		errs    []error
	)
	for i, ps := range cma.Spec.InstallStrategy.Placements {
		out, err := r.reconcilePlacement(ctx, obj, cma, i, ps, groups[i], now, specHash)
		if err != nil {
			errs = append(errs, fmt.Errorf("placement %q: %w", ps.Namespace+"/"+ps.Name, err))
		}
		ips = append(ips, out.progression)
		recheck = sooner(recheck, out.recheck)
	}
	if err := r.writeProgressions(ctx, obj, cma, ips); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		if onlyConflicts(err) {
			return ctrl.Result{RequeueAfter: sooner(recheck, conflictRetry)}, nil
		}
		log.FromContext(ctx).Error(err, "add-on rollout: some of it could not be planned or written; the rest went ahead")
		if r.Recorder != nil {
			r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonRolloutError, "Reconcile", "%s", err.Error())
		}
		return ctrl.Result{RequeueAfter: sooner(recheck, errorRetry)}, nil
	}
	return ctrl.Result{RequeueAfter: recheck}, nil
}

// sooner returns the smaller positive duration of a and b (0: none).
func sooner(a, b time.Duration) time.Duration {
	if a <= 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// ownedGroups reads the decision groups of every install-strategy placement
// and gives each cluster to the last placement that selects it, as OCM's
// add-on manager does: a placement rolls out only the clusters it owns.
func (r *AddonReconciler) ownedGroups(ctx context.Context, cma *addonv1beta1.ClusterManagementAddOn) ([][]grouping.Group, error) {
	all := make([][]grouping.Group, len(cma.Spec.InstallStrategy.Placements))
	for i, ps := range cma.Spec.InstallStrategy.Placements {
		gs, err := r.groups(ctx, ps.PlacementRef)
		if err != nil {
			return nil, fmt.Errorf("placement %q: %w", ps.Namespace+"/"+ps.Name, err)
		}
		all[i] = gs
	}
	return lastPlacementWins(all), nil
}

// lastPlacementWins keeps each cluster only in the groups of the last
// placement (by index in all) that selects it. The groups themselves stay,
// emptied where need be, so that indices keep their meaning. all is not
// modified.
func lastPlacementWins(all [][]grouping.Group) [][]grouping.Group {
	owner := make(map[string]int)
	for i, gs := range all {
		for _, g := range gs {
			for _, c := range g.Clusters {
				owner[c] = i
			}
		}
	}
	out := slices.Clone(all)
	for i, gs := range out {
		for k, g := range gs {
			var kept []string
			for _, c := range g.Clusters {
				if owner[c] == i {
					kept = append(kept, c)
				}
			}
			if len(kept) != len(g.Clusters) {
				if &out[i][0] == &all[i][0] {
					out[i] = slices.Clone(gs)
				}
				out[i][k].Clusters = kept
			}
		}
	}
	return out
}

// reconcilePlacement plans and writes one install-strategy placement, over
// the groups of the clusters it owns. What it cannot do for some clusters
// (an add-on it cannot create, say) it reports, and does the rest; when it
// cannot plan at all, the progression it returns is the previous one.
func (r *AddonReconciler) reconcilePlacement(ctx context.Context, obj client.Object, cma *addonv1beta1.ClusterManagementAddOn,
	i int, ps addonv1beta1.PlacementStrategy, groups []grouping.Group, now time.Time, specHash addon.SpecHashFunc) (placementOutcome, error) {
	keep, ok := previousProgression(cma, ps.PlacementRef)
	if !ok {
		keep = addonv1beta1.InstallProgression{PlacementRef: ps.PlacementRef}
	}
	stay := placementOutcome{progression: keep}
	if err := rollout.Validate(ps.RolloutStrategy); err != nil {
		return r.invalidStrategy(ctx, obj, i, ps, keep, now, err), nil
	}
	current, createErr := r.ensureAddons(ctx, obj, groups)
	mcas := make([]*addonv1beta1.ManagedClusterAddOn, 0, len(current))
	for _, o := range current {
		m, err := r.api.mca(o)
		if err != nil {
			return stay, err
		}
		mcas = append(mcas, m)
	}
	addons, err := addon.Evaluate(cma, ps.PlacementRef, mcas, specHash)
	if err != nil {
		return stay, errors.Join(createErr, err)
	}
	concurrency, err := r.defaultConcurrency(ctx, ps)
	if err != nil {
		return stay, errors.Join(createErr, err)
	}
	planner := rollout.Planner{Clock: r.Clock, DefaultConcurrency: concurrency}
	res, err := planner.Plan(ps.RolloutStrategy, groups, addon.Statuses(addons))
	if err != nil {
		return stay, errors.Join(createErr, err)
	}
	r.phases.observe(log.FromContext(ctx), cma.Name, ps.PlacementRef, res.Groups)
	writeErr := r.writeAddons(ctx, current, addons, res)
	desired, err := addon.Desired(cma, ps.PlacementRef, nil, specHash)
	if err != nil {
		return stay, errors.Join(createErr, writeErr, err)
	}
	progress := addon.Tally(groups, addons, res)
	return placementOutcome{
		progression: addon.InstallProgression(cma.Status.InstallProgressions, ps.PlacementRef, desired, progress, now),
		recheck:     res.RecheckAfter,
	}, errors.Join(createErr, writeErr)
}

// invalidStrategy reports a rollout strategy that does not validate: an
// event, and a Progressing condition (False) carrying the field errors on
// the placement's install progression, whose configs are left as they were.
func (r *AddonReconciler) invalidStrategy(ctx context.Context, obj client.Object, i int, ps addonv1beta1.PlacementStrategy,
	ip addonv1beta1.InstallProgression, now time.Time, verr error) placementOutcome {
	msg := under(field.NewPath("spec", "installStrategy", "placements").Index(i).Child("rolloutStrategy"), verr)
	log.FromContext(ctx).Info("invalid rollout strategy: nothing is rolled out", "placement", ps.Namespace+"/"+ps.Name, "error", msg)
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonInvalidRolloutStrategy, "Plan", "%s", msg)
	}
	meta.SetStatusCondition(&ip.Conditions, metav1.Condition{
		Type:               addonv1beta1.ManagedClusterAddOnConditionProgressing,
		Status:             metav1.ConditionFalse,
		Reason:             ReasonInvalidRolloutStrategy,
		Message:            msg,
		LastTransitionTime: metav1.NewTime(now),
	})
	return placementOutcome{progression: ip}
}

// under words the problems of verr, a join of *field.Error as
// rollout.Validate returns them with paths relative to the strategy, with
// path before each of their paths, so that every problem names its field
// from the ClusterManagementAddOn's root; problems are joined by "; " to
// fit a condition's one-line message.
func under(path *field.Path, verr error) string {
	errs := []error{verr}
	if j, ok := verr.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	lines := make([]string, 0, len(errs))
	for _, e := range errs {
		var fe *field.Error
		if !errors.As(e, &fe) {
			lines = append(lines, fmt.Sprintf("%s: %v", path, e))
			continue
		}
		rooted := *fe
		rooted.Field = path.String() + "." + fe.Field
		lines = append(lines, rooted.Error())
	}
	return strings.Join(lines, "; ")
}

// previousProgression returns a copy of the install progression cma's
// status has for the placement ref.
func previousProgression(cma *addonv1beta1.ClusterManagementAddOn, ref addonv1beta1.PlacementRef) (addonv1beta1.InstallProgression, bool) {
	for _, ip := range cma.Status.InstallProgressions {
		if ip.PlacementRef == ref {
			return *ip.DeepCopy(), true
		}
	}
	return addonv1beta1.InstallProgression{}, false
}

// groups reads a placement's decision groups from its PlacementDecisions,
// as OCM's add-on manager does. No PlacementDecisions: no groups.
func (r *AddonReconciler) groups(ctx context.Context, ref addonv1beta1.PlacementRef) ([]grouping.Group, error) {
	var ds clusterv1beta1.PlacementDecisionList
	if err := r.Client.List(ctx, &ds, client.InNamespace(ref.Namespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: ref.Name}); err != nil {
		return nil, err
	}
	if len(ds.Items) == 0 {
		return nil, nil
	}
	ptrs := make([]*clusterv1beta1.PlacementDecision, len(ds.Items))
	for i := range ds.Items {
		ptrs[i] = &ds.Items[i]
	}
	return placement.GroupsFromDecisions(ptrs)
}

// defaultConcurrency is the window OCM's add-on manager gives Progressive
// when maxConcurrency is unset: the Placement's clustersPerDecisionGroup.
func (r *AddonReconciler) defaultConcurrency(ctx context.Context, ps addonv1beta1.PlacementStrategy) (*intstr.IntOrString, error) {
	if ps.RolloutStrategy.Type != clusterv1alpha1.Progressive {
		return nil, nil
	}
	var p clusterv1beta1.Placement
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: ps.Namespace, Name: ps.Name}, &p); err != nil {
		// Without the Placement the window is unknown: plan nothing rather
		// than start every cluster at once.
		return nil, fmt.Errorf("reading the Placement for Progressive's default maxConcurrency: %w", err)
	}
	cpg := p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup
	if cpg == (intstr.IntOrString{}) {
		return nil, nil
	}
	return &cpg, nil
}

// ensureAddons returns the add-on's ManagedClusterAddOns on the clusters of
// groups (in the stored version), creating the missing ones as OCM's
// add-on manager does. A created add-on shows up in a later reconcile,
// through the watch.
func (r *AddonReconciler) ensureAddons(ctx context.Context, cma client.Object, groups []grouping.Group) ([]client.Object, error) {
	list := r.api.newMCAList()
	if err := r.Client.List(ctx, list, client.MatchingFields{mcaNameIndex: cma.GetName()}); err != nil {
		return nil, err
	}
	byCluster := make(map[string]client.Object)
	for _, o := range r.api.mcas(list) {
		byCluster[o.GetNamespace()] = o
	}
	var out []client.Object
	var errs []error
	for _, g := range groups {
		for _, c := range g.Clusters {
			if o, ok := byCluster[c]; ok {
				out = append(out, o)
				continue
			}
			if err := r.Client.Create(ctx, r.api.newAddon(cma, c), client.FieldOwner(FieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
				errs = append(errs, fmt.Errorf("creating managedclusteraddon %q: %w", c+"/"+cma.GetName(), err))
			}
		}
	}
	return out, errors.Join(errs...)
}

// writeAddons writes status.configReferences[].desiredConfig and the
// Configured condition, only on the add-ons the plan lists, and marks the
// add-ons that wait for the new configs as not configured, as OCM's
// add-on manager does.
func (r *AddonReconciler) writeAddons(ctx context.Context, current []client.Object, addons []addon.Cluster, res rollout.Result) error {
	listed := make(map[string]bool, len(res.ToRollout))
	for _, s := range res.ToRollout {
		listed[s.Cluster] = true
	}
	byCluster := make(map[string]client.Object, len(current))
	for _, o := range current {
		byCluster[o.GetNamespace()] = o
	}
	var errs []error
	for _, a := range addons {
		obj := byCluster[a.Status.Cluster]
		mca, err := r.api.mca(obj)
		if err != nil {
			return err
		}
		refs := mca.Status.ConfigReferences
		cond := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue,
			Reason: reasonConfigured, Message: "Configurations configured", LastTransitionTime: metav1.NewTime(clock.NowOf(r.Clock))}
		switch {
		case listed[a.Status.Cluster]:
			refs = addon.ConfigReferences(refs, a.Configs)
		case a.Status.Status == rollout.ToApply:
			cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, reasonNotConfigured, "Configurations updated and not configured yet"
		case a.Status.Status != rollout.Succeeded:
			continue
		}
		next, err := r.api.withAddonStatus(obj, refs, cond)
		if err != nil {
			return err
		}
		if sameAddonStatus(obj, next) {
			continue
		}
		if err := r.Client.Status().Patch(ctx, next, client.MergeFromWithOptions(obj, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeProgressions writes the add-on's install progressions when they
// changed.
func (r *AddonReconciler) writeProgressions(ctx context.Context, obj client.Object, cma *addonv1beta1.ClusterManagementAddOn, ips []addonv1beta1.InstallProgression) error {
	if equality.Semantic.DeepEqual(cma.Status.InstallProgressions, ips) {
		return nil
	}
	next, err := r.api.withProgressions(obj, ips)
	if err != nil {
		return err
	}
	return r.Client.Status().Patch(ctx, next, client.MergeFromWithOptions(obj, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
}

// sameAddonStatus tells whether two versions of one ManagedClusterAddOn
// carry the same status.
func sameAddonStatus(a, b client.Object) bool {
	x, errX := addonAPI{}.mca(a)
	y, errY := addonAPI{}.mca(b)
	if errX != nil || errY != nil {
		return false
	}
	return equality.Semantic.DeepEqual(x.Status.ConfigReferences, y.Status.ConfigReferences) &&
		equality.Semantic.DeepEqual(x.Status.Conditions, y.Status.Conditions)
}

// onlyConflicts reports whether every error joined or wrapped in err is an
// API conflict: the reconcile then runs again soon on fresh data, and
// nothing is worth logging.
func onlyConflicts(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlyConflicts(e) {
				return false
			}
		}
		return true
	}
	if u := errors.Unwrap(err); u != nil {
		return onlyConflicts(u)
	}
	return apierrors.IsConflict(err)
}
