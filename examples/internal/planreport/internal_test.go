package planreport

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/hash"
)

func TestIsResourceOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resource, kind string
		want           bool
	}{
		{"managedproxyconfigurations", "ManagedProxyConfiguration", true},
		{"addondeploymentconfigs", "AddOnDeploymentConfig", true},
		{"policies", "Policy", true},
		{"classes", "Class", true},
		{"configmaps", "Secret", false},
		{"managedproxyconfiguration", "ManagedProxyConfiguration", false},
	}
	for _, tt := range tests {
		t.Run(tt.resource+"/"+tt.kind, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, isResourceOf(tt.resource, schema.GroupVersionKind{Kind: tt.kind}))
		})
	}
}

func TestNearer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b time.Duration
		want time.Duration
	}{
		{"neither", 0, 0, 0},
		{"only the first", time.Minute, 0, time.Minute},
		{"only the second", 0, time.Minute, time.Minute},
		{"the shorter", 2 * time.Minute, time.Minute, time.Minute},
		{"the shorter, either way", time.Minute, 2 * time.Minute, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, nearer(tt.a, tt.b))
		})
	}
}

func TestClusterList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"none", nil, "(none)"},
		{"three", []string{"a", "b", "c"}, `"a" "b" "c"`},
		{"more", []string{"a", "b", "c", "d", "e"}, `"a" "b" "c" +2 more`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, clusterList(tt.names))
		})
	}
}

func TestInFlightList(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 10, 0, 0, time.UTC)
	deadline := time.Date(2026, 11, 30, 12, 21, 0, 0, time.UTC)
	tomorrow := time.Date(2026, 12, 1, 0, 5, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   []InFlight
		want string
	}{
		{"none", nil, "(none)"},
		{"progressing", []InFlight{{Cluster: "a", Status: "Progressing", Until: &deadline}}, `"a" (progressing, deadline 12:21:00)`},
		{"progressing, no deadline", []InFlight{{Cluster: "a", Status: "Progressing"}}, `"a" (progressing, no deadline)`},
		{"failed within its deadline", []InFlight{{Cluster: "a", Status: "Failed", Until: &deadline}}, `"a" (failed, retrying until the deadline 12:21:00)`},
		{"soaking past midnight", []InFlight{{Cluster: "a", Status: "Succeeded", Until: &tomorrow}}, `"a" (soaking until 2026-12-01 00:05:00)`},
		{"two", []InFlight{{Cluster: "a", Status: "Succeeded", Until: &deadline}, {Cluster: "b", Status: "Failed"}},
			`"a" (soaking until 12:21:00), "b" (failed, no deadline)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, inFlightList(tt.in, now))
		})
	}
}

func TestSpecHash(t *testing.T) {
	t.Parallel()
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	ref := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	config := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "proxy.open-cluster-management.io/v1alpha1",
		"kind":       "ManagedProxyConfiguration",
		"metadata":   map[string]any{"name": "cluster-proxy"},
		"spec":       map[string]any{"proxyServer": map[string]any{"replicas": int64(1)}},
	}}
	objectHash, err := hash.Spec(config)
	require.NoError(t, err)
	withStatus := &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}
	withStatus.Status.DefaultConfigReferences = []addonv1beta1.DefaultConfigReference{{
		ConfigGroupResource: gr, DesiredConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: ref, SpecHash: "from-status"},
	}}
	tests := []struct {
		name    string
		hub     *Hub
		cma     *addonv1beta1.ClusterManagementAddOn
		want    string
		wantErr string
	}{
		{"the config object wins", &Hub{Configs: []*unstructured.Unstructured{config}}, withStatus, objectHash, ""},
		{"else the status", &Hub{}, withStatus, "from-status", ""},
		{"neither", &Hub{}, &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}, "",
			`no spec hash: the input holds neither the config object nor a desiredConfig for it in clustermanagementaddon "cluster-proxy" status`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.hub.specHash(tt.cma)(gr, ref)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
