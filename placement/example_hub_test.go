package placement_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// ExampleScheduler_ScheduleHub schedules a dev, stg, prod Placement on a
// hub where the global cluster set is bound to the Placement's namespace
// and two prod clusters are unreachable: OCM taints them. The Placement
// tolerates that taint for 15 minutes: prod-2, unreachable for 5, stays
// for now (and the result says when to look again); prod-3, unreachable
// for two hours, is dropped.
func ExampleScheduler_ScheduleHub() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const unreachable = "cluster.open-cluster-management.io/unreachable"
	cluster := func(name, env string, unreachableFor time.Duration) *clusterv1.ManagedCluster {
		c := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"environment": env}}}
		if unreachableFor > 0 {
			c.Spec.Taints = []clusterv1.Taint{{Key: unreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.NewTime(now.Add(-unreachableFor))}}
		}
		return c
	}
	hub := placement.Hub{
		Clusters: []*clusterv1.ManagedCluster{
			cluster("dev", "dev", 0), cluster("stg", "stg", 0),
			cluster("prod-1", "prod", 0), cluster("prod-2", "prod", 5*time.Minute), cluster("prod-3", "prod", 2*time.Hour),
		},
		ClusterSets: []*clusterv1beta2.ManagedClusterSet{{
			ObjectMeta: metav1.ObjectMeta{Name: "global"},
			Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
				SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
			}},
		}},
		Bindings: []*clusterv1beta2.ManagedClusterSetBinding{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management", Name: "global"},
			Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "global"},
		}},
	}
	group := func(env string) clusterv1beta1.DecisionGroup {
		return clusterv1beta1.DecisionGroup{GroupName: env, ClusterSelector: clusterv1beta1.GroupClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
		}}
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"},
		Spec: clusterv1beta1.PlacementSpec{
			Tolerations: []clusterv1beta1.Toleration{{
				Key: unreachable, Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr.To(int64(15 * 60)),
			}},
			DecisionStrategy: clusterv1beta1.DecisionStrategy{GroupStrategy: clusterv1beta1.GroupStrategy{
				DecisionGroups: []clusterv1beta1.DecisionGroup{group("dev"), group("stg"), group("prod")},
			}},
		},
	}
	res, err := placement.Scheduler{Clock: fake.New(now)}.ScheduleHub(p, hub)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range res.Groups {
		fmt.Println(g.Index, g.Name, g.Clusters)
	}
	fmt.Println("look again in", res.RecheckAfter)
	for _, w := range res.Warnings {
		fmt.Println(w)
	}
	// Output:
	// 0 dev [dev]
	// 1 stg [stg]
	// 2 prod [prod-1 prod-2]
	// look again in 10m0s
	// Tainted: 1 cluster matched the predicates but was dropped by the taint "cluster.open-cluster-management.io/unreachable" (NoSelect), whose toleration has expired (tolerationSeconds counted from the taint's timeAdded): "prod-3"
	// TolerationExpiring: 1 cluster is selected only because a toleration with tolerationSeconds tolerates its taint, and will leave the decisions when it expires: "prod-2" at 2026-11-30T12:10:00Z
}
