package hubplan_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ExamplePlanner_Plan_rendering: every cluster runs the current config,
// and the add-on's manager has new content for them (a new agent chart).
// The work gate refused it on prod, and recorded the hold on prod's
// add-on, so Planner.Plan opens a rendering revision and rolls it out
// like a config, as a revision of its own (CombinedRevision of the
// configs' and the rendering's): dev is released first. dev's
// work was not held, and no Controls.ReleaseSettle is given, so it has
// nothing to take and is done at its release (a controller gives
// DefaultReleaseSettle: dev would wait that long for its manager); stg
// and prod wait for dev's soak.
func ExamplePlanner_Plan_rendering() {
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	ref := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	cma := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs: []addonv1beta1.AddOnConfig{{ConfigGroupResource: gr, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}},
			InstallStrategy: addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements,
				Placements: []addonv1beta1.PlacementStrategy{{PlacementRef: ref, RolloutStrategy: clusterv1alpha1.RolloutStrategy{
					Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
						RolloutConfig: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}},
					},
				}}}},
		},
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	applied := func(cluster string) *addonv1beta1.ManagedClusterAddOn {
		h := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "current"}
		return &addonv1beta1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "cluster-proxy"},
			Status: addonv1beta1.ManagedClusterAddOnStatus{
				ConfigReferences: []addonv1beta1.ConfigReference{{ConfigGroupResource: gr, DesiredConfig: h, LastAppliedConfig: h}},
				Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed",
					LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}},
			},
		}
	}
	prod := applied("prod-cluster")
	// the work gate's record of the hold, as it writes it on prod's add-on
	hold, err := hubplan.Hold{Since: metav1.NewTime(now.Add(-time.Minute)), Reason: hubplan.HoldRenderingHeld,
		Why: "a new rendering of unchanged configs", Works: map[string]string{"addon-cluster-proxy-deploy-0": "sha256:v1"}}.Annotation()
	if err != nil {
		fmt.Println(err)
		return
	}
	prod.Annotations = map[string]string{hubplan.HoldAnnotation: hold}
	mcas := []*addonv1beta1.ManagedClusterAddOn{applied("dev-cluster"), applied("stg-cluster"), prod}
	placements := []addon.PlacementInput{{
		Placement: &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}},
		Groups: []grouping.Group{
			{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
		},
	}}
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
		return "current", nil
	}
	// what each cluster's works say (hubplan.WorksOf, in a controller)
	works := hubplan.Works{Generation: 1, Ready: true, Content: map[string]string{"addon-cluster-proxy-deploy-0": "sha256:v1"}}
	ctl := hubplan.Controls{Works: map[string]hubplan.Works{"dev-cluster": works, "stg-cluster": works, "prod-cluster": works}}

	planner := hubplan.Planner{Rollout: rollout.Planner{Clock: fake.New(now)}}
	plan, err := planner.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: placements, Addons: mcas, Controls: ctl, SpecHash: specHash})
	if err != nil {
		fmt.Println(err)
		return
	}
	annotation, err := plan.Rendering.Annotation()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("opened: %s=%s\n", hubplan.RenderingAnnotation, annotation)
	step := plan.Steps[0]
	fmt.Printf("step: %s revision %s, of rendering %s\n", step.Kind, step.Revision, step.Rendering)
	for _, w := range step.Releases {
		fmt.Printf("release %s: held %t, done at %s\n", w.Cluster, w.Release.Held, w.Release.DoneAt.UTC().Format(time.TimeOnly))
	}
	for _, g := range step.Result.Groups {
		fmt.Printf("%s %s: %s\n", g.Name, g.Phase, g.Reason)
	}
	// Output:
	// opened: rolloutkit.io/rendering={"revision":"f32264736876","since":"2026-11-30T12:00:00Z"}
	// step: Rendering revision d1c336a7aa3d, of rendering f32264736876
	// release dev-cluster: held false, done at 12:00:00
	// dev Active: rolling out: 1 starting now
	// stg Waiting: waiting for group "dev": "dev-cluster" starting now
	// prod Waiting: waiting for group "dev": "dev-cluster" starting now
}
