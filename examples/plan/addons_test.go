package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/hash"
)

// v1alpha1File is a kubectl dump of the seed's hub whose add-on objects are
// v1alpha1, as the hub stores them: dev-cluster is done, stg-cluster soaks
// until 12:23, prod-cluster waits for it.
const v1alpha1File = "testdata/v1alpha1.yaml"

// v1alpha1Now is the time v1alpha1File was dumped at.
const v1alpha1Now = "2026-11-30T12:20:00Z"

// Spec hashes of v1alpha1File's ManagedProxyConfiguration: the one in the
// dump (asserted by TestV1alpha1FileHashes) and the one before it.
const (
	newSpecHash = "27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1"
	oldSpecHash = "d2c1bae8a01bb424ec2bd6b3cb5bb3692dd3faab365996ce6b2d89a4d339b222"
)

// toV1beta1 rewrites the items of the given kinds (ClusterManagementAddOn,
// ManagedClusterAddOn) from v1alpha1 to v1beta1, as the hub's conversion
// webhook serves them. It converts by hand, not with the code under test.
func toV1beta1(kinds ...string) func([]map[string]any) []map[string]any {
	return func(items []map[string]any) []map[string]any {
		for _, it := range items {
			kind, _ := it["kind"].(string)
			if !slices.Contains(kinds, kind) {
				continue
			}
			it["apiVersion"] = addonv1beta1.GroupVersion.String()
			spec, status := object(it, "spec"), object(it, "status")
			switch kind {
			case "ClusterManagementAddOn":
				var defaults []any
				for _, c := range spec["supportedConfigs"].([]any) {
					c := c.(map[string]any)
					d := map[string]any{"group": c["group"], "resource": c["resource"], "name": addonv1beta1.ReservedNoDefaultConfigName}
					if def, ok := c["defaultConfig"].(map[string]any); ok {
						d["name"] = def["name"]
					}
					defaults = append(defaults, d)
				}
				delete(spec, "supportedConfigs")
				spec["defaultConfigs"] = defaults
				status["defaultConfigReferences"] = status["defaultconfigReferences"]
				delete(status, "defaultconfigReferences")
			case "ManagedClusterAddOn":
				object(it, "metadata", "annotations")[addonv1beta1.InstallNamespaceAnnotation] = spec["installNamespace"]
				delete(spec, "installNamespace")
				for _, r := range status["configReferences"].([]any) {
					delete(r.(map[string]any), "name") // v1beta1 names the config in desiredConfig only
				}
			}
		}
		return items
	}
}

// TestPlanAddonVersions plans the same hub with its add-on objects in
// v1alpha1, in v1beta1, and mixed: stg-cluster is soaking, so nothing
// starts, and every version gives the same plan.
func TestPlanAddonVersions(t *testing.T) {
	t.Parallel()
	alpha := mustRead(t, v1alpha1File)
	beta := editItems(t, v1alpha1File, toV1beta1("ClusterManagementAddOn", "ManagedClusterAddOn"))
	require.NotContains(t, beta, "v1alpha1\n  kind: ClusterManagementAddOn")
	require.NotContains(t, beta, "v1alpha1\n  kind: ManagedClusterAddOn")
	// The ClusterManagementAddOn in v1beta1, the add-ons on the clusters in
	// v1alpha1.
	mixed := editItems(t, v1alpha1File, toV1beta1("ClusterManagementAddOn"))
	// The plan of the v1beta1 dump, which plan read correctly before it
	// read v1alpha1, is the reference.
	code, want, errOut := runPlan(t, beta, "-f", "-", "-o", "json", "-now", v1alpha1Now)
	require.Equal(t, 0, code, errOut)
	soakEnd := time.Date(2026, 11, 30, 12, 23, 0, 0, time.UTC)
	for _, tt := range []struct{ name, input string }{
		{"v1alpha1", alpha},
		{"v1beta1", beta},
		{"mixed", mixed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runPlan(t, tt.input, "-f", "-", "-now", v1alpha1Now)
			require.Equal(t, 0, code, errOut)
			assert.NotContains(t, out, `start now: "dev-cluster"`)
			assert.NotContains(t, out, `start now: "prod-cluster"`)
			for _, w := range []string{
				`0      dev    Complete  "dev-cluster"   complete: 1 succeeded`,
				`1      stg    Active    "stg-cluster"   rolling out: 1 soaking; "stg-cluster" soaking until 12:23:00 (3m0s left)`,
				`2      prod   Waiting   "prod-cluster"  waiting for group "stg": "stg-cluster" soaking until 12:23:00 (3m0s left)`,
				`clusters to start now: (none)`,
				`clusters in flight (already updating): "stg-cluster" (soaking until 12:23:00)`,
				`look again in: 3m0s`,
			} {
				assert.Contains(t, out, w)
			}

			code, js, errOut := runPlan(t, tt.input, "-f", "-", "-o", "json", "-now", v1alpha1Now)
			require.Equal(t, 0, code, errOut)
			var got struct {
				Start    []string `json:"start"`
				InFlight []struct {
					Cluster string     `json:"cluster"`
					Status  string     `json:"status"`
					Until   *time.Time `json:"until"`
				} `json:"inFlight"`
			}
			require.NoError(t, json.Unmarshal([]byte(js), &got))
			assert.Empty(t, got.Start, "stg-cluster soaks: nothing may start")
			require.Len(t, got.InFlight, 1)
			assert.Equal(t, "stg-cluster", got.InFlight[0].Cluster)
			assert.Equal(t, "Succeeded", got.InFlight[0].Status)
			require.NotNil(t, got.InFlight[0].Until)
			assert.Equal(t, soakEnd, got.InFlight[0].Until.UTC())
			assert.JSONEq(t, want, js, "the same plan in every version")
		})
	}
}

