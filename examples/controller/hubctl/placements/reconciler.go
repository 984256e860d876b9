package placements

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/placement"
)

// PlacementReconciler does the job of OCM's placement controller for one
// Placement: it schedules it against the whole hub with
// placement.Scheduler.ScheduleHub (cluster sets and their bindings in the
// Placement's namespace, taints and tolerations, prioritizers with
// AddOnPlacementScores) and writes the PlacementDecisions and the
// Placement's status. Nothing is written when nothing changed.
type PlacementReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Clock stamps condition transition times and is "now" for toleration
	// and score expiry. Nil: the real clock.
	Clock clock.PassiveClock
}

// SetupWithManager registers the reconciler: it runs for a Placement when
// the Placement changes, or one of its PlacementDecisions, or anything its
// schedule reads (see the watches' map functions).
func (r *PlacementReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("placement").
		For(&clusterv1beta1.Placement{}).
		Watches(&clusterv1.ManagedCluster{}, handler.EnqueueRequestsFromMapFunc(r.allPlacements)).
		Watches(&clusterv1beta2.ManagedClusterSet{}, handler.EnqueueRequestsFromMapFunc(r.allPlacements)).
		Watches(&clusterv1beta2.ManagedClusterSetBinding{}, handler.EnqueueRequestsFromMapFunc(r.placementsOfBinding)).
		Watches(&clusterv1alpha1.AddOnPlacementScore{}, handler.EnqueueRequestsFromMapFunc(r.placementsOfScore)).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(placementOfDecision)).
		Complete(r)
}

// Reconcile schedules one Placement and writes the difference. It runs
// again after the result's RecheckAfter, when a toleration or a score
// expires and the schedule may change with nothing else changing.
func (r *PlacementReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	var p clusterv1beta1.Placement
	if err := r.Client.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !p.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if p.Annotations[clusterv1beta1.PlacementDisableAnnotation] == "true" {
		// As OCM's scheduling controller: the annotation hands the
		// Placement to another scheduler, so its decisions and status are
		// left as they are. (placement.ScheduleHub itself does not read it.)
		logger.V(1).Info("placement skipped: scheduling disabled by its annotation", "annotation", clusterv1beta1.PlacementDisableAnnotation)
		return ctrl.Result{}, nil
	}
	hub, err := hubclient.ReadPlacementHub(ctx, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	res, err := placement.Scheduler{Clock: r.Clock}.ScheduleHub(&p, hub)
	if err != nil {
		// A misconfigured Placement still gets what OCM writes for it
		// (PlacementMisconfigured True). An error without a status (a
		// celSelector, which rolloutkit does not evaluate; a nameless
		// cluster) leaves everything as it is; the schedule depends on
		// nothing but the objects watched, so it is not retried until one
		// of them changes.
		if !res.Misconfigured {
			return ctrl.Result{}, reconcile.TerminalError(fmt.Errorf("placement %q not scheduled, its decisions and status left as they are: %w", req.String(), err))
		}
		logger.Info("placement misconfigured", "error", err.Error())
	}
	for _, w := range res.Warnings {
		logger.V(1).Info("placement warning", "kind", string(w.Kind), "warning", w.Message)
	}
	if res.RecheckAfter > 0 {
		logger.V(1).Info("placement scheduled again after", "recheckAfter", res.RecheckAfter.String())
	}
	if err := r.writeDecisions(ctx, &p, res.Decisions); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, &p, res); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: res.RecheckAfter}, nil
}

// writeStatus writes the Placement's status when it changed.
func (r *PlacementReconciler) writeStatus(ctx context.Context, p *clusterv1beta1.Placement, res placement.Result) error {
	if equality.Semantic.DeepEqual(p.Status, res.Status) {
		return nil
	}
	next := p.DeepCopy()
	next.Status = res.Status
	if err := hubclient.PatchStatus(ctx, r.Client, p, next); err != nil {
		return err
	}
	log.FromContext(ctx).Info("placement status written", "selected", res.Status.NumberOfSelectedClusters, "groups", len(res.Groups))
	return nil
}

