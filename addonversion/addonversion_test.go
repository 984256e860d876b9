package addonversion

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

var proxy = addonv1alpha1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}

// deployment is the group and resource of AddOnDeploymentConfigs.
var deployment = addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}

func alphaCMA() *addonv1alpha1.ClusterManagementAddOn {
	return &addonv1alpha1.ClusterManagementAddOn{
		TypeMeta:   typeMeta(addonv1alpha1.GroupVersion.String(), ClusterManagementAddOn),
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy", Annotations: map[string]string{"addon.open-cluster-management.io/lifecycle": "rolloutkit"}},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			AddOnMeta: addonv1alpha1.AddOnMeta{DisplayName: "cluster proxy"},
			SupportedConfigs: []addonv1alpha1.ConfigMeta{
				{ConfigGroupResource: deployment},
				{ConfigGroupResource: proxy, DefaultConfig: &addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}},
			},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements,
				Placements: []addonv1alpha1.PlacementStrategy{{PlacementRef: addonv1alpha1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}}}},
		},
		Status: addonv1alpha1.ClusterManagementAddOnStatus{
			DefaultConfigReferences: []addonv1alpha1.DefaultConfigReference{{ConfigGroupResource: proxy,
				DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"}}},
		},
	}
}

func alphaMCA() *addonv1alpha1.ManagedClusterAddOn {
	ref := addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}
	return &addonv1alpha1.ManagedClusterAddOn{
		TypeMeta:   typeMeta(addonv1alpha1.GroupVersion.String(), ManagedClusterAddOn),
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy"},
		Spec: addonv1alpha1.ManagedClusterAddOnSpec{
			InstallNamespace: "open-cluster-management-agent-addon",
			Configs:          []addonv1alpha1.AddOnConfig{{ConfigGroupResource: deployment, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "dev-cluster", Name: "deploy"}}},
		},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{
			ConfigReferences: []addonv1alpha1.ConfigReference{{
				ConfigGroupResource: proxy,
				ConfigReferent:      ref,
				DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: ref, SpecHash: "new"},
				LastAppliedConfig:   &addonv1alpha1.ConfigSpecHash{ConfigReferent: ref, SpecHash: "old"},
			}},
		},
	}
}

func TestClusterManagementAddOn(t *testing.T) {
	t.Parallel()
	in := alphaCMA()
	orig := in.DeepCopy()
	beta, err := ClusterManagementAddOnToV1beta1(in)
	require.NoError(t, err)
	assert.Equal(t, orig, in, "the argument was modified")
	assert.Equal(t, typeMeta(addonv1beta1.GroupVersion.String(), ClusterManagementAddOn), beta.TypeMeta)
	assert.Equal(t, []addonv1beta1.AddOnConfig{
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource(deployment), ConfigReferent: addonv1beta1.ConfigReferent{Name: addonv1beta1.ReservedNoDefaultConfigName}},
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource(proxy), ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}},
	}, beta.Spec.DefaultConfigs)
	assert.Equal(t, "new", beta.Status.DefaultConfigReferences[0].DesiredConfig.SpecHash)

	beta.Annotations["changed"] = "yes"
	assert.NotContains(t, in.Annotations, "changed", "the result shares its annotations with the argument")
	delete(beta.Annotations, "changed")

	back, err := ClusterManagementAddOnToV1alpha1(beta)
	require.NoError(t, err)
	assert.Equal(t, orig, back, "v1alpha1 -> v1beta1 -> v1alpha1 keeps everything")
}

func TestManagedClusterAddOn(t *testing.T) {
	t.Parallel()
	in := alphaMCA()
	orig := in.DeepCopy()
	beta, err := ManagedClusterAddOnToV1beta1(in)
	require.NoError(t, err)
	assert.Equal(t, orig, in, "the argument was modified")
	assert.Equal(t, typeMeta(addonv1beta1.GroupVersion.String(), ManagedClusterAddOn), beta.TypeMeta)
	assert.Equal(t, map[string]string{addonv1beta1.InstallNamespaceAnnotation: "open-cluster-management-agent-addon"}, beta.Annotations)
	assert.Equal(t, "deploy", beta.Spec.Configs[0].Name)
	require.Len(t, beta.Status.ConfigReferences, 1)
	assert.Equal(t, "new", beta.Status.ConfigReferences[0].DesiredConfig.SpecHash)
	assert.Equal(t, "old", beta.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)

	back, err := ManagedClusterAddOnToV1alpha1(beta)
	require.NoError(t, err)
	assert.Equal(t, orig, back, "v1alpha1 -> v1beta1 -> v1alpha1 keeps everything")
	assert.Contains(t, beta.Annotations, addonv1beta1.InstallNamespaceAnnotation, "the argument was modified")
}

func TestConfigReferenceToV1alpha1(t *testing.T) {
	t.Parallel()
	desired := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Namespace: "ns", Name: "c"}, SpecHash: "h"}
	for _, tt := range []struct {
		name string
		in   addonv1beta1.ConfigReference
		want addonv1alpha1.ConfigReferent
	}{
		{"named after its desiredConfig", addonv1beta1.ConfigReference{ConfigGroupResource: addonv1beta1.ConfigGroupResource(proxy), DesiredConfig: desired},
			addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "c"}},
		{"no desiredConfig, no name", addonv1beta1.ConfigReference{ConfigGroupResource: addonv1beta1.ConfigGroupResource(proxy), LastObservedGeneration: 2},
			addonv1alpha1.ConfigReferent{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ConfigReferenceToV1alpha1(&tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.ConfigReferent)
			assert.Equal(t, proxy, got.ConfigGroupResource)
			assert.Equal(t, tt.in.LastObservedGeneration, got.LastObservedGeneration)
		})
	}
}

func TestCheckReferences(t *testing.T) {
	t.Parallel()
	named := addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}
	for _, tt := range []struct {
		name string
		ref  addonv1alpha1.ConfigReference
		want string // "": nothing lost
	}{
		{"named as its desiredConfig", addonv1alpha1.ConfigReference{ConfigGroupResource: proxy, ConfigReferent: named,
			DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: named, SpecHash: "h"}}, ""},
		{"named by desiredConfig alone", addonv1alpha1.ConfigReference{ConfigGroupResource: proxy,
			DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: named, SpecHash: "h"}}, ""},
		{"no desiredConfig", addonv1alpha1.ConfigReference{ConfigGroupResource: proxy, ConfigReferent: named, LastObservedGeneration: 2},
			`status.configReferences[0].desiredConfig: Required value: the desired config and spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": ` +
				`addon.open-cluster-management.io/v1beta1 names the config only in desiredConfig`},
		{"another config", addonv1alpha1.ConfigReference{ConfigGroupResource: proxy, ConfigReferent: named,
			DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "other"}, SpecHash: "h"}},
			`status.configReferences[0].desiredConfig.name: Invalid value: "ns/other": want managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy", ` +
				`which the reference names: addon.open-cluster-management.io/v1beta1 names the config only in desiredConfig`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mca := alphaMCA()
			mca.Status.ConfigReferences = []addonv1alpha1.ConfigReference{tt.ref}
			errs := CheckReferences(mca)
			if tt.want == "" {
				assert.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			assert.Equal(t, tt.want, errs[0].Error())
		})
	}
}
