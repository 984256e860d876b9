package conformance

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// hubScenario is one generated scheduling input; Seed and Index rebuild it
// with generateHub.
type hubScenario struct {
	Seed  uint64
	Index int
	hubCase
}

// The scheduled Placement is always ns1/place; the hub holds other
// Placements' decisions, one of them with the same name in another
// namespace (Balance counts it, Steady does not).
const (
	hubNamespace = "ns1"
	hubPlacement = "place"
)

var (
	hubNow       = time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	setNames     = []string{"global", "dev", "prod", "edge", "empty"}
	labelValues  = map[string][]string{"env": {"dev", "stg", "prod"}, "region": {"us", "eu", "ap"}, "tier": {"gold", "silver"}}
	labelKeys    = []string{"env", "region", "tier"}
	claimValues  = map[string][]string{"platform": {"AWS", "GCP", "Azure"}, "version": {"1.30", "1.31"}}
	claimKeys    = []string{"platform", "version"}
	taintKeys    = []string{clusterv1.ManagedClusterTaintUnavailable, clusterv1.ManagedClusterTaintUnreachable, "gpu", "maint"}
	taintEffects = []clusterv1.TaintEffect{clusterv1.TaintEffectNoSelect, clusterv1.TaintEffectNoSelectIfNew, clusterv1.TaintEffectPreferNoSelect}
	taintAges    = []time.Duration{0, 30 * time.Second, 5 * time.Minute, 10 * time.Minute, time.Hour, 48 * time.Hour}
	tolSeconds   = []int64{0, 60, 300, 600, 3600}
	cpus         = []string{"500m", "2", "4", "8", "16"}
	memories     = []string{"1000Mi", "4Gi", "8Gi", "16Gi"}
	scoreRes     = []string{"res-a", "res-b"}
	// edgeScores are scores the built-in prioritizers give (Balance's
	// 2*int64(100*(0.5-u)) for up to seven decisions, and its truncated
	// neighbours) and their distances to Steady's 100: with them, the sum
	// of an add-on score and built-in ones ties with another cluster's,
	// and truncation and tie-breaking decide the order.
	edgeScores = []int32{0, 18, 19, 29, 30, 32, 33, 34, 40, 42, 58, 60, 66, 67, 68, 70, 71, 81, 82, 100,
		-18, -19, -29, -30, -32, -33, -34, -40, -42, -58, -60, -66, -67, -68, -70, -71, -81, -82, -100}
	scoreNames = []string{"s1", "s2"}
	builtIns   = []string{"Balance", "Steady", "ResourceAllocatableCPU", "ResourceAllocatableMemory"}
	// perGroupValues are clustersPerDecisionGroup values for which OCM's float
	// ceiling and the exact one agree on up to 40 clusters; P1-P2, P6
	// draw the others.
	perGroupValues = []intstr.IntOrString{intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromInt32(3), intstr.FromInt32(5),
		intstr.FromString("25%"), intstr.FromString("50%"), intstr.FromString("100%")}
)

// generateHub builds scenario index of seed: a hub of 0-14 clusters (rarely
// 101-180, for PlacementDecisions of more than 100) with labels, claims,
// taints and resources; cluster sets of both selector types and the global
// set; bindings to existing and missing sets in several namespaces;
// AddOnPlacementScores, some expired; the Placement's own and other
// Placements' decisions; and a Placement drawing on all of OCM's scheduler.
func generateHub(seed uint64, index int) hubScenario {
	r := rand.New(rand.NewPCG(seed^0x5c4ed, uint64(index)))
	sc := hubScenario{Seed: seed, Index: index}
	sc.Now = hubNow
	n := r.IntN(15)
	if r.IntN(100) == 0 {
		n = 101 + r.IntN(80)
	}
	for i := range n {
		sc.Hub.Clusters = append(sc.Hub.Clusters, genCluster(r, i))
	}
	sc.Hub.ClusterSets = genSets(r)
	sc.Hub.Bindings = genBindings(r)
	sc.Hub.Scores = genScores(r, sc.Hub.Clusters)
	sc.Placement = genPlacement(r)
	sc.Hub.Decisions = genDecisions(r, sc.Hub.Clusters, sc.Placement)
	if r.IntN(150) == 0 {
		alignForP1(r, &sc)
	}
	return sc
}

