package conformance

import (
	"math/rand/v2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// genPlacement draws the Placement ns1/place: cluster sets, predicates on
// labels and claims, tolerations, numberOfClusters, a prioritizer policy
// and a decision strategy. Rarely it draws what OCM reports as
// misconfigured (a bad selector or toleration, an unknown mode or
// prioritizer, a score coordinate without its source) and, for the
// documented divergences, a CEL selector or a clustersPerDecisionGroup
// where OCM's arithmetic or validation differs. Never spreadPolicy: OCM
// v1.2.0 ignores it (TestScheduleDivergence_SpreadPolicy).
func genPlacement(r *rand.Rand) *clusterv1beta1.Placement {
	p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: hubNamespace, Name: hubPlacement}}
	if r.IntN(4) == 0 {
		for _, s := range append(setNames, "ghost") {
			if r.IntN(2) == 0 {
				p.Spec.ClusterSets = append(p.Spec.ClusterSets, s)
			}
		}
	}
	if r.IntN(3) > 0 {
		for range 1 + r.IntN(2) {
			p.Spec.Predicates = append(p.Spec.Predicates, genPredicate(r))
		}
	}
	for range []int{0, 1, 1, 2}[r.IntN(4)] {
		p.Spec.Tolerations = append(p.Spec.Tolerations, genToleration(r))
	}
	if r.IntN(5) == 0 { // the usual one: ride out a short outage
		s := pick(r, []int64{300, 3600})
		p.Spec.Tolerations = append(p.Spec.Tolerations, clusterv1beta1.Toleration{
			Key: pick(r, taintKeys[:2]), Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: &s})
	}
	if r.IntN(2) == 0 {
		n := int32(r.IntN(9))
		p.Spec.NumberOfClusters = &n
	}
	p.Spec.PrioritizerPolicy = genPrioritizerPolicy(r)
	p.Spec.DecisionStrategy.GroupStrategy = genGroupStrategy(r)
	return p
}

func genPredicate(r *rand.Rand) clusterv1beta1.ClusterPredicate {
	var cs clusterv1beta1.ClusterSelector
	if r.IntN(4) > 0 {
		cs.LabelSelector = *genLabelSelector(r)
	}
	if r.IntN(3) == 0 {
		k := pick(r, claimKeys)
		cs.ClaimSelector.MatchExpressions = []metav1.LabelSelectorRequirement{genRequirement(r, k, claimValues[k])}
	}
	switch r.IntN(80) {
	case 0: // OCM: "values: Invalid value: ...: for 'in', 'notin' operators, values set can't be empty"
		cs.LabelSelector.MatchExpressions = append(cs.LabelSelector.MatchExpressions, metav1.LabelSelectorRequirement{Key: "env", Operator: metav1.LabelSelectorOpIn})
	case 1:
		cs.CelSelector.CelExpressions = []string{`managedCluster.metadata.labels["env"] == "dev"`}
	}
	return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: cs}
}

// genLabelSelector draws matchLabels or one matchExpressions requirement on
// a cluster label, or both, or neither (which matches everything).
func genLabelSelector(r *rand.Rand) *metav1.LabelSelector {
	ls := &metav1.LabelSelector{}
	if r.IntN(2) == 0 {
		k := pick(r, labelKeys)
		ls.MatchLabels = map[string]string{k: pick(r, labelValues[k])}
	}
	if r.IntN(2) == 0 {
		k := pick(r, labelKeys)
		ls.MatchExpressions = []metav1.LabelSelectorRequirement{genRequirement(r, k, labelValues[k])}
	}
	return ls
}

func genRequirement(r *rand.Rand, key string, values []string) metav1.LabelSelectorRequirement {
	req := metav1.LabelSelectorRequirement{Key: key}
	switch r.IntN(4) {
	case 0:
		req.Operator = metav1.LabelSelectorOpIn
	case 1:
		req.Operator = metav1.LabelSelectorOpNotIn
	case 2:
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
	default:
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpDoesNotExist}
	}
	for _, v := range values {
		if r.IntN(2) == 0 {
			req.Values = append(req.Values, v)
		}
	}
	if len(req.Values) == 0 {
		req.Values = []string{values[0]}
	}
	return req
}

