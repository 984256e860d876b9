package addon_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Example follows docs/story.md: the three cluster-proxy add-ons run the
// ManagedProxyConfiguration at v0.9.0, then a new proxyAgent.image changes
// its spec hash. Every add-on becomes ToApply; the ClusterManagementAddOn's
// ProgressivePerGroup rollout starts with dev, and its install progression
// says so.
func Example() {
	cma := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs: []addonv1beta1.AddOnConfig{{
				ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
				ConfigReferent:      addonv1beta1.ConfigReferent{Name: "cluster-proxy"},
			}},
			InstallStrategy: addonv1beta1.InstallStrategy{
				Type: addonv1beta1.AddonInstallStrategyPlacements,
				Placements: []addonv1beta1.PlacementStrategy{{
					PlacementRef: addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"},
					RolloutStrategy: clusterv1alpha1.RolloutStrategy{
						Type: clusterv1alpha1.ProgressivePerGroup,
						ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
							RolloutConfig: clusterv1alpha1.RolloutConfig{
								MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
								ProgressDeadline: "15m",
								MaxFailures:      intstr.FromInt32(0),
							},
						},
					},
				}},
			},
		},
	}
	const manifest = `
apiVersion: proxy.open-cluster-management.io/v1alpha1
kind: ManagedProxyConfiguration
metadata:
  name: cluster-proxy
spec:
  authentication:
    dump:
      secrets: {}
    signer:
      type: SelfSigned
  proxyServer:
    image: quay.io/open-cluster-management/cluster-proxy:v0.9.0
    replicas: 1
    namespace: open-cluster-management
    entrypoint:
      type: PortForward
    port: 8091
  proxyAgent:
    image: quay.io/open-cluster-management/cluster-proxy:v0.9.0
    replicas: 1
`
	cfg := new(unstructured.Unstructured)
	if err := yaml.Unmarshal([]byte(manifest), &cfg.Object); err != nil {
		fmt.Println(err)
		return
	}
	oldHash, err := hash.Spec(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Every cluster's add-on applied that config three days ago.
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	applied := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: oldHash}
	var mcas []*addonv1beta1.ManagedClusterAddOn
	for _, cluster := range []string{"dev-cluster", "stg-cluster", "prod-cluster"} {
		mcas = append(mcas, &addonv1beta1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "cluster-proxy"},
			Status: addonv1beta1.ManagedClusterAddOnStatus{
				Conditions: []metav1.Condition{{
					Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed",
					Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(start.Add(-72 * time.Hour)),
				}},
				ConfigReferences: []addonv1beta1.ConfigReference{{
					ConfigGroupResource: cma.Spec.DefaultConfigs[0].ConfigGroupResource,
					DesiredConfig:       applied.DeepCopy(),
					LastAppliedConfig:   applied.DeepCopy(),
				}},
			},
		})
	}

	// The upgrade: a new agent image in the referenced config.
	if err := unstructured.SetNestedField(cfg.Object, "quay.io/open-cluster-management/cluster-proxy:v0.9.1", "spec", "proxyAgent", "image"); err != nil {
		fmt.Println(err)
		return
	}
	specHash := func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		if gr.Resource != "managedproxyconfigurations" || r.Name != cfg.GetName() {
			return "", errors.New("no such config")
		}
		return hash.Spec(cfg)
	}

	placement := cma.Spec.InstallStrategy.Placements[0]
	addons, err := addon.Evaluate(cma, placement.PlacementRef, mcas, specHash)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("spec hash %.12s... -> %.12s...\n", oldHash, addons[0].Configs[0].SpecHash)
	for _, a := range addons {
		fmt.Println(a.Status.Cluster, a.Status.Status)
	}

	// The Placement's decision groups, as placement.Schedule or
	// placement.GroupsFromDecisions give them.
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	planner := rollout.Planner{Clock: fake.New(start)}
	result, err := planner.Plan(placement.RolloutStrategy, groups, addon.Statuses(addons))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range result.ToRollout {
		fmt.Println("roll out to", c.Cluster)
	}
	cond := addon.Tally(groups, addons, result).Condition()
	fmt.Println(cond.Type, cond.Status, cond.Reason)
	fmt.Println(cond.Message)
	// Output:
	// spec hash 94b3ba64b5e7... -> 271b39cbdbb1...
	// dev-cluster ToApply
	// prod-cluster ToApply
	// stg-cluster ToApply
	// roll out to dev-cluster
	// Progressing True Progressing
	// selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout.
}

// ExampleProgress_Condition shows the two forms of the install progression
// condition.
func ExampleProgress_Condition() {
	for _, p := range []addon.Progress{
		{Selected: 3, Rolling: 1, Succeeded: 1},
		{Selected: 3, Succeeded: 3},
	} {
		c := p.Condition()
		fmt.Printf("%s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	// Output:
	// Progressing=True Progressing: selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.
	// Progressing=False Completed: selected clusters 3. configured addons 3/3 completed with no errors, 0 failed 0 timeout.
}

// ExampleClusterStatus maps one add-on that is still applying the new config
// to its rollout status: Progressing, since the time its Progressing
// condition last changed.
func ExampleClusterStatus() {
	proxy := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	referent := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	since := time.Date(2026, 11, 30, 12, 0, 5, 0, time.UTC)
	mca := &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy"},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{{
				Type: "Progressing", Status: metav1.ConditionTrue, Reason: "Progressing",
				Message: "progressing... work is not ready", LastTransitionTime: metav1.NewTime(since),
			}},
			ConfigReferences: []addonv1beta1.ConfigReference{{
				ConfigGroupResource: proxy,
				DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "new"},
				LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "old"},
			}},
		},
	}
	desired := []addon.Config{{GroupResource: proxy, Referent: referent, SpecHash: "new"}}
	st, err := addon.ClusterStatus(mca, desired)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Cluster, st.Status, st.LastTransitionTime.Format(time.RFC3339))
	// Output:
	// dev-cluster Progressing 2026-11-30T12:00:05Z
}
