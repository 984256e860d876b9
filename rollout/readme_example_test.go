package rollout_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Example_readme is the program of README.md's "The story in a few lines of
// Go": its imports and body are the README's main, and its output is what
// the README shows. TestReadmeProgram keeps the two identical.
func Example_readme() {
	envs := []string{"dev", "stg", "prod"}

	// Three clusters, labelled by environment.
	var clusters []*clusterv1.ManagedCluster
	for _, env := range envs {
		clusters = append(clusters, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{
			Name:   env + "-cluster",
			Labels: map[string]string{"cluster-proxy": "enabled", "environment": env},
		}})
	}

	// A Placement that selects them and puts each environment in a decision
	// group of its own, in rollout order.
	var decisionGroups []clusterv1beta1.DecisionGroup
	for _, env := range envs {
		decisionGroups = append(decisionGroups, clusterv1beta1.DecisionGroup{
			GroupName: env,
			ClusterSelector: clusterv1beta1.GroupClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
			},
		})
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"},
		Spec: clusterv1beta1.PlacementSpec{
			Predicates: []clusterv1beta1.ClusterPredicate{{
				RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
					MatchLabels: map[string]string{"cluster-proxy": "enabled"},
					MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "environment", Operator: metav1.LabelSelectorOpIn, Values: envs},
					},
				}},
			}},
			DecisionStrategy: clusterv1beta1.DecisionStrategy{GroupStrategy: clusterv1beta1.GroupStrategy{
				ClustersPerDecisionGroup: intstr.FromString("100%"),
				DecisionGroups:           decisionGroups,
			}},
		},
	}
	sched, err := placement.Schedule(p, clusters)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range sched.Groups {
		fmt.Println("group", g.GroupKey, g.Clusters)
	}

	// The ClusterManagementAddOn's rollout strategy: one group at a time,
	// each cluster soaking 5 minutes, no failure tolerated.
	strategy := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
			RolloutConfig: clusterv1alpha1.RolloutConfig{
				MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
				ProgressDeadline: "15m",
				MaxFailures:      intstr.FromInt32(0),
			},
		},
	}

	// The new config went out at 12:00; dev-cluster applied it at 12:01.
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-cluster", Status: rollout.Succeeded, LastTransitionTime: start.Add(time.Minute)},
	}
	clk := fake.New(start)
	planner := rollout.Planner{Clock: clk}
	for _, at := range []time.Duration{3 * time.Minute, 6 * time.Minute} {
		clk.SetTime(start.Add(at))
		res, err := planner.Plan(strategy, sched.Groups, statuses)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("at", clk.Now().Format(time.TimeOnly))
		for _, c := range res.ToRollout {
			if c.Status == rollout.ToApply {
				fmt.Println("  start", c.Cluster)
			} else {
				fmt.Printf("  keep %s (%s, in flight)\n", c.Cluster, c.Status)
			}
		}
		fmt.Printf("  recheck after %v; done: %v\n", res.RecheckAfter, res.Done())
		for _, g := range res.Groups {
			fmt.Println(" ", g)
		}
	}
	// Output:
	// group dev#0 [dev-cluster]
	// group stg#1 [stg-cluster]
	// group prod#2 [prod-cluster]
	// at 12:03:00
	//   keep dev-cluster (Succeeded, in flight)
	//   recheck after 3m0s; done: false
	//   dev#0 Active: rolling out: 1 soaking; "dev-cluster" soaking until 12:06:00 (3m0s left)
	//   stg#1 Waiting: waiting for group "dev": "dev-cluster" soaking until 12:06:00 (3m0s left)
	//   prod#2 Waiting: waiting for group "dev": "dev-cluster" soaking until 12:06:00 (3m0s left)
	// at 12:06:00
	//   start stg-cluster
	//   recheck after 0s; done: false
	//   dev#0 Complete: complete: 1 succeeded
	//   stg#1 Active: rolling out: 1 starting now
	//   prod#2 Waiting: waiting for group "stg": "stg-cluster" starting now
}
