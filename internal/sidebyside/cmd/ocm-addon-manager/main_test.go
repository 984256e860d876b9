package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestFlags: run's exit code and message for each kind of bad flag.
func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"help", []string{"-h"}, 0, "usage: ocm-addon-manager"},
		{"no kubeconfig", nil, 2, "-kubeconfig is required"},
		{"bad rate", []string{"-kubeconfig", "k", "-kube-api-qps", "0"}, 2, "want positive numbers"},
		{"bad config resource", []string{"-kubeconfig", "k", "-config-resources", "nogroup"}, 2, `-config-resources "nogroup": want resource.version.group`},
		{"stray argument", []string{"-kubeconfig", "k", "extra"}, 2, "unexpected arguments"},
		{"missing kubeconfig file", []string{"-kubeconfig", "/nonexistent/kubeconfig"}, 2, `-kubeconfig "/nonexistent/kubeconfig"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stderr)
			assert.Equal(t, tc.code, code, stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
		})
	}
}

// TestDefaultsAreOCMs: the rate limit and workers default to OCM's add-on
// manager's, the config resources to the seed's.
func TestDefaultsAreOCMs(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-kubeconfig", "k"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, []float64{50, 100, 2}, []float64{o.qps, float64(o.burst), float64(o.workers)}, "qps, burst and workers: OCM's defaults")
	assert.Equal(t, []schema.GroupVersionResource{{Group: "proxy.open-cluster-management.io", Version: "v1alpha1", Resource: "managedproxyconfigurations"}},
		o.configs, "the seed's ManagedProxyConfiguration")
}