// alignForP1 turns the scenario into one where OCM's floating-point
// percentage differs from the exact one (P1): 25 or 50 clusters, every
// one selected, and a clustersPerDecisionGroup whose product with the
// count is an integer that float64 overshoots.
func alignForP1(r *rand.Rand, sc *hubScenario) {
	n, pct := 25, "28%"
	if r.IntN(2) == 0 {
		n, pct = 50, pick(r, []string{"14%", "56%"})
	}
	sc.Hub.Clusters = sc.Hub.Clusters[:0]
	for i := range n {
		mc := genCluster(r, i)
		mc.Spec.Taints, mc.DeletionTimestamp, mc.Finalizers = nil, nil, nil
		sc.Hub.Clusters = append(sc.Hub.Clusters, mc)
	}
	sc.Hub.ClusterSets = append(sc.Hub.ClusterSets, &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: "all"},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{}}},
	})
	sc.Hub.Bindings = append(sc.Hub.Bindings, &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: hubNamespace, Name: "all"},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "all"},
	})
	spec := &sc.Placement.Spec
	spec.ClusterSets, spec.Predicates, spec.Tolerations, spec.NumberOfClusters = nil, nil, nil, nil
	spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromString(pct)
}

// genCluster draws a cluster; its name starts with random letters so that
// name order is not creation order.
func genCluster(r *rand.Rand, i int) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{
		Name:   string([]byte{byte('a' + r.IntN(6)), byte('a' + r.IntN(6))}) + strconv.Itoa(i),
		Labels: map[string]string{},
	}}
	for _, k := range labelKeys {
		if r.IntN(4) > 0 {
			mc.Labels[k] = pick(r, labelValues[k])
		}
	}
	if r.IntN(3) > 0 { // exclusive set membership; "empty" never has members
		mc.Labels[clusterv1beta2.ClusterSetLabel] = pick(r, []string{"dev", "prod", "edge", "ghost"})
	}
	for _, k := range claimKeys {
		if r.IntN(3) > 0 {
			mc.Status.ClusterClaims = append(mc.Status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: k, Value: pick(r, claimValues[k])})
		}
	}
	for range []int{0, 0, 0, 0, 1, 1, 1, 2}[r.IntN(8)] {
		mc.Spec.Taints = append(mc.Spec.Taints, genTaint(r))
	}
	mc.Status.Allocatable, mc.Status.Capacity = genResources(r)
	if r.IntN(40) == 0 {
		ts := metav1.NewTime(hubNow.Add(-time.Minute))
		mc.DeletionTimestamp, mc.Finalizers = &ts, []string{"cluster.open-cluster-management.io/api-resource-cleanup"}
	}
	return mc
}

func genTaint(r *rand.Rand) clusterv1.Taint {
	t := clusterv1.Taint{Key: pick(r, taintKeys), Effect: pick(r, taintEffects)}
	if r.IntN(2) == 0 { // OCM's own taints are the common ones
		t.Key, t.Effect = pick(r, taintKeys[:2]), clusterv1.TaintEffectNoSelect
	}
	if r.IntN(3) == 0 {
		t.Value = pick(r, []string{"true", "a"})
	}
	if r.IntN(8) > 0 { // else never set: the zero time
		t.TimeAdded = metav1.NewTime(hubNow.Add(-pick(r, taintAges)))
	}
	return t
}

// genResources draws allocatable and capacity, sometimes missing one or
// the other (the resource prioritizers skip such a cluster).
func genResources(r *rand.Rand) (alloc, capacity clusterv1.ResourceList) {
	alloc, capacity = clusterv1.ResourceList{}, clusterv1.ResourceList{}
	for _, res := range []struct {
		name   clusterv1.ResourceName
		values []string
	}{{clusterv1.ResourceCPU, cpus}, {clusterv1.ResourceMemory, memories}} {
		if r.IntN(8) > 0 {
			alloc[res.name] = resource.MustParse(pick(r, res.values))
		}
		if r.IntN(8) > 0 {
			capacity[res.name] = resource.MustParse(pick(r, res.values))
		}
	}
	return alloc, capacity
}

// genSets draws some of the set names: global selects every cluster;
// dev and prod are exclusive-label sets (the selector type spelled or
// left empty); edge is a label-selector set; empty has no member.
func genSets(r *rand.Rand) []*clusterv1beta2.ManagedClusterSet {
	var out []*clusterv1beta2.ManagedClusterSet
	for _, name := range setNames {
		if r.IntN(4) == 0 && (name != "global" || r.IntN(3) == 0) {
			continue
		}
		s := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
		switch name {
		case "global":
			s.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{}}
		case "edge":
			s.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: genLabelSelector(r)}
			if r.IntN(15) == 0 { // OCM: a nil selector selects nothing
				s.Spec.ClusterSelector.LabelSelector = nil
			}
		case "empty":
			if r.IntN(2) == 0 {
				s.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "none"}}}
			}
		default:
			if r.IntN(2) == 0 {
				s.Spec.ClusterSelector.SelectorType = clusterv1beta2.ExclusiveClusterSetLabel
			}
		}
		out = append(out, s)
	}
	return out
}

