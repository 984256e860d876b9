package hubplan

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ImageFunc returns the add-on's desired image the config gr/ref gives;
// "" when it gives none.
type ImageFunc func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) string

// ConfigImage is the add-on's desired image a config object gives: its
// spec.proxyAgent.image, where a ManagedProxyConfiguration (cluster-proxy)
// names its agent's image; "" for a config without one, or whose field is
// not a string.
func ConfigImage(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	image, found, err := unstructured.NestedString(obj.Object, "spec", "proxyAgent", "image")
	if err != nil || !found {
		return "" // not a string: not an image
	}
	return image
}

// revisionConfigs lists the configs of placement ref's revision: its
// desired configs (addon.PlacementConfigs), sorted, each with its spec
// hash and the image it gives. A rendering revision has the same configs:
// they did not change, the rendering did.
func revisionConfigs(cma *addonv1beta1.ClusterManagementAddOn, ref addonv1beta1.PlacementRef, specHash addon.SpecHashFunc,
	images ImageFunc) ([]v1alpha1.RevisionConfig, error) {
	desired, err := addon.PlacementConfigs(cma, ref, specHash)
	if err != nil || len(desired) == 0 {
		return nil, err
	}
	out := make([]v1alpha1.RevisionConfig, len(desired))
	for i, c := range desired {
		out[i] = v1alpha1.RevisionConfig{Group: c.GroupResource.Group, Resource: c.GroupResource.Resource,
			Namespace: c.Referent.Namespace, Name: c.Referent.Name, SpecHash: c.SpecHash}
		if images != nil {
			out[i].Image = images(c.GroupResource, c.Referent)
		}
	}
	return out, nil
}

// ConfigRef names a config of a revision: resource[.group]
// [namespace/]name, e.g. "managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy".
func ConfigRef(c v1alpha1.RevisionConfig) string {
	what := c.Resource
	if c.Group != "" {
		what += "." + c.Group
	}
	if c.Namespace != "" {
		return what + " " + c.Namespace + "/" + c.Name
	}
	return what + " " + c.Name
}

// ConfigsText words a revision's configs on one line, for an event or a
// CLI: each as resource[.group] [namespace/]name, the first 12 digits of
// its spec hash and its image, "; " between them.
func ConfigsText(configs []v1alpha1.RevisionConfig) string {
	if len(configs) == 0 {
		return "no configs"
	}
	parts := make([]string, len(configs))
	for i, c := range configs {
		hash := c.SpecHash
		if len(hash) > 12 {
			hash = hash[:12]
		}
		parts[i] = fmt.Sprintf("%s spec %s", ConfigRef(c), hash)
		if c.Image != "" {
			parts[i] += " image " + c.Image
		}
	}
	return strings.Join(parts, "; ")
}

// HasConfigs reports whether cma's add-ons run with configs: it names
// default configs, or configs of an install-strategy placement. The work
// gate holds the content of a cluster the rollout has handed none yet.
func HasConfigs(cma *addonv1beta1.ClusterManagementAddOn) bool {
	if cma == nil {
		return false
	}
	if len(cma.Spec.DefaultConfigs) > 0 {
		return true
	}
	for _, p := range cma.Spec.InstallStrategy.Placements {
		if len(p.Configs) > 0 {
			return true
		}
	}
	return false
}