// writeDecisions makes the Placement's PlacementDecisions those of want.
// Clusters leave first: the decisions no longer wanted are deleted, and
// each kept one loses the clusters it no longer holds. Only then are the
// missing decisions created and the others patched (labels and owner
// references, then status) to gain theirs. So no reader ever sees a cluster
// in two decisions of the Placement, which the add-on rollout refuses,
// when a cluster moves to another group (an emptied group shifts the
// later ones down, say); it may miss the cluster for a moment instead.
func (r *PlacementReconciler) writeDecisions(ctx context.Context, p *clusterv1beta1.Placement, want []*clusterv1beta1.PlacementDecision) error {
	var have clusterv1beta1.PlacementDecisionList
	if err := r.Client.List(ctx, &have, client.InNamespace(p.Namespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: p.Name}); err != nil {
		return err
	}
	existing, err := r.removeClusters(ctx, have.Items, want)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range want {
		cur, ok := existing[d.Name]
		if !ok {
			errs = append(errs, r.createDecision(ctx, d))
			continue
		}
		errs = append(errs, r.updateDecision(ctx, cur, d))
	}
	return errors.Join(errs...)
}

// removeClusters deletes the decisions of have that want does not name,
// and writes each other one without the clusters its namesake in want
// does not hold. It returns the decisions kept, by name, as written.
func (r *PlacementReconciler) removeClusters(ctx context.Context, have []clusterv1beta1.PlacementDecision, want []*clusterv1beta1.PlacementDecision) (map[string]*clusterv1beta1.PlacementDecision, error) {
	wanted := make(map[string]map[string]bool, len(want))
	for _, d := range want {
		wanted[d.Name] = make(map[string]bool, len(d.Status.Decisions))
		for _, cd := range d.Status.Decisions {
			wanted[d.Name][cd.ClusterName] = true
		}
	}
	kept := make(map[string]*clusterv1beta1.PlacementDecision, len(have))
	var errs []error
	for i := range have {
		cur := &have[i]
		clusters, ok := wanted[cur.Name]
		if !ok {
			if err := r.Client.Delete(ctx, cur, client.Preconditions{UID: &cur.UID}); client.IgnoreNotFound(err) != nil {
				errs = append(errs, err)
			}
			continue
		}
		kept[cur.Name] = cur
		stay := slices.DeleteFunc(slices.Clone(cur.Status.Decisions), func(cd clusterv1beta1.ClusterDecision) bool { return !clusters[cd.ClusterName] })
		if len(stay) == len(cur.Status.Decisions) {
			continue
		}
		next := cur.DeepCopy()
		next.Status.Decisions = stay
		if err := hubclient.PatchStatus(ctx, r.Client, cur, next); err != nil {
			errs = append(errs, err)
			continue
		}
		kept[cur.Name] = next
	}
	return kept, errors.Join(errs...)
}

func (r *PlacementReconciler) createDecision(ctx context.Context, d *clusterv1beta1.PlacementDecision) error {
	obj := d.DeepCopy()
	if err := r.Client.Create(ctx, obj, client.FieldOwner(hubclient.FieldManager)); err != nil {
		return fmt.Errorf("creating placementdecision %q: %w", d.Namespace+"/"+d.Name, err)
	}
	if len(d.Status.Decisions) == 0 {
		return nil
	}
	// Create ignores the status subresource: write it next.
	created := obj.DeepCopy()
	obj.Status = d.Status
	return hubclient.PatchStatus(ctx, r.Client, created, obj)
}

func (r *PlacementReconciler) updateDecision(ctx context.Context, cur, want *clusterv1beta1.PlacementDecision) error {
	if !equality.Semantic.DeepEqual(cur.Labels, want.Labels) || !equality.Semantic.DeepEqual(cur.OwnerReferences, want.OwnerReferences) {
		next := cur.DeepCopy()
		next.Labels = want.Labels
		next.OwnerReferences = want.OwnerReferences
		if err := hubclient.PatchObject(ctx, r.Client, cur, next); err != nil {
			return err
		}
		cur = next
	}
	if equality.Semantic.DeepEqual(cur.Status.Decisions, want.Status.Decisions) {
		return nil
	}
	next := cur.DeepCopy()
	next.Status = want.Status
	return hubclient.PatchStatus(ctx, r.Client, cur, next)
}
