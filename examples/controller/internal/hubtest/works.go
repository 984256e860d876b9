package hubtest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// RolledOut is the seed's add-on on dev-cluster after the rollout gave it
// the config hash "new": the agent applied "old" and has reported its
// ManifestApplied condition.
func RolledOut() *addonv1beta1.ManagedClusterAddOn {
	m := FreshAddon("dev-cluster", SeedAddonName)
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{
		ConfigGroupResource: ProxyGR,
		DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"},
		LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"},
	}}
	m.Status.Conditions = []metav1.Condition{
		{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied",
			Message: "manifests of addon are applied successfully", LastTransitionTime: metav1.NewTime(Start.Add(-time.Hour))},
		{Type: addonv1beta1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue, Reason: addon.ReasonConfigured,
			Message: "Configurations configured", LastTransitionTime: metav1.NewTime(Start.Add(-time.Minute))},
	}
	return m
}

// DeployWork is the add-on's ManifestWork as addon-framework renders it
// for configs refs, at generation 2, changed by each of with.
func DeployWork(t *testing.T, refs []addonv1beta1.ConfigReference, with ...func(*workv1.ManifestWork)) *workv1.ManifestWork {
	t.Helper()
	hashes, err := json.Marshal(addon.ConfigHashes(refs))
	require.NoError(t, err)
	w := &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "addon-cluster-proxy-deploy-0", Generation: 2,
			Labels:      map[string]string{addonv1beta1.AddonLabelKey: SeedAddonName},
			Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: string(hashes)}},
		Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete", ObservedGeneration: 2},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, Reason: "ResourcesAvailable", ObservedGeneration: 2},
		}},
	}
	for _, f := range with {
		f(w)
	}
	return w
}

// ImageV1 and ImageV2 are the images the agent's work runs before and after the add-on's manager
// renders it again.
const (
	ImageV1 = "quay.io/open-cluster-management/cluster-proxy:v1.0.0"
	ImageV2 = "quay.io/open-cluster-management/cluster-proxy:v2.0.0"
)

// ProxyRefs are the status.configReferences of an add-on Handed the
// seed's ManagedProxyConfiguration at spec hash h, and applied.
func ProxyRefs(h string) []addonv1beta1.ConfigReference {
	sh := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: h}
	return []addonv1beta1.ConfigReference{{ConfigGroupResource: ProxyGR, DesiredConfig: sh, LastAppliedConfig: sh.DeepCopy()}}
}

// Handed is the seed's add-on on cluster, Handed the config at spec hash
// h, with annotations (key, value pairs).
func Handed(cluster, h string, annotations ...string) *addonv1beta1.ManagedClusterAddOn {
	m := FreshAddon(cluster, SeedAddonName)
	m.Status.ConfigReferences = ProxyRefs(h)
	for i := 0; i+1 < len(annotations); i += 2 {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[annotations[i]] = annotations[i+1]
	}
	return m
}

// AgentWork is the add-on's work on prod-cluster, as the API server sends
// it to the gate: the agent Deployment running image, rendered for the
// config at spec hash h (no config-spec-hash annotation when h is "").
func AgentWork(t *testing.T, image, h string) *workv1.ManifestWork {
	t.Helper()
	deploy, err := json.Marshal(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "cluster-proxy-proxy-agent", "namespace": "open-cluster-management-cluster-proxy"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "proxy-agent", "image": image}}}}},
	})
	require.NoError(t, err)
	w := &workv1.ManifestWork{
		TypeMeta: metav1.TypeMeta{APIVersion: workv1.GroupVersion.String(), Kind: "ManifestWork"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "prod-cluster", Name: "addon-cluster-proxy-deploy-0", Generation: 3,
			Labels: map[string]string{addonv1beta1.AddonLabelKey: SeedAddonName}},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: deploy}}}}},
	}
	if h != "" {
		hashes, err := json.Marshal(addon.ConfigHashes(ProxyRefs(h)))
		require.NoError(t, err)
		w.Annotations = map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: string(hashes)}
	}
	return w
}

// Unlabelled is w without its add-on label: the work of no add-on.
func Unlabelled(w *workv1.ManifestWork) *workv1.ManifestWork {
	w = w.DeepCopy()
	w.Labels = nil
	return w
}
