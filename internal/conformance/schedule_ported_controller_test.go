package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/placement"
)

// controllerCases are the cases of scheduling_controller_test.go about
// what the scheduler selects and writes: TestSchedulingController_sync
// (whose scheduler results are injected; here a hub yields them),
// TestGetValidManagedClusterSetBindings, TestGetValidManagedClusterSets,
// TestGetAvailableClusters and TestNewSatisfiedCondition. The sync cases
// about API writes alone ("placement status not changed") and
// TestBind/TestNewMisconfiguredCondition, which test helpers with no input
// of a hub, are not ported.
func controllerCases() []portedCase {
	var out []portedCase
	for _, group := range [][]portedCase{syncCases(), bindingCases(), availableClusterCases(), satisfiedCases()} {
		out = append(out, group...)
	}
	return out
}

// hubOf is a hub with the given sets, bound in ns1 to those named in
// bound, and clusters.
func hubOf(sets []*clusterv1beta2.ManagedClusterSet, bound []string, clusters ...*clusterv1.ManagedCluster) placement.Hub {
	h := placement.Hub{Clusters: clusters, ClusterSets: sets}
	for _, b := range bound {
		h.Bindings = append(h.Bindings, binding("ns1", b))
	}
	return h
}

func exclusive(names ...string) []*clusterv1beta2.ManagedClusterSet {
	var out []*clusterv1beta2.ManagedClusterSet
	for _, n := range names {
		out = append(out, clusterSet(n, clusterv1beta2.ManagedClusterSelector{}))
	}
	return out
}

func syncCases() []portedCase {
	from := "scheduling_controller_test.go TestSchedulingController_sync/"
	p := func(opts ...placementOption) *clusterv1beta1.Placement {
		return newPlacement("ns1", "placement1", opts...)
	}
	hc := func(pl *clusterv1beta1.Placement, h placement.Hub) hubCase {
		return hubCase{Now: hubNow, Placement: pl, Hub: h}
	}
	in1 := func(name string, opts ...clusterOption) *clusterv1.ManagedCluster {
		return managedCluster(name, append(opts, inSet("clusterset1"))...)
	}
	set1 := exclusive("clusterset1")
	cloud := func(v string) clusterOption { return labelled("cloud", v) }
	group := func(name string, index int32, clusters ...string) decisionGroupOutcome {
		return decisionGroupOutcome{Name: name, Index: index, Clusters: clusters}
	}
	canary := clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromInt32(1), DecisionGroups: []clusterv1beta1.DecisionGroup{{
		GroupName: "canary", ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: *matchLabels("cloud", "Azure")}}}}
	multiple := clusterv1beta1.GroupStrategy{DecisionGroups: []clusterv1beta1.DecisionGroup{
		{GroupName: "group1", ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: *matchLabels("cloud", "Amazon")}},
		{GroupName: "group2", ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: *matchLabels("cloud", "Azure")}}}}
	disabled := portedCase{from: from + "placement schedule controller is disabled", hc: hc(p(func(p *clusterv1beta1.Placement) {
		p.Annotations = map[string]string{clusterv1beta1.PlacementDisableAnnotation: "true"}
	}), hubOf(set1, []string{"clusterset1"}, in1("cluster1"))), untouched: true, divergence: "S6",
		ours: func(t *testing.T, _ hubCase, ours scheduleOutcome, _ placement.Result) {
			assert.Equal(t, []string{"cluster1"}, selectedOf(ours))
		}}
	return []portedCase{
		{from: from + "placement satisfied", hc: hc(p(), hubOf(set1, []string{"clusterset1"}, in1("cluster1"), in1("cluster2"), in1("cluster3"))),
			selected: []string{"cluster1", "cluster2", "cluster3"}, satisfied: "AllDecisionsScheduled",
			groups: []decisionGroupOutcome{group("", 0, "cluster1", "cluster2", "cluster3")}},
		{from: from + "placement unsatisfied", hc: hc(p(numberOfClusters(4)), hubOf(set1, []string{"clusterset1"}, in1("cluster1"), in1("cluster2"), in1("cluster3"))),
			selected: []string{"cluster1", "cluster2", "cluster3"}, satisfied: "NotAllDecisionsScheduled"},
		{from: from + "placement with canary group strategy", hc: hc(p(groupStrategy(canary)), hubOf(set1, []string{"clusterset1"},
			in1("cluster1", cloud("Amazon")), in1("cluster2", cloud("Amazon")), in1("cluster3", cloud("Azure")), in1("cluster4", cloud("Azure")))),
			selected: []string{"cluster1", "cluster2", "cluster3", "cluster4"}, satisfied: "AllDecisionsScheduled",
			groups: []decisionGroupOutcome{group("canary", 0, "cluster3"), group("canary", 1, "cluster4"), group("", 2, "cluster1"), group("", 3, "cluster2")}},
		{from: from + "placement with multiple group strategy", hc: hc(p(groupStrategy(multiple)), hubOf(set1, []string{"clusterset1"},
			in1("cluster1", cloud("Amazon")), in1("cluster2", cloud("Amazon")), in1("cluster3", cloud("Azure")))),
			selected: []string{"cluster1", "cluster2", "cluster3"}, satisfied: "AllDecisionsScheduled",
			groups: []decisionGroupOutcome{group("group1", 0, "cluster1", "cluster2"), group("group2", 1, "cluster3")}},
		{from: from + "placement with only cluster per decision group", hc: hc(p(groupStrategy(clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromString("25%")})),
			hubOf(set1, []string{"clusterset1"}, in1("cluster1"), in1("cluster2"), in1("cluster3"))),
			selected: []string{"cluster1", "cluster2", "cluster3"}, satisfied: "AllDecisionsScheduled",
			groups: []decisionGroupOutcome{group("", 0, "cluster1"), group("", 1, "cluster2"), group("", 2, "cluster3")}},
		{from: from + "placement missing managedclustersetbindings", hc: hc(p(), placement.Hub{}),
			satisfied: "NoManagedClusterSetBindings", groups: []decisionGroupOutcome{group("", 0)}},
		{from: from + "placement all managedclustersets empty", hc: hc(p(), hubOf(set1, []string{"clusterset1"})),
			satisfied: "AllManagedClusterSetsEmpty", groups: []decisionGroupOutcome{group("", 0)}},
		{from: from + "placement no cluster matches", hc: hc(p(predicate(matchLabels("cloud", "none"), nil)), hubOf(set1, []string{"clusterset1"}, in1("cluster1"))),
			satisfied: "NoManagedClusterMatched", groups: []decisionGroupOutcome{group("", 0)}},
		disabled,
	}
}

