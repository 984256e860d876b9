package addonversion

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// The kinds this package converts.
const (
	ClusterManagementAddOn = "ClusterManagementAddOn"
	ManagedClusterAddOn    = "ManagedClusterAddOn"
)

// ClusterManagementAddOnToV1beta1 converts a v1alpha1 ClusterManagementAddOn
// to v1beta1: spec.supportedConfigs[].defaultConfig become
// spec.defaultConfigs, and a supported config without a default an entry
// named addonv1beta1.ReservedNoDefaultConfigName, which contributes no
// config. The deprecated spec.addOnConfiguration is dropped, as OCM drops
// it: OCM rolls out no config named there.
func ClusterManagementAddOnToV1beta1(in *addonv1alpha1.ClusterManagementAddOn) (*addonv1beta1.ClusterManagementAddOn, error) {
	out := &addonv1beta1.ClusterManagementAddOn{}
	if err := addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn(in.DeepCopy(), out, nil); err != nil {
		return nil, convertError(ClusterManagementAddOn, in, addonv1beta1.GroupVersion.Version, err)
	}
	out.TypeMeta = typeMeta(addonv1beta1.GroupVersion.String(), ClusterManagementAddOn)
	return out, nil
}

// ClusterManagementAddOnToV1alpha1 converts a v1beta1 ClusterManagementAddOn
// to v1alpha1: each of spec.defaultConfigs becomes a spec.supportedConfigs
// entry with that defaultConfig, one named
// addonv1beta1.ReservedNoDefaultConfigName an entry without one.
func ClusterManagementAddOnToV1alpha1(in *addonv1beta1.ClusterManagementAddOn) (*addonv1alpha1.ClusterManagementAddOn, error) {
	out := &addonv1alpha1.ClusterManagementAddOn{}
	if err := addonv1beta1.Convert_v1beta1_ClusterManagementAddOn_To_v1alpha1_ClusterManagementAddOn(in.DeepCopy(), out, nil); err != nil {
		return nil, convertError(ClusterManagementAddOn, in, addonv1alpha1.GroupVersion.Version, err)
	}
	out.TypeMeta = typeMeta(addonv1alpha1.GroupVersion.String(), ClusterManagementAddOn)
	return out, nil
}

// ManagedClusterAddOnToV1beta1 converts a v1alpha1 ManagedClusterAddOn to
// v1beta1: spec.installNamespace moves to the annotation
// addonv1beta1.InstallNamespaceAnnotation, and each
// status.configReferences[] keeps only its desiredConfig to name the
// config (see CheckReferences for what that loses).
func ManagedClusterAddOnToV1beta1(in *addonv1alpha1.ManagedClusterAddOn) (*addonv1beta1.ManagedClusterAddOn, error) {
	out := &addonv1beta1.ManagedClusterAddOn{}
	if err := addonv1beta1.Convert_v1alpha1_ManagedClusterAddOn_To_v1beta1_ManagedClusterAddOn(in.DeepCopy(), out, nil); err != nil {
		return nil, convertError(ManagedClusterAddOn, in, addonv1beta1.GroupVersion.Version, err)
	}
	out.TypeMeta = typeMeta(addonv1beta1.GroupVersion.String(), ManagedClusterAddOn)
	if in.Spec.InstallNamespace != "" {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[addonv1beta1.InstallNamespaceAnnotation] = in.Spec.InstallNamespace
	}
	return out, nil
}

