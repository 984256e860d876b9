package grouping_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// envGroup selects clusters whose label environment has the value env.
func envGroup(env string) clusterv1beta1.DecisionGroup {
	return clusterv1beta1.DecisionGroup{
		GroupName: env,
		ClusterSelector: clusterv1beta1.GroupClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
		},
	}
}

// The seed's decision groups: dev, stg, prod in spec order. A cluster that
// no group selects is not dropped; it comes last, in an unnamed group.
func ExampleDivide() {
	gs := clusterv1beta1.GroupStrategy{
		ClustersPerDecisionGroup: intstr.FromString("100%"),
		DecisionGroups:           []clusterv1beta1.DecisionGroup{envGroup("dev"), envGroup("stg"), envGroup("prod")},
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

// With no dev cluster, the dev group is not created and stg becomes index
// 0: refer to groups by name, not by index.
func ExampleDivide_missingGroup() {
	gs := clusterv1beta1.GroupStrategy{
		DecisionGroups: []clusterv1beta1.DecisionGroup{envGroup("dev"), envGroup("stg"), envGroup("prod")},
	}
	clusters := []grouping.Cluster{
		{Name: "stg-cluster", Labels: map[string]string{"environment": "stg"}},
		{Name: "prod-cluster", Labels: map[string]string{"environment": "prod"}},
	}
	groups, _ := grouping.Divide(gs, clusters)
	for _, g := range groups {
		fmt.Println(g.GroupKey, g.Clusters)
	}
	// Output:
	// stg#0 [stg-cluster]
	// prod#1 [prod-cluster]
}

// Every problem is reported at once, each naming the field and the value.
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
	// decisionStrategy.groupStrategy.clustersPerDecisionGroup "ten": want an integer or a percentage 0%-100%
	// decisionStrategy.groupStrategy.decisionGroups[0] ("canary").groupClusterSelector.labelSelector.matchExpressions[0] "{key: ring, operator: Equals, values: [0]}": want a valid label selector requirement: "Equals" is not a valid label selector operator
}

// A compiled Strategy divides many cluster lists and says which
// decisionGroups entry made each group. clustersPerDecisionGroup 2 splits
// prod in two.
func ExampleStrategy_Divide() {
	s, err := grouping.Compile(clusterv1beta1.GroupStrategy{
		ClustersPerDecisionGroup: intstr.FromInt32(2),
		DecisionGroups:           []clusterv1beta1.DecisionGroup{envGroup("canary"), envGroup("prod")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := s.Divide([]grouping.Cluster{
		{Name: "p1", Labels: map[string]string{"environment": "prod"}},
		{Name: "p2", Labels: map[string]string{"environment": "prod"}},
		{Name: "p3", Labels: map[string]string{"environment": "prod"}},
		{Name: "x1"},
	})
	for i, g := range d.Groups {
		fmt.Println(g.GroupKey, g.Clusters, "from entry", d.Origins[i])
	}
	// Output:
	// prod#0 [p1 p2] from entry 1
	// prod#1 [p3] from entry 1
	// #2 [x1] from entry -1
}

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
