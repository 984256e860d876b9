package conformance

// Builders for hand-made hubs, used by the scheduler's divergence tests and
// by the cases ported from OCM's own tests.

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/placement"
)

type clusterOption func(*clusterv1.ManagedCluster)

// managedCluster is a ManagedCluster named name, shaped by opts.
func managedCluster(name string, opts ...clusterOption) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, o := range opts {
		o(mc)
	}
	return mc
}

// labelled adds labels, given as key, value, key, value...
func labelled(kv ...string) clusterOption {
	return func(mc *clusterv1.ManagedCluster) {
		if mc.Labels == nil {
			mc.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			mc.Labels[kv[i]] = kv[i+1]
		}
	}
}

// inSet puts the cluster in the exclusive-label set named set.
func inSet(set string) clusterOption { return labelled(clusterv1beta2.ClusterSetLabel, set) }

// claimed adds status.clusterClaims, given as name, value, name, value...
func claimed(kv ...string) clusterOption {
	return func(mc *clusterv1.ManagedCluster) {
		for i := 0; i+1 < len(kv); i += 2 {
			mc.Status.ClusterClaims = append(mc.Status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: kv[i], Value: kv[i+1]})
		}
	}
}

// tainted adds a taint; a zero added leaves timeAdded unset.
func tainted(key, value string, effect clusterv1.TaintEffect, added time.Time) clusterOption {
	return func(mc *clusterv1.ManagedCluster) {
		t := clusterv1.Taint{Key: key, Value: value, Effect: effect}
		if !added.IsZero() {
			t.TimeAdded = metav1.NewTime(added)
		}
		mc.Spec.Taints = append(mc.Spec.Taints, t)
	}
}

// resources sets the allocatable and the capacity of one resource.
func resources(name clusterv1.ResourceName, allocatable, capacity string) clusterOption {
	return func(mc *clusterv1.ManagedCluster) {
		if mc.Status.Allocatable == nil {
			mc.Status.Allocatable, mc.Status.Capacity = clusterv1.ResourceList{}, clusterv1.ResourceList{}
		}
		mc.Status.Allocatable[name] = resource.MustParse(allocatable)
		mc.Status.Capacity[name] = resource.MustParse(capacity)
	}
}

// beingDeleted gives the cluster a deletionTimestamp (and the finalizer
// that keeps it).
func beingDeleted(at time.Time) clusterOption {
	return func(mc *clusterv1.ManagedCluster) {
		ts := metav1.NewTime(at)
		mc.DeletionTimestamp, mc.Finalizers = &ts, []string{"cluster.open-cluster-management.io/api-resource-cleanup"}
	}
}

// clusterSet is a ManagedClusterSet with the given selector (the zero
// selector: the exclusive label).
func clusterSet(name string, sel clusterv1beta2.ManagedClusterSelector) *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: sel}}
}

// labelSelectorSet is a set of the clusters sel matches.
func labelSelectorSet(name string, sel *metav1.LabelSelector) *clusterv1beta2.ManagedClusterSet {
	return clusterSet(name, clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: sel})
}

// binding binds set to namespace ns, named after the set as the API
// requires.
func binding(ns, set string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: set},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
	}
}

// placementScore is the AddOnPlacementScore res of cluster with scores
// given as name, value, name, value...; a nil validUntil never expires.
func placementScore(cluster, res string, validUntil *time.Time, kv ...string) *clusterv1alpha1.AddOnPlacementScore {
	s := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: res}}
	for i := 0; i+1 < len(kv); i += 2 {
		v, err := strconv.Atoi(kv[i+1])
		if err != nil {
			panic(err)
		}
		s.Status.Scores = append(s.Status.Scores, clusterv1alpha1.AddOnPlacementScoreItem{Name: kv[i], Value: int32(v)})
	}
	if validUntil != nil {
		s.Status.ValidUntil = &metav1.Time{Time: *validUntil}
	}
	return s
}

// decisionsOf is a PlacementDecision of Placement ns/owner named name,
// listing clusters.
func decisionsOf(ns, owner, name string, clusters ...string) *clusterv1beta1.PlacementDecision {
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{clusterv1beta1.PlacementLabel: owner}}}
	for _, c := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return pd
}

type placementOption func(*clusterv1beta1.Placement)

// newPlacement is the Placement ns/name, shaped by opts.
func newPlacement(ns, name string, opts ...placementOption) *clusterv1beta1.Placement {
	p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func numberOfClusters(n int32) placementOption {
	return func(p *clusterv1beta1.Placement) { p.Spec.NumberOfClusters = &n }
}

func tolerating(ts ...clusterv1beta1.Toleration) placementOption {
	return func(p *clusterv1beta1.Placement) { p.Spec.Tolerations = append(p.Spec.Tolerations, ts...) }
}

// predicate adds a predicate; nil selectors are left empty.
func predicate(labels *metav1.LabelSelector, claims []metav1.LabelSelectorRequirement, cel ...string) placementOption {
	return func(p *clusterv1beta1.Placement) {
		var cs clusterv1beta1.ClusterSelector
		if labels != nil {
			cs.LabelSelector = *labels
		}
		cs.ClaimSelector.MatchExpressions = claims
		cs.CelSelector.CelExpressions = cel
		p.Spec.Predicates = append(p.Spec.Predicates, clusterv1beta1.ClusterPredicate{RequiredClusterSelector: cs})
	}
}

func prioritizerMode(m clusterv1beta1.PrioritizerPolicyModeType) placementOption {
	return func(p *clusterv1beta1.Placement) { p.Spec.PrioritizerPolicy.Mode = m }
}

// builtIn weighs a built-in prioritizer.
func builtIn(name string, weight int32) placementOption {
	return func(p *clusterv1beta1.Placement) {
		p.Spec.PrioritizerPolicy.Configurations = append(p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
			ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}, Weight: weight})
	}
}

// addOnScore weighs the score scoreName of the AddOnPlacementScores named
// res.
func addOnScore(res, scoreName string, weight int32) placementOption {
	return func(p *clusterv1beta1.Placement) {
		p.Spec.PrioritizerPolicy.Configurations = append(p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
			ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn,
				AddOn: &clusterv1beta1.AddOnScore{ResourceName: res, ScoreName: scoreName}}, Weight: weight})
	}
}

func clusterSets(names ...string) placementOption {
	return func(p *clusterv1beta1.Placement) { p.Spec.ClusterSets = names }
}

func groupStrategy(gs clusterv1beta1.GroupStrategy) placementOption {
	return func(p *clusterv1beta1.Placement) { p.Spec.DecisionStrategy.GroupStrategy = gs }
}

// everySetHub is a hub where every cluster is a candidate of Placements
// in ns: the global set, bound to ns.
func everySetHub(ns string, clusters ...*clusterv1.ManagedCluster) placement.Hub {
	return placement.Hub{
		Clusters:    clusters,
		ClusterSets: []*clusterv1beta2.ManagedClusterSet{labelSelectorSet("global", &metav1.LabelSelector{})},
		Bindings:    []*clusterv1beta2.ManagedClusterSetBinding{binding(ns, "global")},
	}
}

// matchLabels is a label selector of exactly these labels.
func matchLabels(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}
