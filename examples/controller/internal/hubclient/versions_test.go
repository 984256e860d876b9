package hubclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var proxyGR = addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}

// stored returns the same ManagedClusterAddOn in each version, as the hub
// stores it: the agent has applied config "old" and reports Completed.
func stored(version string) client.Object {
	cond := metav1.Condition{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed", Message: "completed with no errors."}
	if version == V1alpha1 {
		return &addonv1alpha1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy", ResourceVersion: "7"},
			Status: addonv1alpha1.ManagedClusterAddOnStatus{
				Conditions: []metav1.Condition{cond},
				ConfigReferences: []addonv1alpha1.ConfigReference{{
					ConfigGroupResource: addonv1alpha1.ConfigGroupResource(proxyGR),
					ConfigReferent:      addonv1alpha1.ConfigReferent{Name: "cluster-proxy"},
					DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"},
					LastAppliedConfig:   &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"},
				}},
			},
		}
	}
	return &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy", ResourceVersion: "7"},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{cond},
			ConfigReferences: []addonv1beta1.ConfigReference{{
				ConfigGroupResource: proxyGR,
				DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"},
				LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"},
			}},
		},
	}
}

func TestAddonAPIRoundTrip(t *testing.T) {
	t.Parallel()
	for _, version := range []string{V1alpha1, V1beta1} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			api, err := NewAddonAPI(version)
			require.NoError(t, err)
			obj := stored(version)
			orig := obj.DeepCopyObject()

			mca, err := api.Snapshot().MCA(obj)
			require.NoError(t, err)
			require.Len(t, mca.Status.ConfigReferences, 1)
			assert.Equal(t, "old", mca.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)

			refs := []addonv1beta1.ConfigReference{{
				ConfigGroupResource: proxyGR,
				DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"},
				LastAppliedConfig:   mca.Status.ConfigReferences[0].LastAppliedConfig,
			}}
			conds := append(mca.Status.Conditions, metav1.Condition{Type: "Configured", Status: metav1.ConditionTrue, Reason: "ConfigurationsConfigured", Message: "Configurations configured"})
			next, err := api.WithAddonStatus(obj, refs, conds)
			require.NoError(t, err)
			assert.Equal(t, orig, obj, "the object read was modified")
			assert.False(t, sameAddonStatus(obj, next))

			back, err := api.Snapshot().MCA(next)
			require.NoError(t, err)
			assert.Equal(t, "new", back.Status.ConfigReferences[0].DesiredConfig.SpecHash)
			assert.Equal(t, "old", back.Status.ConfigReferences[0].LastAppliedConfig.SpecHash, "the agent's lastAppliedConfig was lost")
			assert.NotNil(t, meta.FindStatusCondition(back.Status.Conditions, "Progressing"), "the agent's condition was lost")
			assert.NotNil(t, meta.FindStatusCondition(back.Status.Conditions, "Configured"))
			if a, ok := next.(*addonv1alpha1.ManagedClusterAddOn); ok {
				assert.Equal(t, "cluster-proxy", a.Status.ConfigReferences[0].Name, "v1alpha1 names the config beside its hashes")
			}
			again, err := api.WithAddonStatus(next, refs, conds)
			require.NoError(t, err)
			assert.True(t, sameAddonStatus(next, again), "an unchanged status would be written")
		})
	}
}

func TestAddonAPIClusterManagementAddOn(t *testing.T) {
	t.Parallel()
	alpha := &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			SupportedConfigs: []addonv1alpha1.ConfigMeta{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource(proxyGR),
				DefaultConfig:       &addonv1alpha1.ConfigReferent{Name: "cluster-proxy"},
			}},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements},
		},
	}
	api, err := NewAddonAPI(V1alpha1)
	require.NoError(t, err)
	cma, err := api.Snapshot().CMA(alpha)
	require.NoError(t, err)
	require.Len(t, cma.Spec.DefaultConfigs, 1, "v1alpha1's supportedConfigs[].defaultConfig is v1beta1's defaultConfigs")
	assert.Equal(t, "cluster-proxy", cma.Spec.DefaultConfigs[0].Name)

	ips := []addonv1beta1.InstallProgression{{
		PlacementRef:     addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"},
		ConfigReferences: []addonv1beta1.InstallConfigReference{{ConfigGroupResource: proxyGR, DesiredConfig: &addonv1beta1.ConfigSpecHash{SpecHash: "new"}}},
	}}
	next, err := api.WithProgressions(alpha, ips)
	require.NoError(t, err)
	got := next.(*addonv1alpha1.ClusterManagementAddOn)
	require.Len(t, got.Status.InstallProgressions, 1)
	assert.Equal(t, "new", got.Status.InstallProgressions[0].ConfigReferences[0].DesiredConfig.SpecHash)
	assert.Empty(t, alpha.Status.InstallProgressions, "the object read was modified")
}

func TestNewAddonAPI(t *testing.T) {
	t.Parallel()
	_, err := NewAddonAPI("v2")
	require.EqualError(t, err, `add-on API version "v2": want v1alpha1 or v1beta1`)
}

// TestSnapshotConvertsAsTheWebhook: the v1beta1 form of a v1alpha1 add-on
// is the one OCM's conversion webhook serves (addonversion): the install
// namespace an annotation, the type v1beta1; the status written back in
// v1alpha1 leaves the spec as read.
func TestSnapshotConvertsAsTheWebhook(t *testing.T) {
	t.Parallel()
	api, err := NewAddonAPI(V1alpha1)
	require.NoError(t, err)
	obj := stored(V1alpha1).(*addonv1alpha1.ManagedClusterAddOn)
	obj.Spec.InstallNamespace = "open-cluster-management-agent-addon"
	mca, err := api.Snapshot().MCA(obj)
	require.NoError(t, err)
	assert.Equal(t, addonv1beta1.GroupVersion.String(), mca.APIVersion)
	assert.Equal(t, "open-cluster-management-agent-addon", mca.Annotations[addonv1beta1.InstallNamespaceAnnotation])
	assert.Empty(t, obj.Annotations, "the object read was modified")

	next, err := api.WithAddonStatus(obj, mca.Status.ConfigReferences, mca.Status.Conditions)
	require.NoError(t, err)
	assert.Equal(t, obj.Spec, next.(*addonv1alpha1.ManagedClusterAddOn).Spec)
	assert.True(t, sameAddonStatus(obj, next), "a status read and written back unchanged differs")
}
