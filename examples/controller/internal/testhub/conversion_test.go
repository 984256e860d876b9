package testhub

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

const (
	alphaCMA = `{"apiVersion":"addon.open-cluster-management.io/v1alpha1","kind":"ClusterManagementAddOn","metadata":{"name":"cluster-proxy"},` +
		`"spec":{"supportedConfigs":[{"group":"proxy.open-cluster-management.io","resource":"managedproxyconfigurations","defaultConfig":{"name":"cluster-proxy"}},` +
		`{"group":"addon.open-cluster-management.io","resource":"addondeploymentconfigs"}]}}`
	betaMCA = `{"apiVersion":"addon.open-cluster-management.io/v1beta1","kind":"ManagedClusterAddOn",` +
		`"metadata":{"name":"cluster-proxy","namespace":"dev-cluster","annotations":{"addon.open-cluster-management.io/v1alpha1-install-namespace":"agents"}},` +
		`"status":{"configReferences":[{"group":"proxy.open-cluster-management.io","resource":"managedproxyconfigurations",` +
		`"desiredConfig":{"name":"cluster-proxy","specHash":"new"}}]}}`
)

// TestConvertReview converts reviews as the API server sends them, without
// an API server.
func TestConvertReview(t *testing.T) {
	t.Parallel()
	alpha, beta := addonv1alpha1.GroupVersion.String(), addonv1beta1.GroupVersion.String()
	tests := []struct {
		name    string
		objects []string
		desired string
		check   func(t *testing.T, converted []runtime.RawExtension)
		failure string // the failure's message, "" for success
	}{
		{name: "a v1alpha1 ClusterManagementAddOn to v1beta1", objects: []string{alphaCMA}, desired: beta,
			check: func(t *testing.T, converted []runtime.RawExtension) {
				var cma addonv1beta1.ClusterManagementAddOn
				require.NoError(t, json.Unmarshal(converted[0].Raw, &cma))
				assert.Equal(t, beta, cma.APIVersion)
				assert.Equal(t, []addonv1beta1.AddOnConfig{
					{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
						ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}},
					{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
						ConfigReferent: addonv1beta1.ConfigReferent{Name: addonv1beta1.ReservedNoDefaultConfigName}},
				}, cma.Spec.DefaultConfigs)
			}},
		{name: "a v1beta1 ManagedClusterAddOn to v1alpha1", objects: []string{betaMCA}, desired: alpha,
			check: func(t *testing.T, converted []runtime.RawExtension) {
				var mca addonv1alpha1.ManagedClusterAddOn
				require.NoError(t, json.Unmarshal(converted[0].Raw, &mca))
				assert.Equal(t, alpha, mca.APIVersion)
				assert.Equal(t, "agents", mca.Spec.InstallNamespace)
				assert.Empty(t, mca.Annotations)
				assert.Equal(t, "cluster-proxy", mca.Status.ConfigReferences[0].Name, "named after its desiredConfig")
			}},
		{name: "already in the version desired: as it is", objects: []string{alphaCMA, betaMCA}, desired: beta,
			check: func(t *testing.T, converted []runtime.RawExtension) {
				require.Len(t, converted, 2)
				assert.JSONEq(t, betaMCA, string(converted[1].Raw))
			}},
		{name: "a kind of its own", objects: []string{alphaCMA, `{"apiVersion":"example.com/v1","kind":"Thing"}`}, desired: beta,
			failure: "rolloutkit test hub: converting objects[1] to addon.open-cluster-management.io/v1beta1: example.com/v1 Thing: " +
				"want a ClusterManagementAddOn or a ManagedClusterAddOn of addon.open-cluster-management.io/v1alpha1 or addon.open-cluster-management.io/v1beta1, to the other version"},
		{name: "a version neither", objects: []string{alphaCMA}, desired: "addon.open-cluster-management.io/v2",
			failure: "rolloutkit test hub: converting objects[0] to addon.open-cluster-management.io/v2: addon.open-cluster-management.io/v1alpha1 ClusterManagementAddOn: " +
				"want a ClusterManagementAddOn or a ManagedClusterAddOn of addon.open-cluster-management.io/v1alpha1 or addon.open-cluster-management.io/v1beta1, to the other version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := &apiextensionsv1.ConversionRequest{UID: "uid-1", DesiredAPIVersion: tt.desired}
			for _, o := range tt.objects {
				req.Objects = append(req.Objects, runtime.RawExtension{Raw: []byte(o)})
			}
			resp := convertReview(req)
			assert.Equal(t, req.UID, resp.UID)
			if tt.failure != "" {
				assert.Equal(t, metav1.Status{Status: metav1.StatusFailure, Message: tt.failure}, resp.Result)
				assert.Empty(t, resp.ConvertedObjects)
				return
			}
			assert.Equal(t, metav1.StatusSuccess, resp.Result.Status)
			require.Len(t, resp.ConvertedObjects, len(tt.objects))
			tt.check(t, resp.ConvertedObjects)
		})
	}
}
