package hubtest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
