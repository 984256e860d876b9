package planreport_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// The seed's hub, built in Go: three clusters dev-cluster, stg-cluster and
// prod-cluster, one group each, and the add-on cluster-proxy rolled out
// ProgressivePerGroup (soak 5m, deadline 15m, maxFailures 0) to its config,
// a ManagedProxyConfiguration whose spec hash is newHash (the agent image
// v2; oldHash: v1).
const (
	addonName = "cluster-proxy"
	hubNS     = "open-cluster-management"
	placeName = "cluster-proxy-placement"
)

// The spec hashes of the config at agent image v2 (the hub's) and v1.
var (
	newHash = specHash(proxyConfig("v2"))
	oldHash = specHash(proxyConfig("v1"))
)

// proxyConfig is the add-on's config with the agent image at tag.
func proxyConfig(tag string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "proxy.open-cluster-management.io/v1alpha1",
		"kind":       "ManagedProxyConfiguration",
		"metadata":   map[string]any{"name": addonName},
		"spec":       map[string]any{"proxyAgent": map[string]any{"image": "quay.io/open-cluster-management/cluster-proxy:" + tag}},
	}}
}

// specHash is hash.Spec of obj, which cannot fail on proxyConfig's.
func specHash(obj *unstructured.Unstructured) string {
	h, err := hash.Spec(obj)
	if err != nil {
		panic(err)
	}
	return h
}

// at is a time on the day of the rollout, in UTC.
func at(hour, minute int) time.Time {
	return time.Date(2026, 11, 30, hour, minute, 0, 0, time.UTC)
}

// seedHub returns the seed's hub with the given add-ons, and with the
// placement's PlacementDecisions when decided is true.
func seedHub(decided bool, addons ...*addonv1beta1.ManagedClusterAddOn) *planreport.Hub {
	h := &planreport.Hub{
		Placements:              []*clusterv1beta1.Placement{seedPlacement()},
		ClusterManagementAddOns: []*addonv1beta1.ClusterManagementAddOn{seedAddon(addonName)},
		ManagedClusterAddOns:    addons,
		Configs:                 []*unstructured.Unstructured{proxyConfig("v2")},
	}
	for i, env := range []string{"dev", "stg", "prod"} {
		name := env + "-cluster"
		h.Clusters = append(h.Clusters, &clusterv1.ManagedCluster{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"cluster-proxy": "enabled", "environment": env}},
			Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true},
		})
		if decided {
			h.Decisions = append(h.Decisions, &clusterv1beta1.PlacementDecision{
				ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: fmt.Sprintf("%s-decision-%d", placeName, i+1), Labels: map[string]string{
					clusterv1beta1.PlacementLabel:          placeName,
					clusterv1beta1.DecisionGroupIndexLabel: fmt.Sprint(i),
					clusterv1beta1.DecisionGroupNameLabel:  env,
				}},
				Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: name}}},
			})
		}
	}
	return h
}

// seedPlacement selects the clusters with cluster-proxy enabled, in one
// decision group per environment.
func seedPlacement() *clusterv1beta1.Placement {
	p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: placeName}}
	p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"cluster-proxy": "enabled"}},
	}}}
	gs := &p.Spec.DecisionStrategy.GroupStrategy
	gs.ClustersPerDecisionGroup = intstr.FromString("100%")
	for _, env := range []string{"dev", "stg", "prod"} {
		gs.DecisionGroups = append(gs.DecisionGroups, clusterv1beta1.DecisionGroup{
			GroupName: env,
			ClusterSelector: clusterv1beta1.GroupClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
			},
		})
	}
	return p
}

// seedAddon is a ClusterManagementAddOn named name, installed by the seed's
// placement, whose one default config has the desired spec hash newHash.
func seedAddon(name string) *addonv1beta1.ClusterManagementAddOn {
	cma := &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: name}}
	cma.Spec.DefaultConfigs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: proxyConfigGR(), ConfigReferent: addonv1beta1.ConfigReferent{Name: addonName}}}
	cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements, Placements: []addonv1beta1.PlacementStrategy{{
		PlacementRef: addonv1beta1.PlacementRef{Namespace: hubNS, Name: placeName},
		RolloutStrategy: clusterv1alpha1.RolloutStrategy{
			Type: clusterv1alpha1.ProgressivePerGroup,
			ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{
				MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
				ProgressDeadline: "15m",
				MaxFailures:      intstr.FromInt32(0),
			}},
		},
	}}}
	cma.Status.DefaultConfigReferences = []addonv1beta1.DefaultConfigReference{{
		ConfigGroupResource: proxyConfigGR(),
		DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: addonName}, SpecHash: newHash},
	}}
	return cma
}

// proxyConfigGR is the group and resource of the add-on's config.
func proxyConfigGR() addonv1beta1.ConfigGroupResource {
	return addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
}

// managedAddon is the add-on on cluster, told to run the config at spec
// hash desired and having applied applied, with its Progressing condition's
// reason since a time (Completed: False, else True).
func managedAddon(cluster, desired, applied, reason string, since time.Time) *addonv1beta1.ManagedClusterAddOn {
	status := metav1.ConditionTrue
	if reason == addonv1beta1.ProgressingReasonCompleted {
		status = metav1.ConditionFalse
	}
	ref := addonv1beta1.ConfigReferent{Name: addonName}
	m := &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: addonName}}
	m.Status.Conditions = []metav1.Condition{{
		Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: status, Reason: reason,
		LastTransitionTime: metav1.NewTime(since),
	}}
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{
		ConfigGroupResource: proxyConfigGR(),
		DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: ref, SpecHash: desired},
		LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: ref, SpecHash: applied},
	}}
	return m
}

// midRollout is the seed's rollout at 12:10: dev done at 12:00, stg
// progressing since 12:06 (deadline 12:21), prod on the old config.
// freshAddons are the add-ons before the rollout: each applied the v1
// config (oldHash) at 9:00.
func freshAddons() []*addonv1beta1.ManagedClusterAddOn {
	return []*addonv1beta1.ManagedClusterAddOn{
		managedAddon("dev-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0)),
		managedAddon("stg-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0)),
		managedAddon("prod-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0)),
	}
}

func midRollout() []*addonv1beta1.ManagedClusterAddOn {
	return []*addonv1beta1.ManagedClusterAddOn{
		managedAddon("dev-cluster", newHash, newHash, addonv1beta1.ProgressingReasonCompleted, at(12, 0)),
		managedAddon("stg-cluster", newHash, oldHash, addonv1beta1.ProgressingReasonProgressing, at(12, 6)),
		managedAddon("prod-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0)),
	}
}
