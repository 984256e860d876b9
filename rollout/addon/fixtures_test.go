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

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
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

// proxyConfig returns the seed's ManagedProxyConfiguration with the given
// fields (dotted paths under spec) set to addontest.NewTag.
func proxyConfig(t testing.TB, images ...string) *unstructured.Unstructured {
	t.Helper()
	cfg, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	for _, component := range images {
		require.NoError(t, unstructured.SetNestedField(cfg.Object, addontest.NewTag, "spec", component, "image"))
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
		if h, ok := hashes[r]; ok && gr == addontest.ProxyGR() {
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
