package grouping_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// ExampleDivide makes the decision groups of docs/story.md: dev, stg, prod
// in spec order. A cluster that no group selects is not dropped; it comes
// last, in an unnamed group.
func ExampleDivide() {
	gs := clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromString("100%")}
	for _, env := range []string{"dev", "stg", "prod"} {
		gs.DecisionGroups = append(gs.DecisionGroups, clusterv1beta1.DecisionGroup{
			GroupName: env,
			ClusterSelector: clusterv1beta1.GroupClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
			},
		})
	}
	clusters := []grouping.Cluster{
		{Name: "prod-cluster", Labels: map[string]string{"environment": "prod"}},
		{Name: "qa-cluster", Labels: map[string]string{"environment": "qa"}},
		{Name: "dev-cluster", Labels: map[string]string{"environment": "dev"}},
		{Name: "stg-cluster", Labels: map[string]string{"environment": "stg"}},
	}
	groups, err := grouping.Divide(gs, clusters)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range groups {
		fmt.Printf("%d %q %v\n", g.Index, g.Name, g.Clusters)
	}
	// Output:
	// 0 "dev" [dev-cluster]
	// 1 "stg" [stg-cluster]
	// 2 "prod" [prod-cluster]
	// 3 "" [qa-cluster]
}

// ExampleDivide_missingGroup shows a trap: with no dev cluster, the dev
// group is not created and stg becomes index 0. Refer to groups by name,
// not by index.
func ExampleDivide_missingGroup() {
	var gs clusterv1beta1.GroupStrategy
	for _, env := range []string{"dev", "stg", "prod"} {
		gs.DecisionGroups = append(gs.DecisionGroups, clusterv1beta1.DecisionGroup{
			GroupName: env,
			ClusterSelector: clusterv1beta1.GroupClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
			},
		})
	}
	clusters := []grouping.Cluster{
		{Name: "stg-cluster", Labels: map[string]string{"environment": "stg"}},
		{Name: "prod-cluster", Labels: map[string]string{"environment": "prod"}},
	}
	groups, err := grouping.Divide(gs, clusters)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range groups {
		fmt.Println(g.GroupKey, g.Clusters)
	}
	// Output:
	// stg#0 [stg-cluster]
	// prod#1 [prod-cluster]
}

// ExampleDivide_errors shows that every problem is reported at once, each
// naming the field and the value.
func ExampleDivide_errors() {
	gs := clusterv1beta1.GroupStrategy{
		ClustersPerDecisionGroup: intstr.FromString("ten"),
		DecisionGroups: []clusterv1beta1.DecisionGroup{{
			GroupName: "canary",
			ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "ring", Operator: "Equals", Values: []string{"0"}}},
			}},
		}},
	}
	_, err := grouping.Divide(gs, nil)
	for _, p := range grouping.Problems(err) {
		fmt.Println(p)
	}
	// Output:
	// decisionStrategy.groupStrategy.clustersPerDecisionGroup "ten": want a positive integer or a percentage 1%-100%
	// decisionStrategy.groupStrategy.decisionGroups[0] ("canary").groupClusterSelector.labelSelector.matchExpressions[0] "{key: ring, operator: Equals, values: [0]}": want a valid label selector requirement: "Equals" is not a valid label selector operator
}

// ExampleStrategy_Divide compiles a GroupStrategy once, to divide many
// cluster lists, and says which decisionGroups entry made each group.
// clustersPerDecisionGroup 2 splits prod in two.
func ExampleStrategy_Divide() {
	gs := clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromInt32(2)}
	for _, env := range []string{"canary", "prod"} {
		gs.DecisionGroups = append(gs.DecisionGroups, clusterv1beta1.DecisionGroup{
			GroupName: env,
			ClusterSelector: clusterv1beta1.GroupClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
			},
		})
	}
	s, err := grouping.Compile(gs)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := s.Divide([]grouping.Cluster{
		{Name: "p1", Labels: map[string]string{"environment": "prod"}},
		{Name: "p2", Labels: map[string]string{"environment": "prod"}},
		{Name: "p3", Labels: map[string]string{"environment": "prod"}},
		{Name: "x1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, g := range d.Groups {
		fmt.Println(g.GroupKey, g.Clusters, "from entry", d.Origins[i])
	}
	// Output:
	// prod#0 [p1 p2] from entry 1
	// prod#1 [p3] from entry 1
	// #2 [x1] from entry -1
}

// ExampleNewSelector compiles a requiredClusterSelector: the label selector
// and the claim selector must both match.
func ExampleNewSelector() {
	s, err := grouping.NewSelector("predicates[0].requiredClusterSelector",
		metav1.LabelSelector{MatchLabels: map[string]string{"cluster-proxy": "enabled"}},
		clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "platform.open-cluster-management.io", Operator: metav1.LabelSelectorOpIn, Values: []string{"AWS"}},
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	aws := grouping.Cluster{
		Name:   "aws-1",
		Labels: map[string]string{"cluster-proxy": "enabled"},
		Claims: map[string]string{"platform.open-cluster-management.io": "AWS"},
	}
	unlabelled := grouping.Cluster{Name: "aws-2", Claims: aws.Claims}
	fmt.Println(s.Matches(aws), s.Matches(unlabelled))
	// Output:
	// true false
}
