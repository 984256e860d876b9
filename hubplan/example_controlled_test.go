package hubplan_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ExamplePlanner_Plan rolls out a new config under an AddOnRollout that
// requires an approval of prod. dev and stg have the new config; prod is
// held, and the status lists it as pending an approval of the revision.
// Once a RolloutApproval names that revision, prod starts and the
// approval is marked used.
func ExamplePlanner_Plan() {
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	ref := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	cma := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs: []addonv1beta1.AddOnConfig{{ConfigGroupResource: gr, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}},
			InstallStrategy: addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements,
				Placements: []addonv1beta1.PlacementStrategy{{PlacementRef: ref, RolloutStrategy: clusterv1alpha1.RolloutStrategy{
					Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{},
				}}}},
		},
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	applied := func(cluster, specHash string) *addonv1beta1.ManagedClusterAddOn {
		h := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: specHash}
		return &addonv1beta1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "cluster-proxy"},
			Status: addonv1beta1.ManagedClusterAddOnStatus{
				ConfigReferences: []addonv1beta1.ConfigReference{{ConfigGroupResource: gr, DesiredConfig: h, LastAppliedConfig: h}},
				Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed",
					LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}},
			},
		}
	}
	mcas := []*addonv1beta1.ManagedClusterAddOn{applied("dev-cluster", "new"), applied("stg-cluster", "new"), applied("prod-cluster", "old")}
	placements := []addon.PlacementInput{{
		Placement: &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}},
		Groups: []grouping.Group{
			{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
		},
	}}
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) { return "new", nil }
	in := hubplan.Inputs{ClusterManagementAddOn: cma, Placements: placements, Addons: mcas, SpecHash: specHash,
		Controls: hubplan.Controls{Rollout: &v1alpha1.AddOnRollout{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
			Spec:       v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}},
		}}}
	planner := hubplan.Planner{Rollout: rollout.Planner{Clock: fake.New(now)}}

	plan, err := planner.Plan(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	prod := plan.Status.Placements[0].Groups[2]
	fmt.Printf("%s %s, waits for %s: %s\n", prod.Name, prod.Phase, prod.WaitsFor, prod.Message)
	pending := plan.Status.PendingApprovals[0]
	fmt.Printf("pending: group %s of %s/%s, revision %s\n", pending.Group, pending.Placement.Namespace, pending.Placement.Name, pending.Revision)

	// a person approves prod for that revision; the controller records the status
	in.Controls = plan.Record(in.Controls, nil)
	in.Controls.Approvals = []*v1alpha1.RolloutApproval{{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy", Placement: pending.Placement,
			Group: pending.Group, Revision: pending.Revision},
	}}
	plan, err = planner.Plan(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	prod = plan.Status.Placements[0].Groups[2]
	fmt.Printf("%s %s: %s\n", prod.Name, prod.Phase, prod.Message)
	for _, a := range plan.Approvals {
		c := a.Conditions[0]
		fmt.Printf("approval %s: %s=%s %s\n", a.Name, c.Type, c.Status, c.Reason)
	}
	// Output:
	// prod Blocked, waits for Approval: held: waiting for approval of group "prod"
	// pending: group prod of open-cluster-management/cluster-proxy-placement, revision 763f02c6465a
	// prod Active: rolling out: 1 starting now
	// approval cluster-proxy-prod: Approved=True Used
}
