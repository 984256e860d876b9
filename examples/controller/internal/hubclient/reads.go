package hubclient

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/placement"
)

// MCANameIndex is the cache index of ManagedClusterAddOns by name.
const MCANameIndex = "rolloutkit.metadata.name"

// ApprovalAddOnIndex is the cache index of RolloutApprovals by
// spec.addOn.
const ApprovalAddOnIndex = "rolloutkit.spec.addOn"

// ServesRollouts tells whether the hub serves rolloutkit.io's
// AddOnRollouts and RolloutApprovals.
func ServesRollouts(mapper meta.RESTMapper) (bool, error) {
	for _, kind := range []string{"AddOnRollout", "RolloutApproval"} {
		_, err := mapper.RESTMapping(schema.GroupKind{Group: v1alpha1.Group, Kind: kind}, v1alpha1.Version)
		switch {
		case meta.IsNoMatchError(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("finding the rolloutkit.io API: %w", err)
		}
	}
	return true, nil
}

// ReadPlacementHub reads from c everything OCM's scheduler reads:
// ManagedClusters, ManagedClusterSets, ManagedClusterSetBindings,
// AddOnPlacementScores and PlacementDecisions, of every namespace. From
// the manager's cache the objects are the cache's own, not copies (a hub
// has several per cluster, and every Placement reads them all): nothing
// may modify them, and ScheduleHub modifies nothing it is given.
func ReadPlacementHub(ctx context.Context, c client.Reader) (placement.Hub, error) {
	var (
		mcs      clusterv1.ManagedClusterList
		sets     clusterv1beta2.ManagedClusterSetList
		bindings clusterv1beta2.ManagedClusterSetBindingList
		scores   clusterv1alpha1.AddOnPlacementScoreList
		ds       clusterv1beta1.PlacementDecisionList
	)
	for _, l := range []client.ObjectList{&mcs, &sets, &bindings, &scores, &ds} {
		if err := c.List(ctx, l, client.UnsafeDisableDeepCopy); err != nil {
			return placement.Hub{}, err
		}
	}
	return placement.Hub{
		Clusters:    Pointers(mcs.Items),
		ClusterSets: Pointers(sets.Items),
		Bindings:    Pointers(bindings.Items),
		Scores:      Pointers(scores.Items),
		Decisions:   Pointers(ds.Items),
	}, nil
}

// Pointers returns a pointer to each item of a list, in order.
func Pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// AddonWorks lists the ManifestWorks that can be the add-on's: those
// labelled with its name in its cluster's namespace and, for a hosted
// add-on, in its hosting cluster's. addon.Progressing picks its own among
// them.
func AddonWorks(ctx context.Context, c client.Reader, mca *addonv1beta1.ManagedClusterAddOn) ([]*workv1.ManifestWork, error) {
	namespaces := []string{mca.Namespace}
	if h := mca.Annotations[addonv1beta1.HostingClusterNameAnnotationKey]; h != "" && h != mca.Namespace {
		namespaces = append(namespaces, h)
	}
	var out []*workv1.ManifestWork
	for _, ns := range namespaces {
		var l workv1.ManifestWorkList
		if err := c.List(ctx, &l, client.InNamespace(ns), client.MatchingLabels{addonv1beta1.AddonLabelKey: mca.Name}); err != nil {
			return nil, fmt.Errorf("listing manifestworks in %q: %w", ns, err)
		}
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}