// TestReadHubConvertsV1alpha1Addons reads the add-on objects of
// v1alpha1File as the v1beta1 objects the hub serves for them.
func TestReadHubConvertsV1alpha1Addons(t *testing.T) {
	t.Parallel()
	alpha := readHubFile(t, v1alpha1File)
	beta, err := readHub(strings.NewReader(editItems(t, v1alpha1File, toV1beta1("ClusterManagementAddOn", "ManagedClusterAddOn"))), 1<<20)
	require.NoError(t, err)
	assert.Equal(t, beta.cmas, alpha.cmas)
	assert.Equal(t, beta.mcas, alpha.mcas)
	require.Len(t, alpha.cmas, 1)
	cma := alpha.cmas[0]
	assert.Equal(t, addonv1beta1.GroupVersion.String(), cma.APIVersion)
	assert.Equal(t, []addonv1beta1.AddOnConfig{
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
			ConfigReferent: addonv1beta1.ConfigReferent{Name: addonv1beta1.ReservedNoDefaultConfigName}},
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
			ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}},
	}, cma.Spec.DefaultConfigs, "supportedConfigs[].defaultConfig, as v1beta1 names them")
	require.Len(t, alpha.mcas, 3)
	for _, m := range alpha.mcas {
		assert.Equal(t, addonv1beta1.GroupVersion.String(), m.APIVersion, m.Namespace)
		assert.Equal(t, "open-cluster-management-agent-addon", m.Annotations[addonv1beta1.InstallNamespaceAnnotation], m.Namespace)
	}
}

// TestV1alpha1FileHashes checks that v1alpha1File tells its story: the
// spec hash its add-ons record as desired is hash.Spec of the
// ManagedProxyConfiguration in it; dev and stg have applied it, prod has
// not been asked to.
func TestV1alpha1FileHashes(t *testing.T) {
	t.Parallel()
	h := readHubFile(t, v1alpha1File)
	var specHash string
	for _, o := range h.others {
		if o.GetKind() == "ManagedProxyConfiguration" && o.GetName() == "cluster-proxy" {
			var err error
			specHash, err = hash.Spec(o)
			require.NoError(t, err)
		}
	}
	require.Equal(t, newSpecHash, specHash)
	require.Len(t, h.cmas, 1)
	require.Len(t, h.cmas[0].Status.DefaultConfigReferences, 1)
	assert.Equal(t, newSpecHash, h.cmas[0].Status.DefaultConfigReferences[0].DesiredConfig.SpecHash)
	type hashes struct{ desired, applied string }
	got := map[string]hashes{}
	for _, m := range h.mcas {
		require.Len(t, m.Status.ConfigReferences, 1, m.Namespace)
		r := m.Status.ConfigReferences[0]
		got[m.Namespace] = hashes{r.DesiredConfig.SpecHash, r.LastAppliedConfig.SpecHash}
	}
	assert.Equal(t, map[string]hashes{
		"dev-cluster":  {newSpecHash, newSpecHash},
		"stg-cluster":  {newSpecHash, newSpecHash},
		"prod-cluster": {oldSpecHash, oldSpecHash},
	}, got)
}

