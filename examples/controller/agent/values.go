package agent

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// values are what an add-on's desired configs give its rendered agent: the
// image (a ManagedProxyConfiguration's), and an AddOnDeploymentConfig's
// customized variables (the container's environment, in order), node
// placement and image registries, as addon-framework hands them to an
// add-on's manifests.
type values struct {
	image        string
	env          []corev1.EnvVar
	nodeSelector map[string]string
	tolerations  []corev1.Toleration
	registries   []addonv1alpha1.ImageMirror
}

// DeploymentConfigKind is the kind of addon-framework's own config,
// AddOnDeploymentConfig, whose changes a Deployer that renders by name
// renders on.
func DeploymentConfigKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: addonv1alpha1.GroupName, Version: "v1alpha1", Kind: "AddOnDeploymentConfig"}
}

// add takes what config gives the agent into v.
func (v *values) add(config *unstructured.Unstructured) error {
	if img := AgentImage(config); img != "" {
		v.image = img
	}
	if config.GroupVersionKind().GroupKind() != DeploymentConfigKind().GroupKind() {
		return nil
	}
	raw, _, err := unstructured.NestedMap(config.Object, "spec")
	if err != nil {
		return fmt.Errorf("AddOnDeploymentConfig %s/%s: %w", config.GetNamespace(), config.GetName(), err)
	}
	var spec addonv1alpha1.AddOnDeploymentConfigSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec); err != nil {
		return fmt.Errorf("AddOnDeploymentConfig %s/%s: decoding its spec: %w", config.GetNamespace(), config.GetName(), err)
	}
	for _, cv := range spec.CustomizedVariables {
		v.env = append(v.env, corev1.EnvVar{Name: cv.Name, Value: cv.Value})
	}
	if p := spec.NodePlacement; p != nil {
		v.nodeSelector, v.tolerations = p.NodeSelector, p.Tolerations
	}
	v.registries = spec.Registries
	return nil
}

// agentImage is v's image, pulled from the first registry mirror whose
// source it starts with, as addon-framework's OverrideImage does.
func (v values) agentImage() string {
	for _, r := range v.registries {
		if r.Source != "" && strings.HasPrefix(v.image, r.Source) {
			return r.Mirror + strings.TrimPrefix(v.image, r.Source)
		}
	}
	return v.image
}
