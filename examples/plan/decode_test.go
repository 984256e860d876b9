package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// TestReadHubKinds reads objects and lists of every sort the scheme meets:
// kinds plan uses, kinds it registers but does not use, kinds it does not
// know, and lists of each.
func TestReadHubKinds(t *testing.T) {
	t.Parallel()
	const (
		alphaCMA = `{"apiVersion":"addon.open-cluster-management.io/v1alpha1","kind":"ClusterManagementAddOn","metadata":{"name":"a"},` +
			`"spec":{"supportedConfigs":[{"group":"proxy.open-cluster-management.io","resource":"managedproxyconfigurations","defaultConfig":{"name":"p"}}]}}`
		// deployConfig is of a kind the scheme knows and plan does not use:
		// a config object, kept as read, its zero values included.
		deployConfig = "apiVersion: addon.open-cluster-management.io/v1alpha1\nkind: AddOnDeploymentConfig\n" +
			"metadata: {name: d, namespace: ns}\nspec: {agentInstallNamespace: agents, customizedVariables: [], unknownField: kept}\n"
		proxyConfig = "apiVersion: proxy.open-cluster-management.io/v1alpha1\nkind: ManagedProxyConfiguration\nmetadata: {name: p}\nspec: {proxyAgent: {image: x}}\n"
	)
	type counts struct{ cmas, mcas, clusters, others int }
	tests := []struct {
		name    string
		input   string
		want    counts
		ignored map[string]int
	}{
		{"kubectl's List, nested", "apiVersion: v1\nkind: List\nitems:\n- " + alphaCMA + "\n- apiVersion: v1\n  kind: List\n  items:\n  - " +
			`{"apiVersion":"cluster.open-cluster-management.io/v1","kind":"ManagedCluster","metadata":{"name":"c"}}` + "\n",
			counts{cmas: 1, clusters: 1}, map[string]int{}},
		{"a typed list, its items without a kind", `{"apiVersion":"addon.open-cluster-management.io/v1alpha1","kind":"ClusterManagementAddOnList","items":[` +
			strings.Replace(alphaCMA, `"apiVersion":"addon.open-cluster-management.io/v1alpha1","kind":"ClusterManagementAddOn",`, "", 1) + "]}",
			counts{cmas: 1}, map[string]int{}},
		{"a list of a kind plan does not know", "apiVersion: v1\nkind: ConfigMapList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: m}}\n",
			counts{others: 1}, map[string]int{"ConfigMap": 1}},
		{"config objects of a known and an unknown kind", deployConfig + "---\n" + proxyConfig,
			counts{others: 2}, map[string]int{"AddOnDeploymentConfig": 1, "ManagedProxyConfiguration": 1}},
		{"a field OCM's types do not have is ignored", `{"apiVersion":"addon.open-cluster-management.io/v1beta1","kind":"ManagedClusterAddOn",` +
			`"metadata":{"name":"a","namespace":"c"},"spec":{"someday":true}}`, counts{mcas: 1}, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := readHub(strings.NewReader(tt.input), 1<<20)
			require.NoError(t, err)
			assert.Equal(t, tt.want, counts{len(h.cmas), len(h.mcas), len(h.clusters), len(h.others)})
			assert.Equal(t, tt.ignored, h.ignored)
			for _, c := range h.cmas {
				assert.Equal(t, addonv1beta1.GroupVersion.String(), c.APIVersion)
				assert.Equal(t, "p", c.Spec.DefaultConfigs[0].Name, "supportedConfigs[].defaultConfig, converted")
			}
		})
	}
}

// TestReadHubKeepsConfigsAsRead: a config object of a kind the scheme knows
// is kept as the YAML gives it, not as its Go type would print it, so that
// its spec hash is the hub's.
func TestReadHubKeepsConfigsAsRead(t *testing.T) {
	t.Parallel()
	h, err := readHub(strings.NewReader("apiVersion: addon.open-cluster-management.io/v1alpha1\nkind: AddOnDeploymentConfig\n"+
		"metadata: {name: d, namespace: ns}\nspec: {agentInstallNamespace: agents, customizedVariables: [], unknownField: kept}\n"), 1<<20)
	require.NoError(t, err)
	require.Len(t, h.others, 1)
	assert.Equal(t, map[string]any{"agentInstallNamespace": "agents", "customizedVariables": []any{}, "unknownField": "kept"}, h.others[0].Object["spec"])
}

// TestReadHubRefusesUsedKindsOfOtherVersions: an object of a kind plan uses,
// in a version or group it does not read, is refused rather than taken for
// a config object of another kind.
func TestReadHubRefusesUsedKindsOfOtherVersions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, input, want string }{
		{"a Placement of another group", "apiVersion: example.com/v1\nkind: Placement\nmetadata: {name: p, namespace: ns}\n",
			`document 1: Placement "ns/p": apiVersion "example.com/v1": want cluster.open-cluster-management.io/v1beta1`},
		{"a ManifestWork without a version", "kind: ManifestWork\nmetadata: {name: w, namespace: c}\n",
			`document 1: ManifestWork "c/w": no apiVersion: want work.open-cluster-management.io/v1`},
		{"in a list", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: cluster.open-cluster-management.io/v2, kind: ManagedCluster, metadata: {name: c}}\n",
			`document 1, items[0]: ManagedCluster "c": apiVersion "cluster.open-cluster-management.io/v2": want cluster.open-cluster-management.io/v1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readHub(strings.NewReader(tt.input), 1<<20)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
