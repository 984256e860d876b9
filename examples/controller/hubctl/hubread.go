package hubctl

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// cacheHub is the manager's cache as hubplan.ReadInputs reads a hub:
// the add-on reconciler's one way to read an add-on's inputs, and the work
// gate's way to read its placements' groups. It reads add-ons, approvals
// by the cache's field indexes, and config objects through configs (which
// also starts their watches); nil snap, or nil configs, reads no add-on
// or config.
type cacheHub struct {
	ctx      context.Context
	c        client.Reader
	snap     *snapshot
	api      addonAPI
	rollouts bool // the hub serves AddOnRollouts
	configs  *configWatches
}

var _ hubplan.Hub = cacheHub{}

// hub is the reconciler's cache as hubplan.ReadInputs reads it.
func (r *AddonReconciler) hub(ctx context.Context, snap *snapshot) cacheHub {
	return cacheHub{ctx: ctx, c: r.Client, snap: snap, api: r.api, rollouts: r.rollouts, configs: r.configs}
}

// ClusterManagementAddOn reads the add-on name, in v1beta1; nil when there
// is none, or when h reads no add-on.
func (h cacheHub) ClusterManagementAddOn(name string) (*addonv1beta1.ClusterManagementAddOn, error) {
	if h.snap == nil {
		return nil, nil
	}
	obj := h.api.newCMA()
	switch err := h.c.Get(h.ctx, types.NamespacedName{Name: name}, obj); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return h.snap.cma(obj)
}

// Placement reads the Placement namespace/name; nil when there is none.
func (h cacheHub) Placement(namespace, name string) (*clusterv1beta1.Placement, error) {
	var p clusterv1beta1.Placement
	switch err := h.c.Get(h.ctx, types.NamespacedName{Namespace: namespace, Name: name}, &p); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &p, nil
}

// PlacementDecisions lists the decisions of the Placement namespace/name,
// by its label, as OCM's add-on manager does.
func (h cacheHub) PlacementDecisions(namespace, name string) ([]*clusterv1beta1.PlacementDecision, error) {
	var ds clusterv1beta1.PlacementDecisionList
	if err := h.c.List(h.ctx, &ds, client.InNamespace(namespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: name}); err != nil {
		return nil, err
	}
	return pointers(ds.Items), nil
}

// ManagedClusterAddOns lists the add-ons named addOn, by the cache's name
// index, converted to v1beta1 through the snapshot.
func (h cacheHub) ManagedClusterAddOns(addOn string) ([]*addonv1beta1.ManagedClusterAddOn, error) {
	list := h.api.newMCAList()
	if err := h.c.List(h.ctx, list, client.MatchingFields{mcaNameIndex: addOn}); err != nil {
		return nil, err
	}
	return h.snap.mcas(list)
}

// AddOnRollout reads the AddOnRollout addOn; nil when there is none or
// the hub serves none.
func (h cacheHub) AddOnRollout(addOn string) (*v1alpha1.AddOnRollout, error) {
	if !h.rollouts {
		return nil, nil
	}
	ar := &v1alpha1.AddOnRollout{}
	switch err := h.c.Get(h.ctx, types.NamespacedName{Name: addOn}, ar); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return ar, nil
}

// RolloutApprovals lists the approvals of addOn, by the cache's index.
func (h cacheHub) RolloutApprovals(addOn string) ([]*v1alpha1.RolloutApproval, error) {
	if !h.rollouts {
		return nil, nil
	}
	var list v1alpha1.RolloutApprovalList
	if err := h.c.List(h.ctx, &list, client.MatchingFields{approvalAddOnIndex: addOn}); err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// ManifestWorks lists the works of addOn, by its label.
func (h cacheHub) ManifestWorks(addOn string) ([]*workv1.ManifestWork, bool, error) {
	var list workv1.ManifestWorkList
	if err := h.c.List(h.ctx, &list, client.MatchingLabels{addonv1beta1.AddonLabelKey: addOn}); err != nil {
		return nil, false, fmt.Errorf("listing the manifestworks of add-on %q: %w", addOn, err)
	}
	return pointers(list.Items), true, nil
}

// Config reads a config object through the config watches.
func (h cacheHub) Config(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error) {
	return h.configs.object(h.ctx, gr, ref)
}
