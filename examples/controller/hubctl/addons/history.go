package addons

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Reasons of the events of the revision history.
const (
	// EventRolledBack (Warning): spec.onFailure: Rollback restored a
	// placement's last completed revision; the message says from which
	// revision to which, and what failed.
	EventRolledBack = "RolledBack"
	// EventHistoryError (Warning): the revision history could not be read
	// or written; the rollout goes on, without fast rollbacks or automatic
	// ones until it can.
	EventHistoryError = "HistoryError"
)

// readHistory reads the add-on's revision history from the
// ControllerRevisions in HistoryNamespace (nil when it is unset).
func (r *AddonReconciler) readHistory(ctx context.Context, addOn string) ([]hubplan.HistoryEntry, error) {
	if r.HistoryNamespace == "" || r.Reader == nil {
		return nil, nil
	}
	crs, err := hubclient.ListHistory(ctx, r.Reader, r.HistoryNamespace, addOn)
	if err != nil {
		return nil, err
	}
	return hubplan.HistoryOf(addOn, crs)
}

// writeHistory records the revisions the plan's status says the
// placements are at (hubplan.PlanHistory). Only for an add-on with an
// AddOnRollout: the history is read only then.
func (r *AddonReconciler) writeHistory(ctx context.Context, hub hubplan.Hub, in hubplan.Inputs, history []hubplan.HistoryEntry, st v1alpha1.AddOnRolloutStatus) error {
	if r.HistoryNamespace == "" || in.Controls.Rollout == nil || in.ClusterManagementAddOn == nil {
		return nil
	}
	ch, err := hubplan.PlanHistory(in.AddOn, st, placementClusters(in.Placements), history, configSpec(hub, in.SpecHash), hubplan.HistoryLimit(in.Controls.Rollout))
	if err != nil || ch.Empty() {
		return err
	}
	var errs []error
	for _, e := range ch.Create {
		cr, err := hubplan.HistoryObject(r.HistoryNamespace, e)
		if err == nil {
			err = r.Client.Create(ctx, cr)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("recording revision %d of %q: %w", e.Number, in.AddOn, err))
		}
	}
	for _, e := range ch.Update {
		want, err := hubplan.HistoryObject(r.HistoryNamespace, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var cur appsv1.ControllerRevision
		if err := r.Reader.Get(ctx, client.ObjectKeyFromObject(want), &cur); err != nil {
			errs = append(errs, fmt.Errorf("updating revision %d of %q: %w", e.Number, in.AddOn, err))
			continue
		}
		next := cur.DeepCopy()
		next.Revision = want.Revision
		for k, v := range want.Annotations {
			if next.Annotations == nil {
				next.Annotations = map[string]string{}
			}
			next.Annotations[k] = v
		}
		if err := r.Client.Patch(ctx, next, client.MergeFrom(&cur)); err != nil {
			errs = append(errs, fmt.Errorf("updating revision %d of %q: %w", e.Number, in.AddOn, err))
		}
	}
	for _, name := range ch.Delete {
		cr := &appsv1.ControllerRevision{}
		cr.Namespace, cr.Name = r.HistoryNamespace, name
		if err := r.Client.Delete(ctx, cr); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting revision %s of %q past the history's limit: %w", name, in.AddOn, err))
		}
	}
	return errors.Join(errs...)
}

// placementClusters are the clusters of each placement's decision
// groups, by "namespace/name".
func placementClusters(placements []addon.PlacementInput) map[string][]string {
	out := make(map[string][]string, len(placements))
	for _, p := range placements {
		if p.Placement == nil {
			continue
		}
		key := p.Placement.Namespace + "/" + p.Placement.Name
		for _, g := range p.Groups {
			out[key] = append(out[key], g.Clusters...)
		}
	}
	return out
}

// configSpec reads a config's spec and its spec hash, as the plan hashed
// it.
func configSpec(hub hubplan.Hub, specHash addon.SpecHashFunc) hubplan.ConfigSpecFunc {
	return func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (runtime.RawExtension, string, error) {
		obj, err := hub.Config(gr, ref)
		if err != nil {
			return runtime.RawExtension{}, "", err
		}
		raw, err := json.Marshal(obj.Object["spec"])
		if err != nil {
			return runtime.RawExtension{}, "", err
		}
		h, err := specHash(gr, ref)
		return runtime.RawExtension{Raw: raw}, h, err
	}
}

// rollBack restores the configs of each rollback the plan decided, with
// an event on the AddOnRollout for each. A config it cannot restore is an
// error, and the status, which would record the rollback, is not
// written: the next reconcile decides again.
func (r *AddonReconciler) rollBack(ctx context.Context, hub hubplan.Hub, ar *v1alpha1.AddOnRollout, rollbacks []hubplan.Rollback) error {
	for _, rb := range rollbacks {
		if err := RestoreConfigs(ctx, r.Client, hub.Config, rb.Configs); err != nil {
			r.event(ar, nil, corev1.EventTypeWarning, EventRolledBack, "RollBack", "rolling placement %s/%s back to revision %d (%s) failed: %s",
				rb.Status.Placement.Namespace, rb.Status.Placement.Name, rb.Status.ToNumber, rb.Status.To, oneLine(err))
			return err
		}
		r.event(ar, nil, corev1.EventTypeWarning, EventRolledBack, "RollBack", "placement %s/%s rolled back from revision %s to revision %d (%s): %s: %s",
			rb.Status.Placement.Namespace, rb.Status.Placement.Name, rb.Status.From, rb.Status.ToNumber, rb.Status.To, rb.Status.Reason, rb.Status.Message)
	}
	return nil
}

// ConfigReader reads a config object.
type ConfigReader func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error)

// RestoreConfigs writes each recorded config's spec back to its object on
// the hub (read with read), leaving one whose spec is already that as it
// is. It is what an undo and an automatic rollback write.
func RestoreConfigs(ctx context.Context, c client.Client, read ConfigReader, configs []v1alpha1.RecordedConfig) error {
	var errs []error
	for _, rc := range configs {
		gr := addonv1beta1.ConfigGroupResource{Group: rc.Group, Resource: rc.Resource}
		ref := addonv1beta1.ConfigReferent{Namespace: rc.Namespace, Name: rc.Name}
		cur, err := read(gr, ref)
		if err != nil {
			errs = append(errs, fmt.Errorf("restoring %s: %w", hubplan.ConfigRef(rc.RevisionConfig), err))
			continue
		}
		var spec any
		if err := json.Unmarshal(rc.Spec.Raw, &spec); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s: the recorded spec: %w", hubplan.ConfigRef(rc.RevisionConfig), err))
			continue
		}
		next := cur.DeepCopy()
		next.Object["spec"] = spec
		if equalSpecs(cur, next) {
			continue
		}
		if err := c.Update(ctx, next); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s: %w", hubplan.ConfigRef(rc.RevisionConfig), err))
		}
	}
	return errors.Join(errs...)
}

func equalSpecs(a, b *unstructured.Unstructured) bool {
	x, err1 := json.Marshal(a.Object["spec"])
	y, err2 := json.Marshal(b.Object["spec"])
	return err1 == nil && err2 == nil && string(x) == string(y)
}
