package conformance

import (
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/placement"
)

// setHub is the hub of OCM's schedule_test.go: one exclusive-label set,
// named setName, bound to ns1, holding the clusters.
func setHub(clusters ...*clusterv1.ManagedCluster) placement.Hub {
	const setName = "clusterSets"
	for _, mc := range clusters {
		inSet(setName)(mc)
	}
	return placement.Hub{
		Clusters:    clusters,
		ClusterSets: []*clusterv1beta2.ManagedClusterSet{clusterSet(setName, clusterv1beta2.ManagedClusterSelector{})},
		Bindings:    []*clusterv1beta2.ManagedClusterSetBinding{binding("ns1", setName)},
	}
}

func withScores(h placement.Hub, s ...*clusterv1alpha1.AddOnPlacementScore) placement.Hub {
	h.Scores = append(h.Scores, s...)
	return h
}

func withDecisions(h placement.Hub, d ...*clusterv1beta1.PlacementDecision) placement.Hub {
	h.Decisions = append(h.Decisions, d...)
	return h
}

// otherDecision is a PlacementDecision without the placement label, as
// OCM's schedule_test.go makes the decisions of "others".
func otherDecision(name string, clusters ...string) *clusterv1beta1.PlacementDecision {
	pd := decisionsOf("ns1", "", name, clusters...)
	pd.Labels = nil
	return pd
}

// scheduleTestCases are TestSchedule's cases
// (pkg/placement/controllers/scheduling/schedule_test.go): filters,
// prioritizers and numberOfClusters on one bound set.
func scheduleTestCases() []portedCase {
	from := "schedule_test.go TestSchedule/"
	p := func(opts ...placementOption) *clusterv1beta1.Placement {
		return newPlacement("ns1", "placement1", opts...)
	}
	hc := func(pl *clusterv1beta1.Placement, h placement.Hub) hubCase {
		return hubCase{Now: hubNow, Placement: pl, Hub: h}
	}
	c := func(name string, opts ...clusterOption) *clusterv1.ManagedCluster {
		return managedCluster(name, opts...)
	}
	memory := func(alloc string) clusterOption { return resources(clusterv1.ResourceMemory, alloc, "100") }
	demo := func() []*clusterv1alpha1.AddOnPlacementScore {
		return []*clusterv1alpha1.AddOnPlacementScore{placementScore("cluster1", "demo", nil, "demo", "30"),
			placementScore("cluster2", "demo", nil, "demo", "40"), placementScore("cluster3", "demo", nil, "demo", "50")}
	}
	own := func(clusters ...string) *clusterv1beta1.PlacementDecision {
		return decisionsOf("ns1", "placement1", "placement1-decision-1", clusters...)
	}
	key1 := tainted("key1", "value1", clusterv1.TaintEffectNoSelect, time.Time{})
	return []portedCase{
		{from: from + "new placement satisfied", hc: hc(p(), setHub(c("cluster1"))),
			selected: []string{"cluster1"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "new placement unsatisfied", hc: hc(p(numberOfClusters(3)), setHub(c("cluster1"))),
			selected: []string{"cluster1"}, satisfied: "NotAllDecisionsScheduled"},
		{from: from + "new placement misconfigured", hc: hc(p(numberOfClusters(3), tolerating(clusterv1beta1.Toleration{
			Value: "value1", Operator: clusterv1beta1.TolerationOpEqual})), setHub(c("cluster1"))),
			misconfigured: "TaintToleration:If the key is empty, operator must be Exists.", satisfied: "NoManagedClusterMatched"},
		{from: from + "placement with all decisions scheduled", hc: hc(p(numberOfClusters(2)),
			withDecisions(setHub(c("cluster1"), c("cluster2"), c("cluster3")), own("cluster1", "cluster2"))),
			selected: []string{"cluster1", "cluster2"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "placement with empty Prioritizer Policy", hc: hc(p(prioritizerMode("")), setHub(c("cluster1"))),
			selected: []string{"cluster1"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "placement with taint and toleration", hc: hc(p(numberOfClusters(3), tolerating(clusterv1beta1.Toleration{
			Key: "key1", Value: "value1", Operator: clusterv1beta1.TolerationOpEqual})),
			withScores(setHub(c("cluster1", key1), c("cluster2", tainted("key2", "value2", clusterv1.TaintEffectNoSelect, time.Time{})), c("cluster3")), demo()...)),
			selected: []string{"cluster1", "cluster3"}, satisfied: "NotAllDecisionsScheduled"},
		{from: from + "placement with additive Prioritizer Policy", hc: hc(p(numberOfClusters(2), prioritizerMode(clusterv1beta1.PrioritizerPolicyModeAdditive),
			builtIn("Balance", 3), builtIn("ResourceAllocatableMemory", 1), addOnScore("demo", "demo", 1)),
			withScores(setHub(c("cluster1", memory("100")), c("cluster2", memory("50")), c("cluster3", memory("0"))), demo()...)),
			selected: []string{"cluster1", "cluster2"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "placement with exact Prioritizer Policy", hc: hc(p(numberOfClusters(2), prioritizerMode(clusterv1beta1.PrioritizerPolicyModeExact),
			builtIn("Balance", 3), builtIn("ResourceAllocatableMemory", 1)),
			setHub(c("cluster1", memory("100")), c("cluster2", memory("50")), c("cluster3", memory("0")))),
			selected: []string{"cluster1", "cluster2"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "placement with part of decisions scheduled", hc: hc(p(numberOfClusters(4)),
			withDecisions(setHub(c("cluster1"), c("cluster2")), own("cluster1"))),
			selected: []string{"cluster1", "cluster2"}, satisfied: "NotAllDecisionsScheduled"},
		{from: from + "schedule to cluster with least decisions", hc: hc(p(numberOfClusters(1)),
			withDecisions(setHub(c("cluster1"), c("cluster2"), c("cluster3")), otherDecision("others-decision-1", "cluster1", "cluster2"))),
			selected: []string{"cluster3"}, satisfied: "AllDecisionsScheduled"},
		{from: from + "do not schedule to other cluster even with least decisions", hc: hc(p(numberOfClusters(1)),
			withDecisions(setHub(c("cluster1"), c("cluster2"), c("cluster3")), otherDecision("others-decision-1", "cluster2", "cluster3"),
				otherDecision("others-decision-2", "cluster1", "cluster2"), own("cluster3"))),
			selected: []string{"cluster3"}, satisfied: "AllDecisionsScheduled"},
	}
}
