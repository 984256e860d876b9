package placement_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/internal/seed"
	"github.com/rolloutkit/rolloutkit/placement"
)

// The seed's cluster-proxy Placement and its three clusters: dev, stg and
// prod get group indices 0, 1 and 2, one PlacementDecision each.
func ExampleSchedule() {
	clusters, err := seed.ManagedClusters()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := seed.Placement()
	if err != nil {
		fmt.Println(err)
		return
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

// The seed's traps, named by warnings: without a dev cluster stg becomes
// group index 0, and a cluster that matches no decision group is rolled out
// last.
func ExampleSchedule_warnings() {
	p, _ := seed.Placement()
	// Drop the seed's guard "environment In (dev, stg, prod)".
	p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchExpressions = nil
	clusters := []*clusterv1.ManagedCluster{
		{ObjectMeta: metav1.ObjectMeta{Name: "stg-cluster", Labels: map[string]string{"cluster-proxy": "enabled", "environment": "stg"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "prod-cluster", Labels: map[string]string{"cluster-proxy": "enabled", "environment": "prod"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "qa-cluster", Labels: map[string]string{"cluster-proxy": "enabled", "environment": "qa"}}},
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

// A misconfigured Placement gives an error and the status OCM would write.
func ExampleScheduler_Schedule_misconfigured() {
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: clusterv1beta1.PlacementSpec{DecisionStrategy: clusterv1beta1.DecisionStrategy{
			GroupStrategy: clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromString("ten")},
		}},
	}
	s := placement.Scheduler{Clock: fake.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))}
	res, err := s.Schedule(p, nil)
	fmt.Println(err)
	c := res.Status.Conditions[0]
	fmt.Printf("%s=%s %s: %s at %s\n", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.UTC().Format(time.RFC3339))
	// Output:
	// placement "ns/p": decisionStrategy.groupStrategy.clustersPerDecisionGroup "ten": want an integer or a percentage 0%-100%
	// PlacementMisconfigured=True Misconfigured: :ten invalid type: string is not a percentage at 2026-11-30T12:00:00Z
}

// The rollout reads the groups back from the PlacementDecisions, by their
// labels: the name suffix is not the group index.
func ExampleGroupsFromDecisions() {
	decisions, err := seed.PlacementDecisions()
	if err != nil {
		fmt.Println(err)
		return
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
