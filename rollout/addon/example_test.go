package addon_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/internal/seed"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// completed returns a cluster-proxy add-on that has applied the config with
// the given spec hash.
func completed(cluster, specHash string, since time.Time) *addonv1beta1.ManagedClusterAddOn {
	applied := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: specHash}
	return &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "cluster-proxy"},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{{
				Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed",
				Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(since),
			}},
			ConfigReferences: []addonv1beta1.ConfigReference{{
				ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
				DesiredConfig:       applied,
				LastAppliedConfig:   applied.DeepCopy(),
			}},
		},
	}
}

// Example follows the seed story: the three cluster-proxy add-ons run the
// seed's ManagedProxyConfiguration, then a new proxyAgent.image changes its
// spec hash. Every add-on becomes ToApply; the ProgressivePerGroup rollout
// starts with dev, and the ClusterManagementAddOn's install progression
// says so.
func Example() {
	cma, err := seed.ClusterManagementAddOn()
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := seed.ManagedProxyConfiguration()
	if err != nil {
		fmt.Println(err)
		return
	}
	oldHash, err := hash.Spec(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	mcas := []*addonv1beta1.ManagedClusterAddOn{
		completed("dev-cluster", oldHash, start.Add(-72*time.Hour)),
		completed("stg-cluster", oldHash, start.Add(-72*time.Hour)),
		completed("prod-cluster", oldHash, start.Add(-72*time.Hour)),
	}

	// The upgrade: a new agent image in the referenced config.
	if err := unstructured.SetNestedField(cfg.Object, "quay.io/open-cluster-management/cluster-proxy:v1.2.3", "spec", "proxyAgent", "image"); err != nil {
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
	// spec hash 27341f6bf06b... -> 80d6841ddadf...
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
// to its rollout status.
func ExampleClusterStatus() {
	since := time.Date(2026, 11, 30, 12, 0, 5, 0, time.UTC)
	mca := completed("dev-cluster", "old", since)
	mca.Status.ConfigReferences[0].DesiredConfig.SpecHash = "new"
	mca.Status.Conditions[0].Reason = "Progressing"
	desired := []addon.Config{{
		GroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
		Referent:      addonv1beta1.ConfigReferent{Name: "cluster-proxy"},
		SpecHash:      "new",
	}}
	st, err := addon.ClusterStatus(mca, desired)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Cluster, st.Status, st.LastTransitionTime.Format(time.RFC3339))
	// Output:
	// dev-cluster Progressing 2026-11-30T12:00:05Z
}