func bindingCases() []portedCase {
	p := newPlacement("ns1", "test")
	hc := func(pl *clusterv1beta1.Placement, h placement.Hub) hubCase {
		return hubCase{Now: hubNow, Placement: pl, Hub: h}
	}
	in := func(set string) *clusterv1.ManagedCluster { return managedCluster("in-"+set, inSet(set)) }
	bindings := "scheduling_controller_test.go TestGetValidManagedClusterSetBindings/"
	sets := "scheduling_controller_test.go TestGetValidManagedClusterSets/"
	return []portedCase{
		{from: bindings + "no bound clusterset", hc: hc(p, hubOf(exclusive("clusterset1"), nil, in("clusterset1"))), satisfied: "NoManagedClusterSetBindings"},
		{from: bindings + "invalid binding", hc: hc(p, hubOf(nil, []string{"clusterset1"}, in("clusterset1"))), satisfied: "NoManagedClusterSetBindings"},
		{from: bindings + "valid binding", hc: hc(p, hubOf(exclusive("clusterset1"), []string{"clusterset1"}, in("clusterset1"))),
			selected: []string{"in-clusterset1"}, satisfied: "AllDecisionsScheduled"},
		{from: sets + "no clusterset bindings", hc: hc(newPlacement("ns1", "test", clusterSets("clusterset1", "clusterset2")),
			hubOf(exclusive("clusterset2", "clusterset3"), nil, in("clusterset2"), in("clusterset3"))), satisfied: "NoManagedClusterSetBindings"},
		{from: sets + "no placement clusterset", hc: hc(p, hubOf(exclusive("clusterset1", "clusterset2"), []string{"clusterset1", "clusterset2"},
			in("clusterset1"), in("clusterset2"))), selected: []string{"in-clusterset1", "in-clusterset2"}, satisfied: "AllDecisionsScheduled"},
		{from: sets + "intersection of clusterset bindings and placement clusterset", hc: hc(newPlacement("ns1", "test", clusterSets("clusterset1", "clusterset2")),
			hubOf(exclusive("clusterset2", "clusterset3"), []string{"clusterset2", "clusterset3"}, in("clusterset2"), in("clusterset3"))),
			selected: []string{"in-clusterset2"}, satisfied: "AllDecisionsScheduled"},
	}
}

