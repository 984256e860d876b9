package planreport

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

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

// TestReaderConfig: a config is the object of its group, resource (by
// discovery's word, else the guessed plural of its kind), namespace and
// name; one not in the hub, or of a resource the hub could not read, is an
// error that says why. No status hash stands in for it.
func TestReaderConfig(t *testing.T) {
	t.Parallel()
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	ref := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	config := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "proxy.open-cluster-management.io/v1alpha1",
		"kind":       "ManagedProxyConfiguration",
		"metadata":   map[string]any{"name": "cluster-proxy"},
	}}
	odd := config.DeepCopy()
	odd.SetKind("ProxyConfig")
	oddGVK := odd.GroupVersionKind()
	tests := []struct {
		name    string
		hub     *Hub
		want    *unstructured.Unstructured
		wantErr string
	}{
		{"by the guessed plural of its kind", &Hub{Configs: []*unstructured.Unstructured{config}}, config, ""},
		{"by discovery's resource", &Hub{Configs: []*unstructured.Unstructured{odd},
			Resources: map[schema.GroupVersionKind]schema.GroupResource{oddGVK: {Group: gr.Group, Resource: gr.Resource}}}, odd, ""},
		{"another namespace is another object", &Hub{Configs: []*unstructured.Unstructured{withNamespace(config, "other")}}, nil,
			`reading config: managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy" not found`},
		{"a resource the hub could not read", &Hub{Configs: []*unstructured.Unstructured{config},
			Unreadable: map[schema.GroupResource]error{{Group: gr.Group, Resource: gr.Resource}: errors.New("not served")}}, nil, "not served"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := reader{tt.hub}.Config(gr, ref)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Same(t, tt.want, got)
		})
	}
}

func withNamespace(u *unstructured.Unstructured, ns string) *unstructured.Unstructured {
	c := u.DeepCopy()
	c.SetNamespace(ns)
	return c
}