// ManagedClusterAddOnToV1alpha1 converts a v1beta1 ManagedClusterAddOn to
// v1alpha1: the annotation addonv1beta1.InstallNamespaceAnnotation becomes
// spec.installNamespace again (and is removed), and each
// status.configReferences[] with a desiredConfig is named after it
// (ConfigReferenceToV1alpha1).
func ManagedClusterAddOnToV1alpha1(in *addonv1beta1.ManagedClusterAddOn) (*addonv1alpha1.ManagedClusterAddOn, error) {
	out := &addonv1alpha1.ManagedClusterAddOn{}
	if err := addonv1beta1.Convert_v1beta1_ManagedClusterAddOn_To_v1alpha1_ManagedClusterAddOn(in.DeepCopy(), out, nil); err != nil {
		return nil, convertError(ManagedClusterAddOn, in, addonv1alpha1.GroupVersion.Version, err)
	}
	out.TypeMeta = typeMeta(addonv1alpha1.GroupVersion.String(), ManagedClusterAddOn)
	if ns, ok := out.Annotations[addonv1beta1.InstallNamespaceAnnotation]; ok {
		out.Spec.InstallNamespace = ns
		delete(out.Annotations, addonv1beta1.InstallNamespaceAnnotation)
		if len(out.Annotations) == 0 {
			out.Annotations = nil
		}
	}
	for i := range out.Status.ConfigReferences {
		nameAfterDesired(&out.Status.ConfigReferences[i])
	}
	return out, nil
}

// ConfigReferenceToV1alpha1 converts one v1beta1 status.configReferences[]
// entry of a ManagedClusterAddOn to v1alpha1, named after its
// desiredConfig; one without a desiredConfig has no name.
func ConfigReferenceToV1alpha1(in *addonv1beta1.ConfigReference) (addonv1alpha1.ConfigReference, error) {
	var out addonv1alpha1.ConfigReference
	if err := addonv1beta1.Convert_v1beta1_ConfigReference_To_v1alpha1_ConfigReference(in.DeepCopy(), &out, nil); err != nil {
		return out, fmt.Errorf("converting a config reference of %s.%s to %s: %w", in.Resource, in.Group, addonv1alpha1.GroupVersion, err)
	}
	nameAfterDesired(&out)
	return out, nil
}

// nameAfterDesired gives a v1alpha1 reference the name of its
// desiredConfig, as OCM's webhook does: v1beta1 has no other.
func nameAfterDesired(r *addonv1alpha1.ConfigReference) {
	if r.DesiredConfig != nil {
		r.ConfigReferent = r.DesiredConfig.ConfigReferent
	}
}

// CheckReferences finds the status.configReferences of a v1alpha1
// ManagedClusterAddOn that the conversion to v1beta1 would lose: those
// that name a config (the deprecated name and namespace beside the hashes)
// other than their desiredConfig, and those that name one and have no
// desiredConfig. v1beta1 names the config only in desiredConfig, so the
// converted reference would compare the wrong config, or none, with the
// desired one.
func CheckReferences(mca *addonv1alpha1.ManagedClusterAddOn) field.ErrorList {
	var errs field.ErrorList
	refs := field.NewPath("status", "configReferences")
	for i, r := range mca.Status.ConfigReferences {
		if r.ConfigReferent == (addonv1alpha1.ConfigReferent{}) {
			continue // named by desiredConfig alone, as v1beta1 does
		}
		config := fmt.Sprintf("%s.%s %q", r.Resource, r.Group, referentName(r.ConfigReferent))
		switch {
		case r.DesiredConfig == nil:
			errs = append(errs, field.Required(refs.Index(i).Child("desiredConfig"),
				fmt.Sprintf("the desired config and spec hash of %s: %s names the config only in desiredConfig", config, addonv1beta1.GroupVersion)))
		case r.DesiredConfig.ConfigReferent != r.ConfigReferent:
			errs = append(errs, field.Invalid(refs.Index(i).Child("desiredConfig", "name"), referentName(r.DesiredConfig.ConfigReferent),
				fmt.Sprintf("want %s, which the reference names: %s names the config only in desiredConfig", config, addonv1beta1.GroupVersion)))
		}
	}
	return errs
}

// referentName is a config's namespace/name, or its name when it is
// cluster-scoped.
func referentName(r addonv1alpha1.ConfigReferent) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// convertError names the object that did not convert, and the version it
// was converted to.
func convertError(kind string, obj metav1.Object, version string, err error) error {
	name := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Errorf("converting %s %q to %s: %w", kind, name, version, err)
}