func availableClusterCases() []portedCase {
	from := "scheduling_controller_test.go TestGetAvailableClusters/"
	hc := func(h placement.Hub) hubCase {
		return hubCase{Now: hubNow, Placement: newPlacement("ns1", "test"), Hub: h}
	}
	c := managedCluster
	sel := func(s clusterv1beta2.ManagedClusterSelector) []*clusterv1beta2.ManagedClusterSet {
		return []*clusterv1beta2.ManagedClusterSet{clusterSet("clusterset1", s)}
	}
	labelSel := func(ls *metav1.LabelSelector) []*clusterv1beta2.ManagedClusterSet {
		return sel(clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: ls})
	}
	one := []string{"clusterset1"}
	return []portedCase{
		{from: from + "no clusterset", hc: hc(hubOf(exclusive("clusterset1"), nil)), satisfied: "NoManagedClusterSetBindings"},
		{from: from + "select clusters from clustersets", hc: hc(hubOf(exclusive("clusterset1", "clusterset2"), []string{"clusterset1", "clusterset2"},
			c("cluster1", inSet("clusterset1")), c("cluster2", inSet("clusterset2")))), selected: []string{"cluster1", "cluster2"}},
		{from: from + "exclude clusters with deletion timestamp", hc: hc(hubOf(exclusive("clusterset1", "clusterset2"), []string{"clusterset1", "clusterset2"},
			c("cluster1", inSet("clusterset1")), c("cluster2", inSet("clusterset2"), beingDeleted(hubNow)))), selected: []string{"cluster1"}},
		{from: from + "clusterset has no ClusterSelector", hc: hc(hubOf(exclusive("clusterset1"), one, c("cluster1", inSet("clusterset1")))), selected: []string{"cluster1"}},
		{from: from + "clusterset has default ClusterSelector", hc: hc(hubOf(sel(clusterv1beta2.ManagedClusterSelector{}), one, c("cluster1", inSet("clusterset1")))),
			selected: []string{"cluster1"}},
		{from: from + "clusterset has Legacy set label ClusterSelector", hc: hc(hubOf(sel(clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}),
			one, c("cluster1", inSet("clusterset1")))), selected: []string{"cluster1"}},
		{from: from + "clusterset has labelSelector type ClusterSelector", hc: hc(hubOf(labelSel(matchLabels("vendor", "openShift")), one,
			c("cluster1", inSet("clusterset1")), c("cluster2", labelled("vendor", "openShift")))), selected: []string{"cluster2"}},
		{from: from + "clusterset has labelSelector type ClusterSelector(select everything)", hc: hc(hubOf(labelSel(&metav1.LabelSelector{}), one,
			c("cluster1", inSet("clusterset1")), c("cluster2"))), selected: []string{"cluster1", "cluster2"}},
		// OCM's sync fails on the set and writes nothing; ours is an error.
		{from: from + "clusterset has invalid ClusterSelector", hc: hc(hubOf(sel(clusterv1beta2.ManagedClusterSelector{SelectorType: "errorType"}), one,
			c("cluster1", inSet("clusterset1")))), errs: true},
		{from: from + "clusterset is removed", hc: hc(hubOf(nil, one)), satisfied: "NoManagedClusterSetBindings"},
	}
}

// satisfiedCases are TestNewSatisfiedCondition's cases: one hub for each
// reason of PlacementSatisfied.
func satisfiedCases() []portedCase {
	from := "scheduling_controller_test.go TestNewSatisfiedCondition/"
	hc := func(p *clusterv1beta1.Placement, h placement.Hub) hubCase {
		return hubCase{Now: hubNow, Placement: p, Hub: h}
	}
	p := newPlacement("ns1", "test")
	member := managedCluster("cluster1", inSet("clusterset1"))
	set1 := exclusive("clusterset1")
	return []portedCase{
		{from: from + "NoManagedClusterSetBindings", hc: hc(newPlacement("ns1", "test", numberOfClusters(5)), hubOf(set1, nil, member)),
			satisfied: "NoManagedClusterSetBindings"},
		{from: from + "NoIntersection", hc: hc(newPlacement("ns1", "test", clusterSets("clusterset1")),
			hubOf(exclusive("clusterset2"), []string{"clusterset2"}, managedCluster("cluster2", inSet("clusterset2")))), satisfied: "NoIntersection"},
		{from: from + "AllManagedClusterSetsEmpty", hc: hc(p, hubOf(set1, []string{"clusterset1"})), satisfied: "AllManagedClusterSetsEmpty"},
		{from: from + "NoManagedClusterMatched", hc: hc(newPlacement("ns1", "test", predicate(matchLabels("cloud", "none"), nil)),
			hubOf(set1, []string{"clusterset1"}, member)), satisfied: "NoManagedClusterMatched"},
		{from: from + "AllDecisionsScheduled", hc: hc(p, hubOf(set1, []string{"clusterset1"}, member)),
			selected: []string{"cluster1"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "NotAllDecisionsScheduled", hc: hc(newPlacement("ns1", "test", numberOfClusters(2)), hubOf(set1, []string{"clusterset1"}, member)),
			selected: []string{"cluster1"}, satisfied: "NotAllDecisionsScheduled"},
	}
}
