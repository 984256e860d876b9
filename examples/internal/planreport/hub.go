package planreport

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Hub is what the planner reads from a hub: the objects of one
// `kubectl get -o yaml` or of one live read. The order of each list does not
// matter, and nil entries are skipped. The zero Hub is an empty hub.
type Hub struct {
	// Clusters are the ManagedClusters, against which a Placement without
	// PlacementDecisions is scheduled.
	Clusters []*clusterv1.ManagedCluster
	// ManagedClusterSets are the cluster sets. When the hub holds no set
	// and no binding at all, it was most likely listed without them, and a
	// Placement is scheduled with every cluster a candidate, with a
	// warning that says so.
	ManagedClusterSets []*clusterv1beta2.ManagedClusterSet
	// ManagedClusterSetBindings are the bindings of every namespace; those
	// in a Placement's namespace say which sets it selects from.
	ManagedClusterSetBindings []*clusterv1beta2.ManagedClusterSetBinding
	// AddOnPlacementScores are the scores of every cluster (each in its
	// cluster's namespace), for the Placements' addOn prioritizers.
	AddOnPlacementScores []*clusterv1alpha1.AddOnPlacementScore
	// Placements are the Placements the add-ons' install strategies name.
	Placements []*clusterv1beta1.Placement
	// Decisions are the PlacementDecisions; a placement's are found as OCM
	// finds them, by the placement label in the placement's namespace. The
	// scheduler reads all of them: those of other placements count for the
	// Balance prioritizer.
	Decisions []*clusterv1beta1.PlacementDecision
	// ClusterManagementAddOns are the add-ons that can be planned.
	ClusterManagementAddOns []*addonv1beta1.ClusterManagementAddOn
	// ManagedClusterAddOns are the add-ons on the clusters, each in its
	// cluster's namespace.
	ManagedClusterAddOns []*addonv1beta1.ManagedClusterAddOn
	// Configs are objects of any other kind. An add-on config found here
	// (such as a ManagedProxyConfiguration) is hashed with hash.Spec; one
	// not found here takes the desired spec hash recorded in its
	// ClusterManagementAddOn's status.
	Configs []*unstructured.Unstructured
	// AddOnRollouts are the operator's controls: the one named after an
	// add-on holds its rollout under its gates (addonrollout.PlanControlled). An
	// add-on without one is planned as OCM's add-on manager would plan it.
	AddOnRollouts []*v1alpha1.AddOnRollout
	// RolloutApprovals are the approvals of every add-on; those of other
	// add-ons are ignored.
	RolloutApprovals []*v1alpha1.RolloutApproval
	// Works are the add-ons' ManifestWorks. With them (non-nil, even
	// empty), a new rendering the work gate holds is planned as a
	// rendering rollout, as the controller plans it (addonrollout.WorksOf,
	// Controls.Works); nil: configs only.
	Works []*workv1.ManifestWork
}

// AddonNames returns the names of the hub's ClusterManagementAddOns,
// sorted, for a caller that plans each of them.
func (h *Hub) AddonNames() []string {
	if h == nil {
		return nil
	}
	var names []string
	for _, c := range h.ClusterManagementAddOns {
		if c != nil {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return names
}

// sorted returns a copy of h with every list sorted by namespace and name
// and without nil entries, so that a plan does not depend on the order in
// which a hub was listed. The objects are shared, not copied.
func (h *Hub) sorted() *Hub {
	if h == nil {
		return &Hub{}
	}
	return &Hub{
		Clusters:                  sortedObjects(h.Clusters),
		ManagedClusterSets:        sortedObjects(h.ManagedClusterSets),
		ManagedClusterSetBindings: sortedObjects(h.ManagedClusterSetBindings),
		AddOnPlacementScores:      sortedObjects(h.AddOnPlacementScores),
		Placements:                sortedObjects(h.Placements),
		Decisions:                 sortedObjects(h.Decisions),
		ClusterManagementAddOns:   sortedObjects(h.ClusterManagementAddOns),
		ManagedClusterAddOns:      sortedObjects(h.ManagedClusterAddOns),
		Configs:                   sortedObjects(h.Configs),
		AddOnRollouts:             sortedObjects(h.AddOnRollouts),
		RolloutApprovals:          sortedObjects(h.RolloutApprovals),
	}
}

// schedulerHub is what OCM's scheduler reads of h. The objects are shared.
func (h *Hub) schedulerHub() placement.Hub {
	return placement.Hub{
		Clusters:    h.Clusters,
		ClusterSets: h.ManagedClusterSets,
		Bindings:    h.ManagedClusterSetBindings,
		Scores:      h.AddOnPlacementScores,
		Decisions:   h.Decisions,
	}
}

// sortedObjects returns the non-nil objects of s, stably sorted by
// namespace and name.
func sortedObjects[T interface {
	comparable
	metav1.Object
}](s []T) []T {
	var zero T
	out := make([]T, 0, len(s))
	for _, o := range s {
		if o != zero {
			out = append(out, o)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return out
}

// rolloutOf returns the AddOnRollout of the add-on name, or nil.
func (h *Hub) rolloutOf(name string) *v1alpha1.AddOnRollout {
	for _, r := range h.AddOnRollouts {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func (h *Hub) placement(ns, name string) *clusterv1beta1.Placement {
	for _, p := range h.Placements {
		if p.Namespace == ns && p.Name == name {
			return p
		}
	}
	return nil
}

// decisionsOf returns the PlacementDecisions of placement ns/name, found as
// OCM finds them: by the placement label, in the placement's namespace.
func (h *Hub) decisionsOf(ns, name string) []*clusterv1beta1.PlacementDecision {
	var ds []*clusterv1beta1.PlacementDecision
	for _, d := range h.Decisions {
		if d.Namespace == ns && d.Labels[clusterv1beta1.PlacementLabel] == name {
			ds = append(ds, d)
		}
	}
	return ds
}

// specHash finds a config's spec hash: the hash of the config object when
// the hub holds it, else the desired spec hash OCM's add-on manager
// recorded in the ClusterManagementAddOn's status.
func (h *Hub) specHash(cma *addonv1beta1.ClusterManagementAddOn) addon.SpecHashFunc {
	return func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (string, error) {
		for _, o := range h.Configs {
			gvk := o.GroupVersionKind()
			if gvk.Group == gr.Group && o.GetName() == ref.Name && o.GetNamespace() == ref.Namespace && isResourceOf(gr.Resource, gvk) {
				return hash.Spec(o)
			}
		}
		for _, ip := range cma.Status.InstallProgressions {
			for _, c := range ip.ConfigReferences {
				if c.ConfigGroupResource == gr && c.DesiredConfig != nil && c.DesiredConfig.ConfigReferent == ref {
					return c.DesiredConfig.SpecHash, nil
				}
			}
		}
		for _, c := range cma.Status.DefaultConfigReferences {
			if c.ConfigGroupResource == gr && c.DesiredConfig != nil && c.DesiredConfig.ConfigReferent == ref {
				return c.DesiredConfig.SpecHash, nil
			}
		}
		return "", fmt.Errorf("no spec hash: the input holds neither the config object nor a desiredConfig for it in clustermanagementaddon %q status", cma.Name)
	}
}

// isResourceOf tells whether resource is the plural of kind, as the API
// server names resources (managedproxyconfigurations for
// ManagedProxyConfiguration).
func isResourceOf(resource string, gvk schema.GroupVersionKind) bool {
	k := strings.ToLower(gvk.Kind)
	return resource == k+"s" || resource == k+"es" || (strings.HasSuffix(k, "y") && resource == k[:len(k)-1]+"ies")
}
