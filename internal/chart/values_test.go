package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// withComponents writes a kustomization listing config/default and the
// components of config/components named, as the README says to, and
// returns its directory.
func withComponents(t *testing.T, components ...string) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(configDir)
	require.NoError(t, err)
	rel, err := filepath.Rel(dir, abs)
	require.NoError(t, err)
	k := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- %s\ncomponents:\n",
		filepath.ToSlash(filepath.Join(rel, "default")))
	for _, c := range components {
		k += "- " + filepath.ToSlash(filepath.Join(rel, "components", c)) + "\n"
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o600))
	return dir
}

// podSpec returns the pod template's spec of the Deployment d.
func podSpec(t testing.TB, d *unstructured.Unstructured) map[string]any {
	t.Helper()
	require.NotNil(t, d, "no Deployment")
	spec, _, err := unstructured.NestedMap(d.Object, "spec", "template", "spec")
	require.NoError(t, err)
	return spec
}

// TestChartValues renders the chart with values other than the defaults
// and checks that the objects that should change do: certificates from
// cert-manager and the Prometheus objects render what kustomize's
// components do (with the default differences only); replicas,
// priorityClassName, the taken add-ons, Placements, the image and
// resources change what they name.
func TestChartValues(t *testing.T) {
	t.Parallel()
	defaults := mustRenderChart(t, nil)
	t.Run("cert-manager", func(t *testing.T) {
		t.Parallel()
		chart := mustRenderChart(t, map[string]any{"certificates": map[string]any{"mode": "cert-manager"}})
		compareRenderings(t, chart, mustRenderKustomize(t, withComponents(t, "cert-manager")), defaultDifferences())
		assert.NotEqual(t, defaults.ids(), chart.ids(), "cert-manager's Issuers and Certificates, no certificate RBAC")
	})
	t.Run("monitoring", func(t *testing.T) {
		t.Parallel()
		chart := mustRenderChart(t, map[string]any{"monitoring": map[string]any{
			"serviceMonitor": map[string]any{"enabled": true}, "prometheusRule": map[string]any{"enabled": true}}})
		compareRenderings(t, chart, mustRenderKustomize(t, withComponents(t, "prometheus")), defaultDifferences())
		assert.Contains(t, chart, "ServiceMonitor.monitoring.coreos.com "+namespace+"/rolloutkit-controller")
		assert.Contains(t, chart, "PrometheusRule.monitoring.coreos.com "+namespace+"/rolloutkit-controller")
	})
	tests := []struct {
		name  string
		vals  map[string]any
		check func(t *testing.T, chart objects)
	}{{
		name: "3 replicas",
		vals: map[string]any{"replicas": 3},
		check: func(t *testing.T, chart objects) {
			replicas, _, _ := unstructured.NestedInt64(chart[deploymentID].Object, "spec", "replicas")
			assert.Equal(t, int64(3), replicas)
			assert.Contains(t, chart, "PodDisruptionBudget.policy "+namespace+"/rolloutkit-controller")
		},
	}, {
		name: "1 replica: no disruption budget, which would block every drain",
		vals: map[string]any{"replicas": 1},
		check: func(t *testing.T, chart objects) {
			assert.NotContains(t, chart, "PodDisruptionBudget.policy "+namespace+"/rolloutkit-controller")
		},
	}, {
		name: "priorityClassName: the class named, none made",
		vals: map[string]any{"priorityClassName": "system-cluster-critical"},
		check: func(t *testing.T, chart objects) {
			assert.Equal(t, "system-cluster-critical", podSpec(t, chart[deploymentID])["priorityClassName"])
			assert.NotContains(t, chart, "PriorityClass.scheduling.k8s.io /rolloutkit-critical")
		},
	}, {
		name: "taken add-ons",
		vals: map[string]any{"addOns": map[string]any{"lifecycles": []any{"rolloutkit", "team-a"}}},
		check: func(t *testing.T, chart objects) {
			assert.Contains(t, containerArgs(t, chart[deploymentID]), "-lifecycle=rolloutkit,team-a")
		},
	}, {
		name: "Placements left to OCM",
		vals: map[string]any{"placements": map[string]any{"enabled": false}},
		check: func(t *testing.T, chart objects) {
			assert.NotContains(t, containerArgs(t, chart[deploymentID]), "-placements")
			assert.NotContains(t, chart, "ClusterRole.rbac.authorization.k8s.io /rolloutkit-controller-placements")
			assert.NotContains(t, chart, "ClusterRoleBinding.rbac.authorization.k8s.io /rolloutkit-controller-placements")
		},
	}, {
		name: "image and resources",
		vals: map[string]any{"image": map[string]any{"repository": "registry.example/rolloutkit", "tag": "v0.2.0"},
			"resources": map[string]any{"requests": map[string]any{"cpu": "200m", "memory": "300Mi"}}},
		check: func(t *testing.T, chart objects) {
			c := podSpec(t, chart[deploymentID])["containers"].([]any)[0].(map[string]any)
			assert.Equal(t, "registry.example/rolloutkit:v0.2.0", c["image"])
			assert.Equal(t, map[string]any{"requests": map[string]any{"cpu": "200m", "memory": "300Mi"}, "limits": map[string]any{"memory": "512Mi"}},
				c["resources"], "values merge with the defaults, as helm --set does")
		},
	}, {
		name: "no CRDs",
		vals: map[string]any{"crds": map[string]any{"install": false}},
		check: func(t *testing.T, chart objects) {
			assert.Empty(t, chart.ofKind(crdKind))
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, mustRenderChart(t, tt.vals))
		})
	}
}

// TestChartSchema shows helm refusing values that values.schema.json
// does not allow, with an error naming the value.
func TestChartSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vals map[string]any
		want []string // in the error
	}{
		{"no replica", map[string]any{"replicas": 0}, []string{"/replicas", "minimum"}},
		{"replicas a string", map[string]any{"replicas": "two"}, []string{"/replicas", "integer"}},
		{"a certificate mode of no one", map[string]any{"certificates": map[string]any{"mode": "vault"}}, []string{"/certificates/mode", "self", "cert-manager"}},
		{"a misspelt value", map[string]any{"replica": 2}, []string{"replica"}},
		{"no add-on taken", map[string]any{"addOns": map[string]any{"lifecycles": []any{}}}, []string{"/addOns/lifecycles", "minItems"}},
		{"a lifecycle with a comma", map[string]any{"addOns": map[string]any{"lifecycles": []any{"a,b"}}}, []string{"/addOns/lifecycles/0"}},
		{"a tag in the repository", map[string]any{"image": map[string]any{"repository": "ghcr.io/x:v1"}}, []string{"/image/repository"}},
		{"a bad quantity", map[string]any{"resources": map[string]any{"limits": map[string]any{"memory": "lots"}}}, []string{"/resources/limits/memory"}},
		{"a class above the user range", map[string]any{"priorityClass": map[string]any{"value": 2000000000}}, []string{"/priorityClass/value", "maximum"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := renderChart(tt.vals)
			require.Error(t, err)
			t.Logf("helm: %v", err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
