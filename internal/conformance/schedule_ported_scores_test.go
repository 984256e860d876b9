package conformance

import (
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// scoreCases are the prioritizers' tests (plugins/balance, steady,
// resource and addon): each case's expected scores become a ranking of its
// clusters, which a Placement weighing only that prioritizer (Exact mode)
// must follow for every numberOfClusters.
func scoreCases() []portedCase {
	var out []portedCase
	for _, group := range [][]portedCase{balanceCases(), steadyCases(), resourceCases(), addOnCases()} {
		out = append(out, group...)
	}
	return out
}

// threeClusters are cluster1, cluster2 and cluster3, shaped by opts[i].
func threeClusters(opts ...[]clusterOption) []*clusterv1.ManagedCluster {
	out := make([]*clusterv1.ManagedCluster, 3)
	for i, name := range []string{"cluster1", "cluster2", "cluster3"} {
		var o []clusterOption
		if i < len(opts) {
			o = opts[i]
		}
		out[i] = managedCluster(name, o...)
	}
	return out
}

// rankCase is a prioritizer's case: Placement test/test weighing only
// prio.
func rankCase(from string, now time.Time, prio placementOption, clusters []*clusterv1.ManagedCluster, scores map[string]int64) portedCase {
	p := newPlacement("test", "test", prioritizerMode(clusterv1beta1.PrioritizerPolicyModeExact), prio)
	return portedCase{from: from, hc: pluginCase(now, p, clusters), ranking: rankingOf(scores), satisfied: "AllDecisionsScheduled"}
}

func balanceCases() []portedCase {
	from := "balance_test.go TestScoreClusterWithSteady/" // sic: the balance test bears the steady test's name
	other := func(name, owner string, clusters ...string) *clusterv1beta1.PlacementDecision {
		return decisionsOf("test", owner, name, clusters...)
	}
	c := func(name string, scores map[string]int64, ds ...*clusterv1beta1.PlacementDecision) portedCase {
		pc := rankCase(from+name, hubNow, builtIn("Balance", 1), threeClusters(), scores)
		pc.hc.Hub.Decisions = ds
		return pc
	}
	return []portedCase{
		c("no decisions", map[string]int64{"cluster1": 100, "cluster2": 100, "cluster3": 100}),
		c("one decision belongs to current placement", map[string]int64{"cluster1": 100, "cluster2": 100, "cluster3": 100},
			other("test1", "test", "cluster1")),
		c("one decision not belong to current placement", map[string]int64{"cluster1": -100, "cluster2": 100, "cluster3": 100},
			other("test1", "test1", "cluster1")),
		c("multiple decisions", map[string]int64{"cluster1": -100, "cluster2": 0, "cluster3": 0},
			other("test1", "test1", "cluster1", "cluster2"), other("test2", "test2", "cluster1", "cluster3")),
	}
}

func steadyCases() []portedCase {
	from := "steady_test.go TestScoreClusterWithSteady/"
	c := func(name string, scores map[string]int64, ds ...*clusterv1beta1.PlacementDecision) portedCase {
		pc := rankCase(from+name, hubNow, builtIn("Steady", 1), threeClusters(), scores)
		pc.hc.Hub.Decisions = ds
		return pc
	}
	return []portedCase{
		c("no decisions", map[string]int64{"cluster1": 0, "cluster2": 0, "cluster3": 0}),
		c("one decisions", map[string]int64{"cluster1": 100, "cluster2": 0, "cluster3": 0}, decisionsOf("test", "test", "test1", "cluster1")),
		c("one decisions (two PlacementDecisions)", map[string]int64{"cluster1": 100, "cluster2": 0, "cluster3": 100},
			decisionsOf("test", "test", "test1", "cluster1"), decisionsOf("test", "test", "test2", "cluster3")),
	}
}

func resourceCases() []portedCase {
	from := "resource_test.go TestScoreClusterWithResource/"
	var out []portedCase
	for _, r := range []struct {
		name     string
		resource clusterv1.ResourceName
		capacity string
		alloc    [3]string // empty: no resources at all
		scores   map[string]int64
	}{
		{"scores of ResourceAllocatableMemory", clusterv1.ResourceMemory, "100", [3]string{"20", "60", "100"}, map[string]int64{"cluster1": -100, "cluster2": 0, "cluster3": 100}},
		{"scores of ResourceAllocatableMemory with same resource value", clusterv1.ResourceMemory, "100", [3]string{"50", "50", "50"}, map[string]int64{"cluster1": 100, "cluster2": 100, "cluster3": 100}},
		{"scores of ResourceAllocatableMemory with zero resource value", clusterv1.ResourceMemory, "100", [3]string{"0", "0", "0"}, map[string]int64{"cluster1": 100, "cluster2": 100, "cluster3": 100}},
		{"scores of ResourceAllocatableMemory with no cluster resource", clusterv1.ResourceMemory, "", [3]string{}, map[string]int64{"cluster1": 0, "cluster2": 0, "cluster3": 0}},
		{"scores of ResourceAllocatableCPU", clusterv1.ResourceCPU, "10", [3]string{"10", "6", "2"}, map[string]int64{"cluster1": 100, "cluster2": 0, "cluster3": -100}},
		{"scores of ResourceAllocatableCPU with same resource value", clusterv1.ResourceCPU, "10", [3]string{"5", "5", "5"}, map[string]int64{"cluster1": 100, "cluster2": 100, "cluster3": 100}},
		{"scores of ResourceAllocatableCPU with zero resource value", clusterv1.ResourceCPU, "10", [3]string{"0", "0", "0"}, map[string]int64{"cluster1": 100, "cluster2": 100, "cluster3": 100}},
		{"scores of ResourceAllocatableCPU with no cluster resource", clusterv1.ResourceCPU, "", [3]string{}, map[string]int64{"cluster1": 0, "cluster2": 0, "cluster3": 0}},
	} {
		var opts [][]clusterOption
		for _, a := range r.alloc {
			if a != "" {
				opts = append(opts, []clusterOption{resources(r.resource, a, r.capacity)})
			}
		}
		name := "ResourceAllocatableCPU"
		if r.resource == clusterv1.ResourceMemory {
			name = "ResourceAllocatableMemory"
		}
		// "no cluster resource" expects no score at all: a total of 0 each.
		out = append(out, rankCase(from+r.name, hubNow, builtIn(name, 1), threeClusters(opts...), r.scores))
	}
	return out
}

func addOnCases() []portedCase {
	from := "addon_test.go TestScoreClusterWithAddOn/"
	now := time.Date(2022, time.January, 1, 0, 0, 0, 0, time.UTC)
	expired := now.Add(-30 * time.Second)
	c := func(name string, scores map[string]int64, s ...*clusterv1alpha1.AddOnPlacementScore) portedCase {
		pc := rankCase(from+name, now, addOnScore("test", "score1", 1), threeClusters(), scores)
		pc.hc.Hub.Scores = s
		return pc
	}
	return []portedCase{
		c("no addon scores", map[string]int64{"cluster1": 0, "cluster2": 0, "cluster3": 0}),
		c("part of addon scores generated", map[string]int64{"cluster1": 30, "cluster2": 0, "cluster3": 0},
			placementScore("cluster1", "test", nil, "score1", "30")),
		c("part of addon scores expired", map[string]int64{"cluster1": 0, "cluster2": 40, "cluster3": 50},
			placementScore("cluster1", "test", &expired, "score1", "30"), placementScore("cluster2", "test", nil, "score1", "40"),
			placementScore("cluster3", "test", nil, "score1", "50")),
		c("all the addon scores generated", map[string]int64{"cluster1": 30, "cluster2": 40, "cluster3": 50},
			placementScore("cluster1", "test", nil, "score1", "30"), placementScore("cluster2", "test", nil, "score1", "40"),
			placementScore("cluster3", "test", nil, "score1", "50")),
	}
}
