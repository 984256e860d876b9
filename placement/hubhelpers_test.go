package placement_test

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/placement"
)

// exclusiveSet is a ManagedClusterSet that takes the clusters labelled
// with its name.
func exclusiveSet(name string) *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// selectorSet is a LabelSelector ManagedClusterSet; a nil selector selects
// nothing, an empty one everything.
func selectorSet(name string, sel *metav1.LabelSelector) *clusterv1beta2.ManagedClusterSet {
	s := exclusiveSet(name)
	s.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: sel}
	return s
}

// binding binds set to namespace.
func binding(namespace, set string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: set},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
	}
}

// globalHub is a hub with the global set bound to namespace ns.
func globalHub(clusters ...*clusterv1.ManagedCluster) placement.Hub {
	return placement.Hub{
		Clusters:    clusters,
		ClusterSets: []*clusterv1beta2.ManagedClusterSet{selectorSet("global", &metav1.LabelSelector{})},
		Bindings:    []*clusterv1beta2.ManagedClusterSetBinding{binding("ns", "global")},
	}
}

// taint is a taint added at added.
func taint(key, value string, effect clusterv1.TaintEffect, added time.Time) clusterv1.Taint {
	return clusterv1.Taint{Key: key, Value: value, Effect: effect, TimeAdded: metav1.NewTime(added)}
}

// tainted returns c with taints added.
func tainted(c *clusterv1.ManagedCluster, taints ...clusterv1.Taint) *clusterv1.ManagedCluster {
	c.Spec.Taints = append(c.Spec.Taints, taints...)
	return c
}

// toleration builds a toleration; seconds < 0 means no tolerationSeconds.
func toleration(key string, op clusterv1beta1.TolerationOperator, value string, effect clusterv1.TaintEffect, seconds int64) clusterv1beta1.Toleration {
	t := clusterv1beta1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
	if seconds >= 0 {
		t.TolerationSeconds = ptr.To(seconds)
	}
	return t
}

// decision is a PlacementDecision of placement ns/owner holding clusters.
func placementDecision(ns, owner string, clusters ...string) *clusterv1beta1.PlacementDecision {
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: owner + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: owner},
	}}
	for _, c := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return pd
}

// score is the AddOnPlacementScore named resource for cluster, valid until
// until (zero: no validUntil), with "name=value" items.
func score(cluster, resourceName string, until time.Time, items ...clusterv1alpha1.AddOnPlacementScoreItem) *clusterv1alpha1.AddOnPlacementScore {
	s := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: resourceName}}
	if !until.IsZero() {
		s.Status.ValidUntil = ptr.To(metav1.NewTime(until))
	}
	s.Status.Scores = items
	return s
}

func item(name string, value int32) clusterv1alpha1.AddOnPlacementScoreItem {
	return clusterv1alpha1.AddOnPlacementScoreItem{Name: name, Value: value}
}

// withResources sets c's allocatable and capacity of cpu and memory; an
// empty string leaves one out.
func withResources(c *clusterv1.ManagedCluster, allocCPU, capCPU, allocMem, capMem string) *clusterv1.ManagedCluster {
	set := func(list *clusterv1.ResourceList, name clusterv1.ResourceName, q string) {
		if q == "" {
			return
		}
		if *list == nil {
			*list = clusterv1.ResourceList{}
		}
		(*list)[name] = resource.MustParse(q)
	}
	set(&c.Status.Allocatable, clusterv1.ResourceCPU, allocCPU)
	set(&c.Status.Capacity, clusterv1.ResourceCPU, capCPU)
	set(&c.Status.Allocatable, clusterv1.ResourceMemory, allocMem)
	set(&c.Status.Capacity, clusterv1.ResourceMemory, capMem)
	return c
}

// builtInConfig and addOnConfig are prioritizer configurations.
func builtInConfig(name string, weight int32) clusterv1beta1.PrioritizerConfig {
	return clusterv1beta1.PrioritizerConfig{Weight: weight, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
		Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name,
	}}
}

func addOnConfig(resourceName, scoreName string, weight int32) clusterv1beta1.PrioritizerConfig {
	return clusterv1beta1.PrioritizerConfig{Weight: weight, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
		Type: clusterv1beta1.ScoreCoordinateTypeAddOn, AddOn: &clusterv1beta1.AddOnScore{ResourceName: resourceName, ScoreName: scoreName},
	}}
}
