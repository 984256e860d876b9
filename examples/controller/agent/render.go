package agent

import (
	"encoding/json"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// AgentNamespace is the namespace of the rendered agent on the cluster.
const AgentNamespace = "open-cluster-management-agent-addon"

// WorkName is the name of the ManifestWork that carries addon's agent to a
// cluster, the name addon-framework gives the first (here the only) deploy
// work of an add-on.
func WorkName(addon string) string {
	return "addon-" + addon + "-deploy-0"
}

// Target names the configs of a config-spec-hash map by their spec hashes,
// in the order of their keys, joined with commas: the target Options.Fail
// is given. With one config it is that config's spec hash.
func Target(hashes map[string]string) string {
	keys := make([]string, 0, len(hashes))
	for k := range hashes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = hashes[k]
	}
	return strings.Join(out, ",")
}

// WorkTarget is Target of a work's config-spec-hash annotation; a work
// without one (or with one that is not a JSON object of strings) has the
// empty target.
func WorkTarget(w *workv1.ManifestWork) string {
	hashes, ok := workHashes(w)
	if !ok {
		return ""
	}
	return Target(hashes)
}

// workHashes decodes a work's config-spec-hash annotation; a nil work has
// none.
func workHashes(w *workv1.ManifestWork) (map[string]string, bool) {
	if w == nil {
		return nil, false
	}
	raw, ok := w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey]
	if !ok {
		return nil, false
	}
	var hashes map[string]string
	if err := json.Unmarshal([]byte(raw), &hashes); err != nil {
		return nil, false
	}
	return hashes, true
}

// AgentImage is the agent image a config object gives: the seed's
// ManagedProxyConfiguration spec.proxyAgent.image; "" for any other config.
func AgentImage(config *unstructured.Unstructured) string {
	image, _, err := unstructured.NestedString(config.Object, "spec", "proxyAgent", "image")
	if err != nil {
		return "" // not a string: not an image this add-on knows
	}
	return image
}

// renderWork returns the deploy work of addon on a cluster: its agent, a
// Deployment of replicas running what v gives, labelled with the add-on's
// name and annotated with the config-spec-hash JSON of hashes.
func renderWork(cluster, addon string, v values, replicas int32, hashes map[string]string) (*workv1.ManifestWork, error) {
	annotation, err := json.Marshal(hashes) // maps marshal with sorted keys
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(agentDeployment(addon, v, replicas))
	if err != nil {
		return nil, err
	}
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   cluster,
			Name:        WorkName(addon),
			Labels:      map[string]string{addonv1alpha1.AddonLabelKey: addon},
			Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: string(annotation)},
		},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}},
		}},
	}, nil
}

// agentDeployment is addon's agent as it runs on a cluster: v's image,
// environment and node placement.
func agentDeployment(addon string, v values, replicas int32) *appsv1.Deployment {
	labels := map[string]string{addonv1alpha1.AddonLabelKey: addon}
	name := addon + "-agent"
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: AgentNamespace, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: v.agentImage(), Env: v.env}},
					NodeSelector: v.nodeSelector, Tolerations: v.tolerations},
			},
		},
	}
}

// WorkImages returns the container images of the Deployments a work
// carries, in order: what a person reads in the work to see which agent a
// cluster runs.
func WorkImages(w *workv1.ManifestWork) ([]string, error) {
	var images []string
	for i, m := range w.Spec.Workload.Manifests {
		var d appsv1.Deployment
		if err := json.Unmarshal(m.Raw, &d); err != nil {
			return nil, fmt.Errorf("work %s/%s: manifest %d: %w", w.Namespace, w.Name, i, err)
		}
		if d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
	}
	return images, nil
}

// ProxyConfigKind is the kind of the seed's config object, cluster-proxy's
// ManagedProxyConfiguration, whose changes a Deployer that renders by name
// renders on.
func ProxyConfigKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "proxy.open-cluster-management.io", Version: "v1alpha1", Kind: "ManagedProxyConfiguration"}
}

// workDeployments decodes the Deployments a work carries, in order; nil
// for a nil work, and an error for one that does not decode.
func workDeployments(w *workv1.ManifestWork) ([]appsv1.Deployment, error) {
	if w == nil {
		return nil, nil
	}
	var out []appsv1.Deployment
	for i, m := range w.Spec.Workload.Manifests {
		var d appsv1.Deployment
		if err := json.Unmarshal(m.Raw, &d); err != nil {
			return nil, fmt.Errorf("work %s/%s: manifest %d: %w", w.Namespace, w.Name, i, err)
		}
		if d.Kind == "Deployment" {
			out = append(out, d)
		}
	}
	return out, nil
}

// workReplicas returns the replicas of the Deployments a work carries, in
// order; nil for a nil work or one that does not decode.
func workReplicas(w *workv1.ManifestWork) []int32 {
	if w == nil {
		return nil
	}
	var out []int32
	for _, m := range w.Spec.Workload.Manifests {
		var d appsv1.Deployment
		if json.Unmarshal(m.Raw, &d) != nil || d.Kind != "Deployment" {
			continue
		}
		out = append(out, ptr.Deref(d.Spec.Replicas, 1))
	}
	return out
}
