package placement_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// TestErrorsDocExamples: every example docs/errors.md gives of placement's
// errors, and of the PlacementMisconfigured messages beside them, is the
// text of a real one.
func TestErrorsDocExamples(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/errors.md")
	require.NoError(t, err)
	s := placement.Scheduler{Clock: fake.New(seedTime())}
	fleet := []*clusterv1.ManagedCluster{mc("a", "environment=dev")}
	spec := func(edit func(*clusterv1beta1.PlacementSpec)) *clusterv1beta1.Placement {
		p := newPlacement(intstr.IntOrString{}, nil)
		edit(&p.Spec)
		return p
	}
	scheduled := func(p *clusterv1beta1.Placement, clusters ...*clusterv1.ManagedCluster) string {
		_, err := s.Schedule(p, clusters)
		return text(err)
	}
	misconfigured := func(p *clusterv1beta1.Placement) string {
		res, _ := s.Schedule(p, fleet)
		return condition(t, res.Status, clusterv1beta1.PlacementConditionMisconfigured).Message
	}
	hubScheduled := func(edit func(*placement.Hub)) string {
		hub := globalHub(fleet...)
		edit(&hub)
		_, err := s.ScheduleHub(newPlacement(intstr.IntOrString{}, nil), hub)
		return text(err)
	}
	fromDecisions := func(ds ...*clusterv1beta1.PlacementDecision) string {
		_, err := placement.GroupsFromDecisions(ds)
		return text(err)
	}
	badOp := clusterv1beta1.DecisionGroup{GroupName: "stg", ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "environment", Operator: "Equals", Values: []string{"stg"}}},
	}}}
	tests := []struct {
		got, want string
	}{
		{scheduled(nil, fleet...), `nil Placement: want a Placement to schedule`},
		{scheduled(newPlacement(intstr.IntOrString{}, nil), mc("a"), mc("b"), nil),
			`placement "ns/p": clusters[2]: nil ManagedCluster: want a ManagedCluster`},
		{scheduled(newPlacement(intstr.IntOrString{}, nil), mc("dev-cluster"), mc("dev-cluster")),
			`placement "ns/p": duplicate ManagedCluster "dev-cluster": want each cluster once`},
		{hubScheduled(func(h *placement.Hub) { h.ClusterSets = append(h.ClusterSets, nil) }),
			`placement "ns/p": clusterSets[1]: nil ManagedClusterSet: want a ManagedClusterSet`},
		{hubScheduled(func(h *placement.Hub) { h.Bindings = append(h.Bindings, binding("ns", "global")) }),
			`placement "ns/p": duplicate ManagedClusterSetBinding "ns/global": want each once`},
		{hubScheduled(func(h *placement.Hub) {
			bad := exclusiveSet("bad-type")
			bad.Spec.ClusterSelector.SelectorType = "Everything"
			h.ClusterSets = append(h.ClusterSets, bad)
			h.Bindings = append(h.Bindings, binding("ns", "bad-type"))
		}), `placement "ns/p": managedclusterset "bad-type": spec.clusterSelector.selectorType: Unsupported value: "Everything": supported values: "ExclusiveClusterSetLabel", "LabelSelector"`},
		{scheduled(spec(func(ps *clusterv1beta1.PlacementSpec) { ps.NumberOfClusters = ptr.To(int32(-1)) }), fleet...),
			`placement "ns/p": spec.numberOfClusters: Invalid value: -1: want a non-negative integer`},
		{scheduled(newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "environment", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev"}},
				{Key: "region", Operator: metav1.LabelSelectorOpIn},
			}}}}}), fleet...),
			"placement \"ns/p\": spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
		{scheduled(newPlacement(intstr.FromString("150%"), nil), fleet...),
			`placement "ns/p": spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "150%": want a positive integer or a percentage 1%-100%`},
		{scheduled(newPlacement(intstr.IntOrString{}, nil, envGroup("dev"), badOp), fleet...),
			`placement "ns/p": spec.decisionStrategy.groupStrategy.decisionGroups[1].groupClusterSelector.labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`},
		{scheduled(spec(func(ps *clusterv1beta1.PlacementSpec) {
			ps.Tolerations = []clusterv1beta1.Toleration{toleration("", clusterv1beta1.TolerationOpEqual, "", "", -1)}
		}), fleet...), `placement "ns/p": spec.tolerations[0].operator: Invalid value: "Equal": want Exists when the key is empty (an empty key with Exists tolerates every taint)`},
		{scheduled(spec(func(ps *clusterv1beta1.PlacementSpec) {
			ps.Tolerations = []clusterv1beta1.Toleration{toleration("gpu", clusterv1beta1.TolerationOpExists, "a100", "", -1)}
		}), fleet...), `placement "ns/p": spec.tolerations[0].value: Invalid value: "a100": want no value with operator Exists`},
		{scheduled(spec(func(ps *clusterv1beta1.PlacementSpec) { ps.PrioritizerPolicy.Mode = "Best" }), fleet...),
			`placement "ns/p": spec.prioritizerPolicy.mode: Unsupported value: "Best": supported values: "Additive", "Exact"`},
		{scheduled(spec(func(ps *clusterv1beta1.PlacementSpec) {
			ps.PrioritizerPolicy.Configurations = []clusterv1beta1.PrioritizerConfig{builtInConfig("Spread", 1)}
		}), fleet...), `placement "ns/p": spec.prioritizerPolicy.configurations[0].scoreCoordinate.builtIn: Unsupported value: "Spread": supported values: "Balance", "Steady", "ResourceAllocatableCPU", "ResourceAllocatableMemory"`},
		{scheduled(newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{labelPredicate(), {RequiredClusterSelector: clusterv1beta1.ClusterSelector{
			CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.metadata.name != "x"`}},
		}}}), fleet...),
			`placement "ns/p": spec.predicates[1].requiredClusterSelector.celSelector.celExpressions: Forbidden: CEL expressions are not evaluated by rolloutkit: select with labelSelector or claimSelector`},
		{scheduled(spreadPlacement(1, term("", clusterv1beta1.TopologyKeyTypeLabel, 1, "")), fleet...),
			`placement "ns/p": spec.spreadPolicy.spreadConstraints[0].topologyKey: Required value: want a label key or a cluster claim name`},
		{misconfigured(newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchExpressions: badOp.ClusterSelector.LabelSelector.MatchExpressions},
		}}})), `Predicate:"Equals" is not a valid label selector operator`},
		{misconfigured(newPlacement(intstr.FromString("7x"), nil)), `:7x invalid type: string is not a percentage`},
		{misconfigured(newPlacement(intstr.FromString("150%"), nil)),
			`:spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "150%": ...`},
		{fromDecisions(decision("p-decision-1", "one", "dev")),
			`placementdecision "ns/p-decision-1": metadata.labels[cluster.open-cluster-management.io/decision-group-index]: Invalid value: "one": want a decision group index, an integer 0-2147483647`},
		{fromDecisions(decision("p-decision-1", "-", "dev")),
			`placementdecision "ns/p-decision-1": metadata.labels[cluster.open-cluster-management.io/decision-group-index]: Required value: a decision group index, an integer 0-2147483647`},
		{fromDecisions(decision("p-decision-1", "0", "dev"), decision("p-decision-2", "0", "stg")),
			`placementdecision "ns/p-decision-2": metadata.labels[cluster.open-cluster-management.io/decision-group-name]: Invalid value: "stg": want one name per group index: group 0 is named "dev" in placementdecision "ns/p-decision-1"`},
		{fromDecisions(decision("p-decision-1", "0", "dev"), ownedBy("q", decision("q-decision-1", "1", "x"))),
			`placementdecision "ns/q-decision-1": metadata.labels[cluster.open-cluster-management.io/placement]: Invalid value: "q": want the PlacementDecisions of one Placement: placementdecision "ns/p-decision-1" is of placement "ns/p"`},
		{fromDecisions(decision("p-decision-1", "0", "dev"), decision("p-decision-2", "1", "stg"), nil),
			`decisions[2]: nil PlacementDecision: want a PlacementDecision`},
	}
	for _, tt := range tests {
		assert.Contains(t, string(doc), tt.want, "docs/errors.md does not give this example")
		assert.True(t, documents(tt.got, tt.want), "no line of %q reads as the example %q", tt.got, tt.want)
	}
}

// ownedBy returns d, labelled as a decision of Placement name.
func ownedBy(name string, d *clusterv1beta1.PlacementDecision) *clusterv1beta1.PlacementDecision {
	d.Labels[clusterv1beta1.PlacementLabel] = name
	return d
}

// text is err's text, "" for nil.
func text(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// documents reports whether a line of got is want, or begins with it when
// want ends in "...".
func documents(got, want string) bool {
	for _, line := range strings.Split(got, "\n") {
		if prefix, cut := strings.CutSuffix(want, "..."); line == want || cut && strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}
