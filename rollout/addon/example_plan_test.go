package addon_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ExamplePlanAddon plans the seed's add-on after a config change, dev
// having applied it and soaked: stg is given the new configs, prod is told
// it is not configured yet, and the install progression says where the
// rollout is. A controller writes each Write and the Progression; a dry run
// prints them.
func ExamplePlanAddon() {
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	ref := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	cma := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs: []addonv1beta1.AddOnConfig{{ConfigGroupResource: gr, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}},
			InstallStrategy: addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements,
				Placements: []addonv1beta1.PlacementStrategy{{PlacementRef: ref, RolloutStrategy: clusterv1alpha1.RolloutStrategy{
					Type: clusterv1alpha1.ProgressivePerGroup,
					ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{
						MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}, ProgressDeadline: "15m", MaxFailures: intstr.FromInt32(0)}},
				}}}},
		},
	}
	now := time.Date(2026, 11, 30, 12, 10, 0, 0, time.UTC)
	applied := func(cluster, specHash string) *addonv1beta1.ManagedClusterAddOn {
		h := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: specHash}
		return &addonv1beta1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "cluster-proxy"},
			Status: addonv1beta1.ManagedClusterAddOnStatus{
				ConfigReferences: []addonv1beta1.ConfigReference{{ConfigGroupResource: gr, DesiredConfig: h, LastAppliedConfig: h}},
				Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed",
					LastTransitionTime: metav1.NewTime(now.Add(-6 * time.Minute))}},
			},
		}
	}
	mcas := []*addonv1beta1.ManagedClusterAddOn{applied("dev-cluster", "new"), applied("stg-cluster", "old"), applied("prod-cluster", "old")}
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	placement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) { return "new", nil }

	steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(now)}, cma,
		[]addon.PlacementInput{{Placement: placement, Groups: groups}}, mcas, specHash)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range steps {
		for _, g := range s.Result.Groups {
			fmt.Println(g)
		}
		for _, w := range s.Writes {
			for _, c := range w.Conditions {
				if c.Type == "Configured" {
					fmt.Printf("write %s: desired %s, Configured=%s\n", w.Cluster, w.ConfigReferences[0].DesiredConfig.SpecHash, c.Status)
				}
			}
		}
		fmt.Println(s.Progression.Conditions[0].Message)
	}
	// Output:
	// dev#0 Complete: complete: 1 succeeded
	// stg#1 Active: rolling out: 1 starting now
	// prod#2 Waiting: waiting for group "stg": "stg-cluster" starting now
	// write dev-cluster: desired new, Configured=True
	// write prod-cluster: desired old, Configured=False
	// write stg-cluster: desired new, Configured=True
	// selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.
}
