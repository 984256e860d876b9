package conformance

import (
	"testing"
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// taintCases are TestMatchWithClusterTaintToleration's cases
// (plugins/tainttoleration/taint_toleration_test.go), at its fake time.
func taintCases() []portedCase {
	from := "taint_toleration_test.go TestMatchWithClusterTaintToleration/"
	now := time.Date(2022, time.January, 1, 0, 0, 0, 0, time.UTC)
	const (
		noSelect = clusterv1.TaintEffectNoSelect
		ifNew    = clusterv1.TaintEffectNoSelectIfNew
		prefer   = clusterv1.TaintEffectPreferNoSelect
		equal    = clusterv1beta1.TolerationOpEqual
		exists   = clusterv1beta1.TolerationOpExists
	)
	tol := func(key, value string, op clusterv1beta1.TolerationOperator, effect clusterv1.TaintEffect) clusterv1beta1.Toleration {
		return clusterv1beta1.Toleration{Key: key, Value: value, Operator: op, Effect: effect}
	}
	taint := func(key, value string, effect clusterv1.TaintEffect) clusterOption {
		return tainted(key, value, effect, time.Time{})
	}
	c1 := func(key, value string, effect clusterv1.TaintEffect) []*clusterv1.ManagedCluster {
		return []*clusterv1.ManagedCluster{managedCluster("cluster1", taint(key, value, effect))}
	}
	tc := func(name string, tols []clusterv1beta1.Toleration, clusters []*clusterv1.ManagedCluster, decided []string, want ...string) portedCase {
		p := newPlacement("test", "test", tolerating(tols...))
		return portedCase{from: from + name, hc: pluginCase(now, p, clusters, decided...), selected: want}
	}
	none := []clusterv1beta1.Toleration(nil)
	one := func(t clusterv1beta1.Toleration) []clusterv1beta1.Toleration { return []clusterv1beta1.Toleration{t} }
	in := []string{"cluster1"}

	cases := []portedCase{
		tc("taint.Effect is NoSelect and tolerations is empty", none, c1("key1", "value1", noSelect), nil),
		tc("taint.Effect is NoSelect and tolerations.Operator is Equal, key/value matches", one(tol("key1", "value1", equal, "")), c1("key1", "value1", noSelect), nil, "cluster1"),
		tc("taint.Effect is NoSelect and tolerations.Operator is Equal, toleration has empty key", one(tol("", "value1", equal, "")), c1("key1", "value1", noSelect), nil),
		tc("taint.Effect is NoSelect and tolerations.Operator is Equal, toleration has empty value", one(tol("key1", "", equal, "")), c1("key1", "value1", noSelect), nil),
		tc("taint.Effect is NoSelect and tolerations.Operator is Equal, key/value doesn't match", one(tol("key1", "value1", equal, "")),
			[]*clusterv1.ManagedCluster{managedCluster("cluster1", taint("key1", "value2", noSelect)), managedCluster("cluster2", taint("key2", "value1", noSelect))}, nil),
		tc("taint.Effect is NoSelect and tolerations.Operator is Exist, key matches", one(tol("key1", "", exists, "")), c1("key1", "value1", noSelect), nil, "cluster1"),
		tc("taint.Effect is NoSelect and tolerations.Operator is Exist, toleration has empty key", one(tol("", "value1", exists, "")), c1("key1", "value1", noSelect), nil),
		tc("taint.Effect is NoSelect and tolerations.Operator is Exist, toleration has empty value", one(tol("key1", "", exists, "")), c1("key1", "value1", noSelect), nil, "cluster1"),
		tc("taint.Effect is NoSelect and tolerations.Operator is Exist, toleration key doesn't match", one(tol("key2", "", exists, "")), c1("key1", "value1", noSelect), nil),
		tc("taint.Effect is NoSelectIfNew and tolerations is empty, cluster is not in decision", none, c1("key1", "", ifNew), nil),
		tc("taint.Effect is NoSelectIfNew and tolerations is empty, cluster is in decision", none, c1("key1", "", ifNew), in, "cluster1"),
		tc("taint.Effect is NoSelectIfNew and tolerations matches, cluster is not in decision", one(tol("key1", "", exists, "")), c1("key1", "", ifNew), nil, "cluster1"),
		tc("taint.Effect is NoSelectIfNew and tolerations matches, cluster is in decision", one(tol("key1", "", exists, "")), c1("key1", "", ifNew), in, "cluster1"),
		tc("taint.Effect is NoSelectIfNew and tolerations doesn't match, cluster is not in decision", one(tol("key2", "", exists, "")), c1("key1", "", ifNew), nil),
		tc("taint.Effect is NoSelectIfNew and tolerations doesn't match, cluster is in decision", one(tol("key2", "", exists, "")), c1("key1", "", ifNew), in, "cluster1"),
		tc("taint.Effect is PreferNoSelect and tolerations is Empty", none, c1("key1", "", prefer), nil, "cluster1"),
		tc("taint.Effect is PreferNoSelect and tolerations matches", one(tol("key1", "", exists, "")), c1("key1", "", prefer), nil, "cluster1"),
		tc("taint.Effect is PreferNoSelect and tolerations doesn't match", one(tol("key2", "", exists, "")), c1("key1", "", prefer), nil, "cluster1"),
		tc("cluster has multiple taints and placement has multiple tolerations, all the taints are matched",
			[]clusterv1beta1.Toleration{tol("key1", "value1", equal, ""), tol("key2", "", exists, "")},
			[]*clusterv1.ManagedCluster{
				managedCluster("cluster1", taint("key1", "value1", noSelect), taint("key2", "", noSelect)),
				managedCluster("cluster2", taint("key1", "value1", noSelect), taint("key2", "", noSelect))}, nil, "cluster1", "cluster2"),
		tc("taint.Effect is NoSelect, key/value matches, toleration effect is empty", one(tol("key1", "value1", equal, "")), c1("key1", "value1", noSelect), nil, "cluster1"),
		tc("taint.Effect is NoSelect, key/value matches, toleration effect doesn't match", one(tol("key1", "value1", equal, ifNew)), c1("key1", "value1", noSelect), nil),
		tc("taint.Effect is NoSelect, key/value matches, toleration effect matches", one(tol("key1", "value1", equal, noSelect)), c1("key1", "value1", noSelect), nil, "cluster1"),
		tc("taint.Effect is NoSelectIfNew, key/value matches, toleration effect is empty", one(tol("key1", "value1", equal, "")), c1("key1", "value1", ifNew), nil, "cluster1"),
		tc("taint.Effect is NoSelectIfNew, key/value matches, toleration effect matches", one(tol("key1", "value1", equal, ifNew)), c1("key1", "value1", ifNew), nil, "cluster1"),
		tc("taint.Effect is NoSelectIfNew, key/value matches, toleration effect doesn't match", one(tol("key1", "value2", equal, ifNew)), c1("key1", "value1", ifNew), nil),
		tc("taint.Effect is NoSelectIfNew, cluster is in decision, toleration effect is empty", one(tol("key1", "value2", equal, "")), c1("key1", "value1", ifNew), in, "cluster1"),
		tc("taint.Effect is NoSelectIfNew, cluster is in decision, toleration effect matches", one(tol("key1", "value2", equal, ifNew)), c1("key1", "value1", ifNew), in, "cluster1"),
		tc("taint.Effect is NoSelectIfNew, cluster is in decision, toleration effect doesn't match", one(tol("key1", "value2", equal, noSelect)), c1("key1", "value1", ifNew), in, "cluster1"),
	}
	cases[2].misconfigured = "TaintToleration:If the key is empty, operator must be Exists."
	cases[6].misconfigured = "TaintToleration:If the operator is Exists, the value should be empty."
	return append(cases, tolerationSecondsCases(from, now)...)
}

// tolerationSecondsCases are the two cases of tolerationSeconds: taints
// added 8, 9 and 10 seconds ago, tolerated for 10 seconds.
func tolerationSecondsCases(from string, now time.Time) []portedCase {
	ten := int64(10)
	p := newPlacement("test", "test", tolerating(clusterv1beta1.Toleration{Key: "key1", Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: &ten}))
	clusters := func() []*clusterv1.ManagedCluster {
		return []*clusterv1.ManagedCluster{
			managedCluster("cluster1", tainted("key1", "value1", clusterv1.TaintEffectNoSelect, now.Add(-8*time.Second))),
			managedCluster("cluster2", tainted("key1", "value2", clusterv1.TaintEffectNoSelect, now.Add(-9*time.Second))),
			managedCluster("cluster3", tainted("key1", "value3", clusterv1.TaintEffectNoSelect, now.Add(-10*time.Second))),
		}
	}
	first := portedCase{from: from + "tanits match tolerations by toleration.TolerationSeconds",
		hc: pluginCase(now, p, clusters()), selected: []string{"cluster1", "cluster2"}}
	// S2: OCM's first sync asks no requeue (the case expects none); ours
	// says at once that cluster2's toleration expires in a second.
	first.divergence = "S2"
	first.ours = func(t *testing.T, hc hubCase, ours scheduleOutcome, _ placement.Result) {
		c := first
		c.recheck = time.Second
		checkPorted(t, "ours", c, hc, ours)
	}
	return []portedCase{first, {
		from: from + "placement requeue placement when expire toleration.TolerationSeconds",
		hc:   pluginCase(now, p.DeepCopy(), clusters(), "cluster1", "cluster2"), selected: []string{"cluster1", "cluster2"},
		recheck: time.Second,
	}}
}