// genToleration draws a toleration of a taint key (or of every key, with
// Exists), with or without tolerationSeconds; one in 50 is invalid.
func genToleration(r *rand.Rand) clusterv1beta1.Toleration {
	t := clusterv1beta1.Toleration{Key: pick(r, taintKeys)}
	switch r.IntN(4) {
	case 0:
		t.Operator = clusterv1beta1.TolerationOpExists
		if r.IntN(2) == 0 {
			t.Key = ""
		}
	case 1:
		t.Operator = clusterv1beta1.TolerationOpEqual
		t.Value = pick(r, []string{"", "true", "a"})
	case 2:
		t.Value = pick(r, []string{"", "true"}) // no operator: Equal
	default:
		t.Operator = clusterv1beta1.TolerationOpExists
	}
	if r.IntN(2) == 0 {
		t.Effect = pick(r, taintEffects)
	}
	if r.IntN(2) == 0 {
		s := pick(r, tolSeconds)
		t.TolerationSeconds = &s
	}
	switch r.IntN(100) {
	case 0: // OCM: "If the key is empty, operator must be Exists."
		t.Key, t.Operator = "", clusterv1beta1.TolerationOpEqual
	case 1: // OCM: "If the operator is Exists, the value should be empty."
		t.Operator, t.Value = clusterv1beta1.TolerationOpExists, "true"
	}
	return t
}

// genPrioritizerPolicy draws a mode and up to three configurations of
// built-in and add-on prioritizers with weights in the CRD's range;
// rarely an unknown mode, or one unknown prioritizer or coordinate without
// its source, which OCM reports as misconfigured.
func genPrioritizerPolicy(r *rand.Rand) clusterv1beta1.PrioritizerPolicy {
	var pp clusterv1beta1.PrioritizerPolicy
	switch p := r.IntN(100); {
	case p < 40:
	case p < 70:
		pp.Mode = clusterv1beta1.PrioritizerPolicyModeAdditive
	case p < 99:
		pp.Mode = clusterv1beta1.PrioritizerPolicyModeExact
	default:
		pp.Mode = "Bogus"
	}
	if r.IntN(3) == 0 {
		return pp
	}
	n := 1 + r.IntN(3)
	bad := -1 // at most one bad coordinate: with two, OCM names one by map order (S5)
	if r.IntN(70) == 0 {
		bad = r.IntN(n)
	}
	for i := range n {
		sc := &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: pick(r, builtIns)}
		if r.IntN(3) == 0 {
			sc = &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn,
				AddOn: &clusterv1beta1.AddOnScore{ResourceName: pick(r, scoreRes), ScoreName: pick(r, scoreNames)}}
		}
		if i == bad {
			sc = pick(r, []*clusterv1beta1.ScoreCoordinate{
				{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "Bogus"},
				nil,
				{Type: clusterv1beta1.ScoreCoordinateTypeAddOn},
			})
		}
		w := int32(r.IntN(21) - 10)
		if r.IntN(2) == 0 { // the CRD's default and its neighbours, where sums tie most
			w = pick(r, []int32{1, 1, 1, -1, 2, 0})
		}
		pp.Configurations = append(pp.Configurations, clusterv1beta1.PrioritizerConfig{ScoreCoordinate: sc, Weight: w})
	}
	return pp
}

// genGroupStrategy draws clustersPerDecisionGroup and up to three
// decision groups selecting on labels and claims.
func genGroupStrategy(r *rand.Rand) clusterv1beta1.GroupStrategy {
	var gs clusterv1beta1.GroupStrategy
	switch p := r.IntN(100); {
	case p < 35:
	case p < 92:
		gs.ClustersPerDecisionGroup = pick(r, perGroupValues)
	case p < 97: // P1: the float ceiling may differ from the exact one
		gs.ClustersPerDecisionGroup = intstr.FromString(pick(r, []string{"7%", "14%", "28%", "56%"}))
	case p < 99: // P2: the CRD forbids them, OCM accepts them
		gs.ClustersPerDecisionGroup = pick(r, []intstr.IntOrString{intstr.FromString("0%"), intstr.FromString("150%"), intstr.FromInt32(-2)})
	default: // P6: the CRD admits it, OCM refuses it
		gs.ClustersPerDecisionGroup = intstr.FromString("3")
	}
	for range r.IntN(4) {
		dg := clusterv1beta1.DecisionGroup{GroupName: pick(r, []string{"canary", "dev", "prod", "rest"})}
		if r.IntN(4) > 0 {
			dg.ClusterSelector.LabelSelector = *genLabelSelector(r)
		}
		if r.IntN(4) == 0 {
			k := pick(r, claimKeys)
			dg.ClusterSelector.ClaimSelector.MatchExpressions = []metav1.LabelSelectorRequirement{genRequirement(r, k, claimValues[k])}
		}
		gs.DecisionGroups = append(gs.DecisionGroups, dg)
	}
	return gs
}