// genBindings draws bindings in the Placement's namespace and others, to
// sets that exist or not, some not Bound (OCM's scheduler ignores the
// condition).
func genBindings(r *rand.Rand) []*clusterv1beta2.ManagedClusterSetBinding {
	var out []*clusterv1beta2.ManagedClusterSetBinding
	for _, ns := range []string{hubNamespace, "ns2"} {
		for _, set := range append(slices.Clone(setNames), "ghost") {
			if r.IntN(5) < 3 && (ns != hubNamespace || set != "global" || r.IntN(2) == 0) {
				continue
			}
			b := &clusterv1beta2.ManagedClusterSetBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: set},
				Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
			}
			switch r.IntN(3) {
			case 0:
				b.Status.Conditions = []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionTrue, Reason: "Bound"}}
			case 1:
				b.Status.Conditions = []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionFalse, Reason: "ClusterSetNotFound"}}
			}
			out = append(out, b)
		}
	}
	return out
}

// genScores draws AddOnPlacementScores for some clusters (and one for a
// cluster that does not exist), valid, expired, expiring exactly now, or
// without validUntil.
func genScores(r *rand.Rand, clusters []*clusterv1.ManagedCluster) []*clusterv1alpha1.AddOnPlacementScore {
	var out []*clusterv1alpha1.AddOnPlacementScore
	names := []string{"nowhere"}
	for _, mc := range clusters {
		names = append(names, mc.Name)
	}
	for _, cluster := range names {
		for _, res := range scoreRes {
			if r.IntN(3) == 0 {
				continue
			}
			s := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: res}}
			for _, name := range scoreNames {
				if r.IntN(4) == 0 {
					continue
				}
				v := int32(r.IntN(201) - 100)
				if r.IntN(2) == 0 { // a value the built-ins give too: ties across prioritizers
					v = pick(r, edgeScores)
				}
				s.Status.Scores = append(s.Status.Scores, clusterv1alpha1.AddOnPlacementScoreItem{Name: name, Value: v})
			}
			switch p := r.IntN(10); {
			case p < 3:
				s.Status.ValidUntil = &metav1.Time{Time: hubNow.Add(time.Duration(1+r.IntN(120)) * time.Minute)}
			case p < 5:
				s.Status.ValidUntil = &metav1.Time{Time: hubNow.Add(-time.Duration(1+r.IntN(120)) * time.Minute)}
			case p < 6:
				s.Status.ValidUntil = &metav1.Time{Time: hubNow}
			}
			out = append(out, s)
		}
	}
	return out
}

// genDecisions draws the hub's PlacementDecisions: the Placement's own (as
// OCM would have written them, sometimes naming clusters that are gone),
// and up to five other Placements' in its namespace and others (one of
// them of the same name), so that Balance sees many ratios; rarely a
// cluster is listed twice.
func genDecisions(r *rand.Rand, clusters []*clusterv1.ManagedCluster, p *clusterv1beta1.Placement) []*clusterv1beta1.PlacementDecision {
	var names []string
	for _, mc := range clusters {
		names = append(names, mc.Name)
	}
	some := func() []clusterv1beta1.ClusterDecision {
		var ds []clusterv1beta1.ClusterDecision
		for _, n := range names {
			if r.IntN(3) == 0 {
				ds = append(ds, clusterv1beta1.ClusterDecision{ClusterName: n})
			}
		}
		if r.IntN(6) == 0 {
			ds = append(ds, clusterv1beta1.ClusterDecision{ClusterName: "gone"})
		}
		if len(ds) > 0 && r.IntN(10) == 0 { // a cluster listed twice counts twice for Balance
			ds = append(ds, ds[r.IntN(len(ds))])
		}
		return ds
	}
	var out []*clusterv1beta1.PlacementDecision
	if r.IntN(3) > 0 {
		for i := range 1 + r.IntN(2) {
			out = append(out, decision(p.Namespace, p.Name, i, some()))
		}
	}
	for _, other := range [][2]string{{hubNamespace, "other"}, {"ns2", hubPlacement}, {"ns2", "third"}, {hubNamespace, "fourth"}, {"ns3", "fifth"}} {
		if r.IntN(2) == 0 {
			out = append(out, decision(other[0], other[1], 0, some()))
		}
	}
	return out
}

// decision is the i-th PlacementDecision of a Placement, labelled as OCM
// labels it for group i.
func decision(ns, name string, i int, ds []clusterv1beta1.ClusterDecision) *clusterv1beta1.PlacementDecision {
	return &clusterv1beta1.PlacementDecision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-decision-" + strconv.Itoa(i+1), Labels: map[string]string{
			clusterv1beta1.PlacementLabel:          name,
			clusterv1beta1.DecisionGroupNameLabel:  "",
			clusterv1beta1.DecisionGroupIndexLabel: strconv.Itoa(i),
		}},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: ds},
	}
}

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }
