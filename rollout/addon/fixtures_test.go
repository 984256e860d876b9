package addon_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/internal/seed"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Spec hashes of the seed's ManagedProxyConfiguration and of its edits.
const (
	oldHash = "27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1" // seed: both images vX.Y.Z
	newHash = "d2c1bae8a01bb424ec2bd6b3cb5bb3692dd3faab365996ce6b2d89a4d339b222" // Helm upgrade: both images v1.2.3
	newTag  = "quay.io/open-cluster-management/cluster-proxy:v1.2.3"
)

var (
	proxyGR       = addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	proxyReferent = addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	seedPlacement = addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
)

// readMCAs decodes a testdata file, a single ManagedClusterAddOn or a
// kubectl List of them, strictly.
func readMCAs(t testing.TB, name string) []*addonv1beta1.ManagedClusterAddOn {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var probe struct {
		Kind string `json:"kind"`
	}
	require.NoError(t, yaml.Unmarshal(data, &probe))
	if probe.Kind == "List" {
		var list addonv1beta1.ManagedClusterAddOnList
		require.NoError(t, yaml.UnmarshalStrict(data, &list))
		out := make([]*addonv1beta1.ManagedClusterAddOn, len(list.Items))
		for i := range list.Items {
			out[i] = &list.Items[i]
		}
		return out
	}
	mca := &addonv1beta1.ManagedClusterAddOn{}
	require.NoError(t, yaml.UnmarshalStrict(data, mca))
	return []*addonv1beta1.ManagedClusterAddOn{mca}
}

func readMCA(t testing.TB, name string) *addonv1beta1.ManagedClusterAddOn {
	t.Helper()
	mcas := readMCAs(t, name)
	require.Len(t, mcas, 1)
	return mcas[0]
}

func seedCMA(t testing.TB) *addonv1beta1.ClusterManagementAddOn {
	t.Helper()
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	return cma
}

// proxyConfig returns the seed's ManagedProxyConfiguration with the given
// fields (dotted paths under spec) set to newTag.
func proxyConfig(t testing.TB, images ...string) *unstructured.Unstructured {
	t.Helper()
	cfg, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	for _, component := range images {
		require.NoError(t, unstructured.SetNestedField(cfg.Object, newTag, "spec", component, "image"))
	}
	return cfg
}

// lookup serves the spec hash of the given ManagedProxyConfigurations (by
// name), computed with hash.Spec, and an error for anything else.
func lookup(t testing.TB, cfgs ...*unstructured.Unstructured) addon.SpecHashFunc {
	t.Helper()
	hashes := map[addonv1beta1.ConfigReferent]string{}
	for _, cfg := range cfgs {
		h, err := hash.Spec(cfg)
		require.NoError(t, err)
		hashes[addonv1beta1.ConfigReferent{Namespace: cfg.GetNamespace(), Name: cfg.GetName()}] = h
	}
	return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		if h, ok := hashes[r]; ok && gr == proxyGR {
			return h, nil
		}
		return "", errNotFound
	}
}

var errNotFound = errors.New("not found")

// table is a SpecHashFunc over "group/resource/namespace/name" keys.
func table(hashes map[string]string) addon.SpecHashFunc {
	return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		if h, ok := hashes[gr.Group+"/"+gr.Resource+"/"+r.Namespace+"/"+r.Name]; ok {
			return h, nil
		}
		return "", errNotFound
	}
}

// names returns a SpecHashFunc that answers "h-<resource>-<name>" for any
// config.
func names() addon.SpecHashFunc {
	return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		return "h-" + gr.Resource + "-" + r.Name, nil
	}
}

func cfg(group, resource, namespace, name, specHash string) addon.Config {
	return addon.Config{
		GroupResource: addonv1beta1.ConfigGroupResource{Group: group, Resource: resource},
		Referent:      addonv1beta1.ConfigReferent{Namespace: namespace, Name: name},
		SpecHash:      specHash,
	}
}

func addOnConfig(group, resource, namespace, name string) addonv1beta1.AddOnConfig {
	return addonv1beta1.AddOnConfig{
		ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: group, Resource: resource},
		ConfigReferent:      addonv1beta1.ConfigReferent{Namespace: namespace, Name: name},
	}
}
