package hubclient

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

// CacheHub is the manager's cache as hubplan.ReadInputs reads a hub:
// the add-on reconciler's one way to read an add-on's inputs, and the work
// gate's way to read its placements' groups. It reads add-ons through
// Snap, approvals by the cache's field indexes (MCANameIndex,
// ApprovalAddOnIndex), and config objects through Configs (which also
// starts their watches); nil Snap, or nil Configs, reads no add-on or
// config.
type CacheHub struct {
	// Ctx is the context of every read.
	Ctx context.Context
	// Reader is the manager's cache.
	Reader client.Reader
	// Snap converts the add-ons read to v1beta1, and remembers them as read.
	Snap *Snapshot
	// API is the add-on API version the hub is read in.
	API AddonAPI
	// Rollouts tells whether the hub serves AddOnRollouts.
	Rollouts bool
	// Configs reads a config object.
	Configs func(context.Context, addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error)
}

var _ hubplan.Hub = CacheHub{}

// ClusterManagementAddOn reads the add-on name, in v1beta1; nil when there
// is none, or when h reads no add-on.
func (h CacheHub) ClusterManagementAddOn(name string) (*addonv1beta1.ClusterManagementAddOn, error) {
	if h.Snap == nil {
		return nil, nil
	}
	obj := h.API.NewCMA()
	switch err := h.Reader.Get(h.Ctx, types.NamespacedName{Name: name}, obj); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return h.Snap.CMA(obj)
}

// Placement reads the Placement namespace/name; nil when there is none.
func (h CacheHub) Placement(namespace, name string) (*clusterv1beta1.Placement, error) {
	var p clusterv1beta1.Placement
	switch err := h.Reader.Get(h.Ctx, types.NamespacedName{Namespace: namespace, Name: name}, &p); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &p, nil
}

// PlacementDecisions lists the decisions of the Placement namespace/name,
// by its label, as OCM's add-on manager does.
func (h CacheHub) PlacementDecisions(namespace, name string) ([]*clusterv1beta1.PlacementDecision, error) {
	var ds clusterv1beta1.PlacementDecisionList
	if err := h.Reader.List(h.Ctx, &ds, client.InNamespace(namespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: name}); err != nil {
		return nil, err
	}
	return Pointers(ds.Items), nil
}

// ManagedClusterAddOns lists the add-ons named addOn, by the cache's name
// index, converted to v1beta1 through the Snapshot.
func (h CacheHub) ManagedClusterAddOns(addOn string) ([]*addonv1beta1.ManagedClusterAddOn, error) {
	list := h.API.NewMCAList()
	if err := h.Reader.List(h.Ctx, list, client.MatchingFields{MCANameIndex: addOn}); err != nil {
		return nil, err
	}
	return h.Snap.MCAs(list)
}

// AddOnRollout reads the AddOnRollout addOn; nil when there is none or
// the hub serves none.
func (h CacheHub) AddOnRollout(addOn string) (*v1alpha1.AddOnRollout, error) {
	if !h.Rollouts {
		return nil, nil
	}
	ar := &v1alpha1.AddOnRollout{}
	switch err := h.Reader.Get(h.Ctx, types.NamespacedName{Name: addOn}, ar); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return ar, nil
}

// RolloutApprovals lists the approvals of addOn, by the cache's index.
func (h CacheHub) RolloutApprovals(addOn string) ([]*v1alpha1.RolloutApproval, error) {
	if !h.Rollouts {
		return nil, nil
	}
	var list v1alpha1.RolloutApprovalList
	if err := h.Reader.List(h.Ctx, &list, client.MatchingFields{ApprovalAddOnIndex: addOn}); err != nil {
		return nil, err
	}
	return Pointers(list.Items), nil
}

// ManifestWorks lists the works of addOn, by its label.
func (h CacheHub) ManifestWorks(addOn string) ([]*workv1.ManifestWork, bool, error) {
	var list workv1.ManifestWorkList
	if err := h.Reader.List(h.Ctx, &list, client.MatchingLabels{addonv1beta1.AddonLabelKey: addOn}); err != nil {
		return nil, false, fmt.Errorf("listing the manifestworks of add-on %q: %w", addOn, err)
	}
	return Pointers(list.Items), true, nil
}

// Config reads a config object through the config watches.
func (h CacheHub) Config(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error) {
	if h.Configs == nil {
		return nil, fmt.Errorf("config %s %s: not read here", gr.Resource+"."+gr.Group, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name})
	}
	return h.Configs(h.Ctx, gr, ref)
}
