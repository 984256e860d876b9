package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/manifests"
)

// The component's objects, and the Service whose pods they scrape: the
// names the Helm chart renders too.
const (
	promComponent  = "components/prometheus"
	monitorName    = "rolloutkit-controller"
	metricsService = "rolloutkit-controller-metrics"
)

// TestPrometheusComponent renders components/prometheus on config/default
// (as a kustomization that lists both, as the one commented out in
// default/ does once uncommented, and with the namespace moved) and checks
// that it adds only its ServiceMonitor and PrometheusRule, in the
// controller's namespace, and that they name what the manifests have: the
// ServiceMonitor scrapes the metrics Service's port and no other
// Service's, and the rules' job, gate Service and gate webhook are the
// manifests' own.
func TestPrometheusComponent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		base func(t *testing.T) string // the base kustomization's directory
		with func(t *testing.T, base string) []*unstructured.Unstructured
		ns   string
	}{
		{name: "listed beside default", base: func(*testing.T) string { return "default" }, with: withPrometheus, ns: namespace},
		{name: "uncommented in default", base: func(*testing.T) string { return "default" }, with: uncommented, ns: namespace},
		{name: "namespace moved", base: func(t *testing.T) string { return movedDefault(t, "team-a") }, with: withPrometheus, ns: "team-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := tc.base(t)
			plain, err := manifests.Render(base)
			require.NoError(t, err)
			with := tc.with(t, base)
			want := append(ids(plain), "PrometheusRule "+tc.ns+"/"+monitorName, "ServiceMonitor "+tc.ns+"/"+monitorName)
			slices.Sort(want)
			assert.Equal(t, want, ids(with))
			checkServiceMonitor(t, with, tc.ns)
			checkRuleNames(t, with)
		})
	}
}

// checkServiceMonitor checks that the ServiceMonitor selects, among the
// Services in ns, the metrics Service's port alone, over HTTPS.
func checkServiceMonitor(t *testing.T, objs []*unstructured.Unstructured, ns string) {
	t.Helper()
	sm := object(t, objs, "ServiceMonitor", monitorName)
	match, _, err := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	require.NoError(t, err)
	eps, _, err := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	require.NoError(t, err)
	require.Len(t, eps, 1)
	ep := eps[0].(map[string]any)
	assert.Equal(t, "https", ep["scheme"])
	var scraped []string
	for _, o := range objs {
		if o.GetKind() != "Service" || o.GetNamespace() != ns || !labels.SelectorFromSet(match).Matches(labels.Set(o.GetLabels())) {
			continue
		}
		svc := as(t, o, &corev1.Service{})
		for _, p := range svc.Spec.Ports {
			if p.Name == ep["port"] {
				scraped = append(scraped, svc.Name)
			}
		}
	}
	assert.Equal(t, []string{metricsService}, scraped, "the Services whose port %v the ServiceMonitor scrapes", ep["port"])
}

// checkRuleNames checks that the rules name the job the ServiceMonitor
// makes (the Service's name), the gate's Service and the gate's webhook
// that fails closed.
func checkRuleNames(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	rule := object(t, objs, "PrometheusRule", monitorName)
	groups, _, err := unstructured.NestedSlice(rule.Object, "spec", "groups")
	require.NoError(t, err)
	var exprs strings.Builder
	for _, g := range groups {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			exprs.WriteString(fmt.Sprint(r.(map[string]any)["expr"]) + "\n")
		}
	}
	gate := as(t, object(t, objs, "ValidatingWebhookConfiguration", gatehook.WorkGateConfiguration), &admissionregistrationv1.ValidatingWebhookConfiguration{})
	var failClosed string
	for _, w := range gate.Webhooks {
		if w.FailurePolicy != nil && *w.FailurePolicy == admissionregistrationv1.Fail {
			failClosed = w.Name
		}
	}
	for _, want := range []string{
		`job="` + metricsService + `"`,
		`endpoint="` + gate.Webhooks[0].ClientConfig.Service.Name + `"`,
		`name="` + failClosed + `"`,
	} {
		assert.Contains(t, exprs.String(), want)
	}
}

// withPrometheus renders a kustomization that lists base and
// components/prometheus, as docs/alerts.md shows.
func withPrometheus(t *testing.T, base string) []*unstructured.Unstructured {
	t.Helper()
	return withComponent(t, base, promComponent)
}

// uncommented renders base/kustomization.yaml (config/default's) with its
// commented-out components uncommented, from a copy beside it.
func uncommented(t *testing.T, base string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(base, "kustomization.yaml"))
	require.NoError(t, err)
	text := string(data)
	for _, line := range []string{"components:", "- ../" + promComponent} {
		require.Contains(t, text, "\n# "+line+"\n", "%s: no commented-out %q", base, line)
		text = strings.Replace(text, "\n# "+line+"\n", "\n"+line+"\n", 1)
	}
	// A copy beside default/, so that its ../ paths still hold; kustomize
	// reads only the directory it is given.
	dir, err := os.MkdirTemp(".", "default-uncommented-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(text), 0o600))
	objs, err := manifests.Render(dir)
	require.NoError(t, err)
	return objs
}
