package testhub

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var (
	proxyGR  = addonv1alpha1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	deployGR = addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}
)

// TestConversionWebhook writes add-ons in one version to a real API server
// and reads them in the other, and back: nothing OCM's conversion keeps is
// lost, where the CRDs' own conversion (strategy None) dropped a
// ClusterManagementAddOn's configs on the way.
func TestConversionWebhook(t *testing.T) {
	t.Parallel()
	h, c := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t.Logf("conversion webhook at %s", h.ConversionURL())
	t.Run("ClusterManagementAddOn written in v1alpha1", func(t *testing.T) { cmaFromV1alpha1(ctx, t, c) })
	t.Run("ClusterManagementAddOn written in v1beta1", func(t *testing.T) { cmaFromV1beta1(ctx, t, c) })
	t.Run("ManagedClusterAddOn", func(t *testing.T) { mcaBothWays(ctx, t, c) })
}

func cmaFromV1alpha1(ctx context.Context, t *testing.T, c client.Client) {
	alpha := &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "from-v1alpha1", Annotations: map[string]string{"addon.open-cluster-management.io/lifecycle": "rolloutkit"}},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			SupportedConfigs: []addonv1alpha1.ConfigMeta{
				{ConfigGroupResource: proxyGR, DefaultConfig: &addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}},
				{ConfigGroupResource: deployGR},
			},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual},
		},
	}
	require.NoError(t, c.Create(ctx, alpha))
	beta := &addonv1beta1.ClusterManagementAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(alpha), beta))
	assert.Equal(t, []addonv1beta1.AddOnConfig{
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource(proxyGR), ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}},
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource(deployGR), ConfigReferent: addonv1beta1.ConfigReferent{Name: addonv1beta1.ReservedNoDefaultConfigName}},
	}, beta.Spec.DefaultConfigs)
	assert.Equal(t, "rolloutkit", beta.Annotations["addon.open-cluster-management.io/lifecycle"])

	list := &addonv1beta1.ClusterManagementAddOnList{}
	require.NoError(t, c.List(ctx, list), "a list converts too (kubectl get -A)")
	for _, it := range list.Items {
		if it.Name == alpha.Name {
			assert.Equal(t, beta.Spec, it.Spec)
		}
	}

	back := &addonv1alpha1.ClusterManagementAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(alpha), back))
	assert.Equal(t, alpha.Spec, back.Spec)
}

func cmaFromV1beta1(ctx context.Context, t *testing.T, c client.Client) {
	beta := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "from-v1beta1"},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs:  []addonv1beta1.AddOnConfig{{ConfigGroupResource: addonv1beta1.ConfigGroupResource(proxyGR), ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}},
			InstallStrategy: addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual},
		},
	}
	require.NoError(t, c.Create(ctx, beta))
	alpha := &addonv1alpha1.ClusterManagementAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(beta), alpha))
	assert.Equal(t, []addonv1alpha1.ConfigMeta{{ConfigGroupResource: proxyGR, DefaultConfig: &addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}}},
		alpha.Spec.SupportedConfigs, "stored in v1alpha1 with its default config")
	again := &addonv1beta1.ClusterManagementAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(beta), again))
	assert.Equal(t, beta.Spec.DefaultConfigs, again.Spec.DefaultConfigs)
}

// mcaBothWays writes a ManagedClusterAddOn in v1alpha1 (spec) and its
// status in v1alpha1, then in v1beta1 as an add-on manager of that version
// would, reading each write back in the other version.
func mcaBothWays(ctx context.Context, t *testing.T, c client.Client) {
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "conversion-cluster"}}))
	ref := addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}
	alpha := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "conversion-cluster", Name: "cluster-proxy"},
		Spec: addonv1alpha1.ManagedClusterAddOnSpec{
			InstallNamespace: "agents",
			Configs:          []addonv1alpha1.AddOnConfig{{ConfigGroupResource: deployGR, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "conversion-cluster", Name: "deploy"}}},
		},
	}
	require.NoError(t, c.Create(ctx, alpha))
	alpha.Status.ConfigReferences = []addonv1alpha1.ConfigReference{{
		ConfigGroupResource: proxyGR, ConfigReferent: ref,
		DesiredConfig:     &addonv1alpha1.ConfigSpecHash{ConfigReferent: ref, SpecHash: "old"},
		LastAppliedConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: ref, SpecHash: "old"},
	}}
	require.NoError(t, c.Status().Update(ctx, alpha))

	beta := &addonv1beta1.ManagedClusterAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(alpha), beta))
	assert.Equal(t, "agents", beta.Annotations[addonv1beta1.InstallNamespaceAnnotation])
	assert.Equal(t, "deploy", beta.Spec.Configs[0].Name)
	require.Len(t, beta.Status.ConfigReferences, 1)
	assert.Equal(t, "old", beta.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)

	beta.Status.ConfigReferences[0].DesiredConfig = &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"}
	require.NoError(t, c.Status().Update(ctx, beta))
	back := &addonv1alpha1.ManagedClusterAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(alpha), back))
	assert.Equal(t, alpha.Spec, back.Spec, "the install namespace is spec again, not an annotation")
	assert.Empty(t, back.Annotations)
	got := back.Status.ConfigReferences[0]
	assert.Equal(t, ref, got.ConfigReferent, "named after its desiredConfig")
	assert.Equal(t, "new", got.DesiredConfig.SpecHash)
	assert.Equal(t, "old", got.LastAppliedConfig.SpecHash)
}
