package planreport

import (
	"cmp"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
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
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/placement"
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
	// (such as a ManagedProxyConfiguration) is hashed with hash.Spec; an
	// add-on whose config is not here is not planned for the placements
	// that use it (reason ConfigurationError), as the controller does not
	// plan on a config it cannot read.
	Configs []*unstructured.Unstructured
	// Resources name the resource of each config kind, as the hub's
	// discovery does; a kind not listed here is taken to be the lower-case
	// plural of its kind (meta.UnsafeGuessKindToResource), as for the
	// objects of a kubectl get.
	Resources map[schema.GroupVersionKind]schema.GroupResource
	// Unreadable says why config objects of a resource could not be read
	// (the hub does not serve it): its configs' plans fail with that
	// reason.
	Unreadable map[schema.GroupResource]error
	// ValidateQuery checks the verifications' PromQL queries
	// (hubplan.Planner.ValidateQuery); nil: only that they are not
	// empty.
	ValidateQuery hubplan.QueryValidator
	// AddOnRollouts are the operator's controls: the one named after an
	// add-on holds its rollout under its gates (hubplan.Planner.Plan). An
	// add-on without one is planned as OCM's add-on manager would plan it.
	AddOnRollouts []*v1alpha1.AddOnRollout
	// RolloutApprovals are the approvals of every add-on; those of other
	// add-ons are ignored.
	RolloutApprovals []*v1alpha1.RolloutApproval
	// Works are the add-ons' ManifestWorks. With them (non-nil, even
	// empty), a new rendering the work gate holds is planned as a
	// rendering rollout, as the controller plans it (hubplan.WorksOf,
	// Controls.Works); nil: configs only.
	Works []*workv1.ManifestWork
	// WorksPublished, with Works nil, plans what the works say as the
	// add-ons publish it (hubplan.WorksFromAddOns): for a reader who may
	// not read the works (a viewer), the plan is then the controller's.
	WorksPublished bool
	// Revisions are the ControllerRevisions of the add-ons' revision
	// histories (hubplan.HistoryOf), from the controller's namespace: with
	// them, an add-on's AddOnRollout's fastRollback and onFailure act as
	// the controller plans them. Nil: no history.
	Revisions []*appsv1.ControllerRevision
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
		Works:                     works(h.Works),
		WorksPublished:            h.WorksPublished,
		Revisions:                 sortedObjects(h.Revisions),
		Resources:                 h.Resources,
		Unreadable:                h.Unreadable,
		ValidateQuery:             h.ValidateQuery,
	}
}

// works is sortedObjects of ws, keeping nil (not read) apart from empty.
func works(ws []*workv1.ManifestWork) []*workv1.ManifestWork {
	if ws == nil {
		return nil
	}
	return sortedObjects(ws)
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

// reader is h as hubplan.ReadInputs reads a hub. h is sorted.
type reader struct{ h *Hub }

var _ hubplan.Hub = reader{}

// ClusterManagementAddOn returns the add-on name, or nil.
func (r reader) ClusterManagementAddOn(name string) (*addonv1beta1.ClusterManagementAddOn, error) {
	for _, cma := range r.h.ClusterManagementAddOns {
		if cma.Name == name {
			return cma, nil
		}
	}
	return nil, nil
}

// AddOnRollout returns the AddOnRollout of the add-on name, or nil.
func (r reader) AddOnRollout(name string) (*v1alpha1.AddOnRollout, error) {
	for _, r := range r.h.AddOnRollouts {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, nil
}

// RolloutApprovals returns the approvals of the add-on name.
func (r reader) RolloutApprovals(name string) ([]*v1alpha1.RolloutApproval, error) {
	var out []*v1alpha1.RolloutApproval
	for _, a := range r.h.RolloutApprovals {
		if a.Spec.AddOn == name {
			out = append(out, a)
		}
	}
	return out, nil
}

// Placement returns the Placement ns/name, or nil.
func (r reader) Placement(ns, name string) (*clusterv1beta1.Placement, error) {
	for _, p := range r.h.Placements {
		if p.Namespace == ns && p.Name == name {
			return p, nil
		}
	}
	return nil, nil
}

// PlacementDecisions returns the PlacementDecisions of placement ns/name,
// found as OCM finds them: by the placement label, in the placement's
// namespace.
func (r reader) PlacementDecisions(ns, name string) ([]*clusterv1beta1.PlacementDecision, error) {
	var ds []*clusterv1beta1.PlacementDecision
	for _, d := range r.h.Decisions {
		if d.Namespace == ns && d.Labels[clusterv1beta1.PlacementLabel] == name {
			ds = append(ds, d)
		}
	}
	return ds, nil
}

// ManagedClusterAddOns returns the add-ons named name.
func (r reader) ManagedClusterAddOns(name string) ([]*addonv1beta1.ManagedClusterAddOn, error) {
	var out []*addonv1beta1.ManagedClusterAddOn
	for _, m := range r.h.ManagedClusterAddOns {
		if m.Name == name {
			out = append(out, m)
		}
	}
	return out, nil
}

// ManifestWorks returns the works of the add-on name, and whether the hub
// holds works at all.
func (r reader) ManifestWorks(name string) ([]*workv1.ManifestWork, bool, error) {
	if r.h.Works == nil {
		return nil, false, nil
	}
	var out []*workv1.ManifestWork
	for _, w := range r.h.Works {
		if w.Labels[addonv1beta1.AddonLabelKey] == name {
			out = append(out, w)
		}
	}
	return out, true, nil
}

// Config returns the config object gr/ref names ; an
// error says why the hub holds none.
func (r reader) Config(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error) {
	want := schema.GroupResource{Group: gr.Group, Resource: gr.Resource}
	if err := r.h.Unreadable[want]; err != nil {
		return nil, err
	}
	for _, o := range r.h.Configs {
		if o.GetName() == ref.Name && o.GetNamespace() == ref.Namespace && r.resourceOf(o.GroupVersionKind()) == want {
			return o, nil
		}
	}
	// the controller's words for a config it cannot find (configWatches)
	return nil, fmt.Errorf("reading config: %w", apierrors.NewNotFound(want, ref.Name))
}

// resourceOf is the group and resource of objects of kind gvk.
func (r reader) resourceOf(gvk schema.GroupVersionKind) schema.GroupResource {
	if gr, ok := r.h.Resources[gvk]; ok {
		return gr
	}
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return plural.GroupResource()
}
