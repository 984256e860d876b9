package addonversion_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/rolloutkit/rolloutkit/addonversion"
)

// A v1alpha1 ClusterManagementAddOn, as a hub stores it, read as the
// v1beta1 object the hub serves for it.
func ExampleClusterManagementAddOnToV1beta1() {
	alpha := &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{SupportedConfigs: []addonv1alpha1.ConfigMeta{
			{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
				DefaultConfig: &addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}},
			{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}},
		}},
	}
	beta, err := addonversion.ClusterManagementAddOnToV1beta1(alpha)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(beta.APIVersion)
	for _, c := range beta.Spec.DefaultConfigs {
		fmt.Printf("%s.%s %s\n", c.Resource, c.Group, c.Name)
	}
	// Output:
	// addon.open-cluster-management.io/v1beta1
	// managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy
	// addondeploymentconfigs.addon.open-cluster-management.io __reserved_no_default__
}

// A v1alpha1 ManagedClusterAddOn whose config reference names another
// config than its desiredConfig: v1beta1 would keep only the desired one.
func ExampleCheckReferences() {
	mca := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "stg-cluster", Name: "cluster-proxy"},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{ConfigReferences: []addonv1alpha1.ConfigReference{{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
			ConfigReferent:      addonv1alpha1.ConfigReferent{Name: "cluster-proxy"},
			DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "other"}, SpecHash: "27341f6b"},
		}}},
	}
	for _, err := range addonversion.CheckReferences(mca) {
		fmt.Println(err.Field)
	}
	// Output:
	// status.configReferences[0].desiredConfig.name
}
