package main

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// addonVersion checks that a ClusterManagementAddOn or ManagedClusterAddOn
// is of a version plan reads: v1beta1, which the planner works in, or
// v1alpha1, which hubs store and `kubectl get` prints by default. It tells
// whether the object is v1alpha1. Reading one version as the other would
// silently drop fields (a v1alpha1 CMA's supportedConfigs, the default
// configs), so every other version, and none, is refused.
func addonVersion(apiVersion string) (v1alpha1 bool, err error) {
	want := fmt.Sprintf("want %s or %s", addonv1beta1.GroupVersion, addonv1alpha1.GroupVersion)
	if apiVersion == "" {
		return false, fmt.Errorf("no apiVersion: %s", want)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err == nil && gv.Group == addonv1beta1.GroupName {
		switch gv.Version {
		case addonv1beta1.GroupVersion.Version:
			return false, nil
		case addonv1alpha1.GroupVersion.Version:
			return true, nil
		}
	}
	return false, fmt.Errorf("apiVersion %q: %s", apiVersion, want)
}

// decodeClusterManagementAddOn decodes a ClusterManagementAddOn of either
// version as a v1beta1 one. A v1alpha1 one is converted as OCM's conversion
// webhook converts it: spec.supportedConfigs[].defaultConfig become
// spec.defaultConfigs, and a supported config without a default becomes an
// entry named addonv1beta1.ReservedNoDefaultConfigName, which contributes no
// config. The deprecated spec.addOnConfiguration is dropped: OCM rolls out
// no config named there.
func decodeClusterManagementAddOn(js []byte, apiVersion string, into *[]*addonv1beta1.ClusterManagementAddOn) error {
	v1alpha1, err := addonVersion(apiVersion)
	if err != nil {
		return err
	}
	out := &addonv1beta1.ClusterManagementAddOn{}
	if !v1alpha1 {
		if err := json.Unmarshal(js, out); err != nil {
			return err
		}
		*into = append(*into, out)
		return nil
	}
	in := &addonv1alpha1.ClusterManagementAddOn{}
	if err := json.Unmarshal(js, in); err != nil {
		return err
	}
	if err := addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn(in, out, nil); err != nil {
		return fmt.Errorf("converting to %s: %w", addonv1beta1.GroupVersion, err)
	}
	out.TypeMeta = typeMeta("ClusterManagementAddOn")
	*into = append(*into, out)
	return nil
}

// decodeManagedClusterAddOn decodes a ManagedClusterAddOn of either version
// as a v1beta1 one. A v1alpha1 one is converted as OCM's conversion webhook
// converts it: spec.installNamespace moves to the annotation
// addonv1beta1.InstallNamespaceAnnotation, and each
// status.configReferences[] keeps only its desiredConfig to name the config.
// A reference whose own name is not the one in its desiredConfig (or that
// has no desiredConfig) would lose the config the planner compares, so it is
// refused (checkConfigReferents).
func decodeManagedClusterAddOn(js []byte, apiVersion string, into *[]*addonv1beta1.ManagedClusterAddOn) error {
	v1alpha1, err := addonVersion(apiVersion)
	if err != nil {
		return err
	}
	out := &addonv1beta1.ManagedClusterAddOn{}
	if !v1alpha1 {
		if err := json.Unmarshal(js, out); err != nil {
			return err
		}
		*into = append(*into, out)
		return nil
	}
	in := &addonv1alpha1.ManagedClusterAddOn{}
	if err := json.Unmarshal(js, in); err != nil {
		return err
	}
	if errs := checkConfigReferents(in); len(errs) > 0 {
		return errs.ToAggregate()
	}
	if err := addonv1beta1.Convert_v1alpha1_ManagedClusterAddOn_To_v1beta1_ManagedClusterAddOn(in, out, nil); err != nil {
		return fmt.Errorf("converting to %s: %w", addonv1beta1.GroupVersion, err)
	}
	out.TypeMeta = typeMeta("ManagedClusterAddOn")
	if in.Spec.InstallNamespace != "" {
		// The conversion shares the annotations with in, which is ours.
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[addonv1beta1.InstallNamespaceAnnotation] = in.Spec.InstallNamespace
	}
	*into = append(*into, out)
	return nil
}

// checkConfigReferents finds the status.configReferences of a v1alpha1
// ManagedClusterAddOn that name a config (the deprecated name and namespace
// beside the hashes) other than their desiredConfig, or that have no
// desiredConfig. v1beta1 names the config only in desiredConfig, so
// converting such a reference would compare the wrong config, or none, with
// the desired one.
func checkConfigReferents(mca *addonv1alpha1.ManagedClusterAddOn) field.ErrorList {
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

// typeMeta is the type of a converted add-on object of kind.
func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: addonv1beta1.GroupVersion.String(), Kind: kind}
}

// named returns kind with the namespace/name (or name) of the object in js,
// quoted, for errors about the object, some of which come before it is
// decoded; kind alone when its metadata cannot be read (the decoder then
// says why).
func named(kind string, js []byte) string {
	var obj struct {
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(js, &obj) != nil || obj.Metadata.Name == "" {
		return kind
	}
	name := obj.Metadata.Name
	if obj.Metadata.Namespace != "" {
		name = obj.Metadata.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %q", kind, name)
}