func readHubFile(t *testing.T, file string) *hub {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	h, err := readHub(f, 1<<20)
	require.NoError(t, err)
	return h
}

// TestPlanAddonVersionErrors refuses add-on objects of a version plan does
// not read, and v1alpha1 objects that would not convert without losing what
// the plan compares; each error names the object and what was expected.
func TestPlanAddonVersionErrors(t *testing.T) {
	t.Parallel()
	const (
		cma = "kind: ClusterManagementAddOn\nmetadata: {name: cluster-proxy}\nspec: {}\n"
		mca = "kind: ManagedClusterAddOn\nmetadata: {name: cluster-proxy, namespace: stg-cluster}\n"
		// mcaRef is a v1alpha1 ManagedClusterAddOn with one config
		// reference, completed by the fields of each case.
		mcaRef = "apiVersion: addon.open-cluster-management.io/v1alpha1\n" + mca +
			"status:\n  configReferences:\n  - group: proxy.open-cluster-management.io\n    resource: managedproxyconfigurations\n    name: cluster-proxy\n"
		want = "want addon.open-cluster-management.io/v1beta1 or addon.open-cluster-management.io/v1alpha1"
	)
	// The whole dump with one add-on of a version that does not exist.
	v2 := editItems(t, v1alpha1File, eachOf("ManagedClusterAddOn", func(it map[string]any) {
		if object(it, "metadata")["namespace"] == "prod-cluster" {
			it["apiVersion"] = "addon.open-cluster-management.io/v2"
		}
	}))
	tests := []struct {
		name, input, want string
	}{
		{"unknown version in a dump", v2,
			`document 1, items[10]: ManagedClusterAddOn "prod-cluster/cluster-proxy": apiVersion "addon.open-cluster-management.io/v2": ` + want},
		{"unknown version of a ClusterManagementAddOn", "apiVersion: addon.open-cluster-management.io/v2\n" + cma,
			`document 1: ClusterManagementAddOn "cluster-proxy": apiVersion "addon.open-cluster-management.io/v2": ` + want},
		{"no apiVersion", cma,
			`document 1: ClusterManagementAddOn "cluster-proxy": no apiVersion: ` + want},
		{"another group", "apiVersion: example.com/v1alpha1\n" + mca,
			`document 1: ManagedClusterAddOn "stg-cluster/cluster-proxy": apiVersion "example.com/v1alpha1": ` + want},
		{"a version without a group", "apiVersion: v1beta1\n" + mca,
			`document 1: ManagedClusterAddOn "stg-cluster/cluster-proxy": apiVersion "v1beta1": ` + want},
		{"v1alpha1 reference without desiredConfig", mcaRef + "    lastObservedGeneration: 2\n",
			`document 1: ManagedClusterAddOn "stg-cluster/cluster-proxy": status.configReferences[0].desiredConfig: Required value: ` +
				`the desired config and spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": addon.open-cluster-management.io/v1beta1 names the config only in desiredConfig`},
		{"v1alpha1 reference naming another config than desiredConfig", mcaRef + "    desiredConfig: {name: other, specHash: " + newSpecHash + "}\n",
			`document 1: ManagedClusterAddOn "stg-cluster/cluster-proxy": status.configReferences[0].desiredConfig.name: Invalid value: "other": ` +
				`want managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy", which the reference names: addon.open-cluster-management.io/v1beta1 names the config only in desiredConfig`},
		{"bad minSuccessTime in v1alpha1", strings.Replace(mustRead(t, v1alpha1File), "minSuccessTime: 5m", "minSuccessTime: soon", 1),
			`ClusterManagementAddOn "cluster-proxy": spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.minSuccessTime: Invalid value: "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runPlan(t, tt.input, "-f", "-", "-now", v1alpha1Now)
			assert.Equal(t, 2, code, out)
			assert.Contains(t, errOut, tt.want)
			assert.Empty(t, out, "no plan from input that is refused")
		})
	}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	return string(data)
}
