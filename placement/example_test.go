package placement_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// ExampleSchedule schedules the cluster-proxy Placement of docs/story.md,
// built in Go, over three clusters labelled dev, stg and prod: its
// decisionGroups give them group indices 0, 1 and 2, one PlacementDecision
// each, and the status the placement controller writes.
func ExampleSchedule() {
	envs := []string{"dev", "stg", "prod"}
	var clusters []*clusterv1.ManagedCluster
	for _, env := range envs {
		clusters = append(clusters, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{
			Name:   env + "-cluster",
			Labels: map[string]string{"cluster-proxy": "enabled", "environment": env},
		}})
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"},
		Spec: clusterv1beta1.PlacementSpec{
			// Select the enabled clusters of the three environments only, so
			// that no cluster falls into an unnamed group.
			Predicates: []clusterv1beta1.ClusterPredicate{{
				RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
					MatchLabels: map[string]string{"cluster-proxy": "enabled"},
					MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "environment", Operator: metav1.LabelSelectorOpIn, Values: envs},
					},
				}},
			}},
			// The rollout order is the order of decisionGroups.
			DecisionStrategy: clusterv1beta1.DecisionStrategy{GroupStrategy: clusterv1beta1.GroupStrategy{
				ClustersPerDecisionGroup: intstr.FromString("100%"),
				DecisionGroups: []clusterv1beta1.DecisionGroup{
					{GroupName: "dev", ClusterSelector: clusterv1beta1.GroupClusterSelector{
						LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": "dev"}},
					}},
					{GroupName: "stg", ClusterSelector: clusterv1beta1.GroupClusterSelector{
						LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": "stg"}},
					}},
					{GroupName: "prod", ClusterSelector: clusterv1beta1.GroupClusterSelector{
						LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": "prod"}},
					}},
				},
			}},
		},
	}
	res, err := placement.Schedule(p, clusters)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("group index\tgroup\tPlacementDecision\tcluster")
	for _, pd := range res.Decisions {
		for _, d := range pd.Status.Decisions {
			fmt.Printf("%s\t%s\t%s\t%s\n",
				pd.Labels[clusterv1beta1.DecisionGroupIndexLabel], pd.Labels[clusterv1beta1.DecisionGroupNameLabel],
				pd.Name, d.ClusterName)
		}
	}
	fmt.Println("selected:", res.Status.NumberOfSelectedClusters)
	for _, c := range res.Status.Conditions {
		fmt.Printf("%s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	// Output:
	// group index	group	PlacementDecision	cluster
	// 0	dev	cluster-proxy-placement-decision-1	dev-cluster
	// 1	stg	cluster-proxy-placement-decision-2	stg-cluster
	// 2	prod	cluster-proxy-placement-decision-3	prod-cluster
	// selected: 3
	// PlacementMisconfigured=False Succeedconfigured: Placement configurations check pass
	// PlacementSatisfied=True AllDecisionsScheduled: All cluster decisions scheduled
}

// ExampleSchedule_warnings decodes a Placement from YAML that lacks the
// story's guard "environment In (dev, stg, prod)", and shows the two traps
// the warnings name: without a dev cluster stg becomes group index 0, and a
// cluster that matches no decision group is rolled out last.
func ExampleSchedule_warnings() {
	const manifest = `
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata:
  name: cluster-proxy-placement
  namespace: open-cluster-management
spec:
  predicates:
  - requiredClusterSelector:
      labelSelector:
        matchLabels:
          cluster-proxy: enabled
  decisionStrategy:
    groupStrategy:
      clustersPerDecisionGroup: "100%"
      decisionGroups:
      - groupName: dev
        groupClusterSelector:
          labelSelector:
            matchLabels:
              environment: dev
      - groupName: stg
        groupClusterSelector:
          labelSelector:
            matchLabels:
              environment: stg
      - groupName: prod
        groupClusterSelector:
          labelSelector:
            matchLabels:
              environment: prod
`
	p := new(clusterv1beta1.Placement)
	if err := yaml.UnmarshalStrict([]byte(manifest), p); err != nil {
		fmt.Println(err)
		return
	}
	var clusters []*clusterv1.ManagedCluster
	for _, env := range []string{"stg", "prod", "qa"} {
		clusters = append(clusters, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{
			Name:   env + "-cluster",
			Labels: map[string]string{"cluster-proxy": "enabled", "environment": env},
		}})
	}
	res, err := placement.Schedule(p, clusters)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range res.Groups {
		fmt.Printf("%d %q %v\n", g.Index, g.Name, g.Clusters)
	}
	for _, w := range res.Warnings {
		fmt.Println(w)
	}
	// Output:
	// 0 "stg" [stg-cluster]
	// 1 "prod" [prod-cluster]
	// 2 "" [qa-cluster]
	// EmptyNamedGroup: group "dev" matched no cluster: "stg" is now index 0, "prod" is now index 1, the unnamed group is now index 2
	// UnnamedGroup: 1 cluster matched no decision group and will be rolled out last, in the unnamed group (index 2): "qa-cluster"
}

