package grouping_test

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
// a *field.Error that names the field, quotes the value and says what is
// wanted. A controller would pass its object's path to Compile instead,
// e.g. spec.decisionStrategy.groupStrategy.
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
	_, err := grouping.Divide(gs, []grouping.Cluster{{Name: "dev-cluster"}, {Name: "dev-cluster"}})
	fmt.Println(err)
	var fe *field.Error
	if errors.As(err, &fe) {
		fmt.Printf("first: field %s, value %v\n", fe.Field, fe.BadValue)
	}
	// Output:
	// clustersPerDecisionGroup: Invalid value: "ten": want a positive integer or a percentage 1%-100%
	// decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"
	// clusters[1].Name: Duplicate value: "dev-cluster": want each cluster once (clusters[0] has it too)
	// first: field clustersPerDecisionGroup, value ten
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
	s, err := grouping.Compile(gs, nil)
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
	s, err := grouping.NewSelector(
		metav1.LabelSelector{MatchLabels: map[string]string{"cluster-proxy": "enabled"}},
		clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "platform.open-cluster-management.io", Operator: metav1.LabelSelectorOpIn, Values: []string{"AWS"}},
		}},
		field.NewPath("spec", "predicates").Index(0).Child("requiredClusterSelector"))
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

// ExampleNewSelector_errors: the path given is where the selector sits in
// its object, and every bad requirement is reported.
func ExampleNewSelector_errors() {
	_, err := grouping.NewSelector(
		metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "environment", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev"}},
			{Key: "environment", Operator: metav1.LabelSelectorOpNotIn},
		}},
		clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "platform.open-cluster-management.io", Operator: "Equals", Values: []string{"AWS"}},
		}},
		field.NewPath("spec", "predicates").Index(0).Child("requiredClusterSelector"))
	fmt.Println(err)
	// Output:
	// spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'
	// spec.predicates[0].requiredClusterSelector.claimSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"
}