// ExampleScheduler_Schedule_misconfigured schedules a Placement whose
// numberOfClusters is negative and whose clustersPerDecisionGroup is not a
// number: it gets an error naming the Placement once and each problem as a
// *field.Error (its path, the value, what was wanted), and the status OCM
// would write, with OCM's message for the problem OCM meets, stamped by
// the Scheduler's clock.
func ExampleScheduler_Schedule_misconfigured() {
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: clusterv1beta1.PlacementSpec{DecisionStrategy: clusterv1beta1.DecisionStrategy{
			GroupStrategy: clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromString("ten")},
		}},
	}
	p.Spec.NumberOfClusters = ptr.To(int32(-1))
	s := placement.Scheduler{Clock: fake.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))}
	res, err := s.Schedule(p, nil)
	fmt.Println(err)
	var fe *field.Error
	if errors.As(err, &fe) {
		fmt.Printf("fix %s: got %v, %s\n", fe.Field, fe.BadValue, fe.Detail)
	}
	c := res.Status.Conditions[0]
	fmt.Printf("%s=%s %s: %s at %s\n", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.UTC().Format(time.RFC3339))
	// Output:
	// placement "ns/p": spec.numberOfClusters: Invalid value: -1: want a non-negative integer
	// spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "ten": want a positive integer or a percentage 1%-100%
	// fix spec.numberOfClusters: got -1, want a non-negative integer
	// PlacementMisconfigured=True Misconfigured: :ten invalid type: string is not a percentage at 2026-11-30T12:00:00Z
}

// ExampleGroupsFromDecisions reads the decision groups back from the
// PlacementDecisions, as a rollout does, here from the output of
//
//	kubectl -n open-cluster-management get placementdecisions -o yaml \
//	  -l cluster.open-cluster-management.io/placement=cluster-proxy-placement
//
// The groups come from the two decision-group labels, not from the name:
// the name suffix counts from 1, the group index from 0.
func ExampleGroupsFromDecisions() {
	const kubectlOutput = `
apiVersion: v1
kind: List
items:
- apiVersion: cluster.open-cluster-management.io/v1beta1
  kind: PlacementDecision
  metadata:
    name: cluster-proxy-placement-decision-3
    namespace: open-cluster-management
    labels:
      cluster.open-cluster-management.io/placement: cluster-proxy-placement
      cluster.open-cluster-management.io/decision-group-index: "2"
      cluster.open-cluster-management.io/decision-group-name: prod
  status:
    decisions:
    - clusterName: prod-cluster
      reason: ""
- apiVersion: cluster.open-cluster-management.io/v1beta1
  kind: PlacementDecision
  metadata:
    name: cluster-proxy-placement-decision-1
    namespace: open-cluster-management
    labels:
      cluster.open-cluster-management.io/placement: cluster-proxy-placement
      cluster.open-cluster-management.io/decision-group-index: "0"
      cluster.open-cluster-management.io/decision-group-name: dev
  status:
    decisions:
    - clusterName: dev-cluster
      reason: ""
- apiVersion: cluster.open-cluster-management.io/v1beta1
  kind: PlacementDecision
  metadata:
    name: cluster-proxy-placement-decision-2
    namespace: open-cluster-management
    labels:
      cluster.open-cluster-management.io/placement: cluster-proxy-placement
      cluster.open-cluster-management.io/decision-group-index: "1"
      cluster.open-cluster-management.io/decision-group-name: stg
  status:
    decisions:
    - clusterName: stg-cluster
      reason: ""
`
	var list clusterv1beta1.PlacementDecisionList
	if err := yaml.UnmarshalStrict([]byte(kubectlOutput), &list); err != nil {
		fmt.Println(err)
		return
	}
	decisions := make([]*clusterv1beta1.PlacementDecision, len(list.Items))
	for i := range list.Items {
		decisions[i] = &list.Items[i]
	}
	groups, err := placement.GroupsFromDecisions(decisions)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range groups {
		fmt.Println(g.Index, g.Name, g.Clusters)
	}
	// Output:
	// 0 dev [dev-cluster]
	// 1 stg [stg-cluster]
	// 2 prod [prod-cluster]
}
