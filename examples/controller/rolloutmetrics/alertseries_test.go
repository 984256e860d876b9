package rolloutmetrics_test

import (
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionmetrics "k8s.io/apiserver/pkg/admission/metrics"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/component-base/metrics/legacyregistry"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
)

// alertTests is the alert rules' promtool test file, whose input series
// this test checks.
const alertTests = "../../../internal/alerts/testdata/alerts_test.yaml"

// targetLabels are the labels Prometheus adds to a series from its target
// (job, instance) and the Prometheus Operator from the ServiceMonitor's
// endpoints: not the exporter's own.
func targetLabels() []string {
	return []string{"job", "instance", "namespace", "pod", "service", "endpoint", "container"}
}

// TestAlertSeriesExported checks the series the alert rules' unit tests
// feed against the series their exporters really make: each rolloutkit_*
// series must be, name and labels, one the controller's Metrics export
// when driven as the add-on reconciler drives them, each
// leader_election_* one controller-runtime's metrics export for the
// controller's Lease (the manager's leader elector's), and each apiserver_*
// series one that the kube-apiserver's admission metrics (the
// k8s.io/apiserver this module builds with) export for a validating
// webhook it could not call or that refused. Series of other exporters
// are listed in exportedElsewhere and not checked here; a series of any
// other name fails the test, so a new one must be placed.
func TestAlertSeriesExported(t *testing.T) {
	t.Parallel()
	controller := gather(t, controllerSeries(t))
	leader := gather(t, leaderSeries(t))
	apiserver := gather(t, apiserverSeries(t))
	for _, s := range inputSeries(t) {
		name := s["__name__"]
		switch {
		case strings.HasPrefix(name, "rolloutkit_"):
			assert.Contains(t, controller, key(s, targetLabels()), "the alerts' tests feed a series the controller does not export")
		case strings.HasPrefix(name, "leader_election_"):
			assert.Contains(t, leader, key(s, targetLabels()), "the alerts' tests feed a series controller-runtime does not export")
		case strings.HasPrefix(name, "apiserver_"):
			assert.Contains(t, apiserver, key(s, []string{"job", "instance"}), "the alerts' tests feed a series the kube-apiserver does not export")
		default:
			assert.Contains(t, exportedElsewhere(), name, "a series of no known exporter")
		}
	}
}

// exportedElsewhere are the series of the alerts' tests whose exporter is
// not built here, by name: docs/alerts.md says which scrape makes them.
func exportedElsewhere() []string {
	return []string{
		"up",                    // Prometheus's own, per target
		"kube_endpoint_info",    // kube-state-metrics (v2.6 or later)
		"kube_endpoint_address", // kube-state-metrics (v2.6 or later)
	}
}

// inputSeries returns the labels (with __name__) of every input series of
// the alerts' tests.
func inputSeries(t *testing.T) []map[string]string {
	b, err := os.ReadFile(alertTests)
	require.NoError(t, err)
	var f struct {
		Tests []struct {
			InputSeries []struct {
				Series string `json:"series"`
			} `json:"input_series"`
		} `json:"tests"`
	}
	require.NoError(t, yaml.Unmarshal(b, &f))
	p := parser.NewParser(parser.Options{})
	var out []map[string]string
	for _, tc := range f.Tests {
		for _, in := range tc.InputSeries {
			ls, err := p.ParseMetric(in.Series)
			require.NoError(t, err, "series %q", in.Series)
			out = append(out, ls.Map())
		}
	}
	require.NotEmpty(t, out, "no input series in %s", alertTests)
	return out
}

// controllerSeries drives the controller's metrics as the add-on
// reconciler does for the alerts' tests' add-on cluster-proxy on
// placement default/global: prod active with a wait that ends on the
// clock, stg held by its verifications, both failing.
func controllerSeries(t *testing.T) prometheus.Gatherer {
	reg := prometheus.NewRegistry()
	m, err := rolloutmetrics.New(reg)
	require.NoError(t, err)
	until := metav1.NewTime(time.Unix(600, 0))
	prod := v1alpha1.GroupStatus{Name: "prod", Index: 2, Phase: "Active", WaitsFor: "Cluster", Until: &until,
		Counts: v1alpha1.GroupCounts{TimedOut: 2, Progressing: 1}}
	stg := v1alpha1.GroupStatus{Name: "stg", Index: 1, Phase: "Active", WaitsFor: "Verification", Until: &until}
	m.Observe("cluster-proxy", true, v1alpha1.AddOnRolloutStatus{Placements: []v1alpha1.PlacementStatus{
		{Namespace: "default", Name: "global", Groups: []v1alpha1.GroupStatus{stg, prod}}}})
	m.Verification("cluster-proxy", "default/global", stg, "error-rate", false)
	m.Verification("cluster-proxy", "default/global", stg, "latency", false)
	return reg
}

// leaderID is the controller's leader-election Lease, main.go's
// LeaderElectionID.
const leaderID = "rolloutkit-controller"

// leaderSeries makes controller-runtime's leader-election metrics as a
// replica that has not (yet) won the Lease has them: client-go's elector
// reports itself not leading from its creation, to the provider
// controller-runtime's metrics package sets, into its Registry (the one
// the manager serves).
func leaderSeries(t *testing.T) prometheus.Gatherer {
	lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Namespace: "rolloutkit-system", Name: leaderID},
		Client: fake.NewClientset().CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: "replica-a"}}
	_, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{Lock: lock, Name: leaderID,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}}})
	require.NoError(t, err)
	return ctrlmetrics.Registry
}

// apiserverSeries makes the kube-apiserver's admission webhook metrics
// for the work gate as its validating dispatcher does: a call that failed
// (503, no endpoint) and a refusal of the gate's own (403).
func apiserverSeries(t *testing.T) prometheus.Gatherer {
	ctx := context.Background()
	const gate = "manifestworks.gate.rolloutkit.io"
	admissionmetrics.Metrics.ObserveWebhookRejection(ctx, gate, "validating", "UPDATE", admissionmetrics.WebhookRejectionCallingWebhookError, 503)
	admissionmetrics.Metrics.ObserveWebhookRejection(ctx, gate, "validating", "UPDATE", admissionmetrics.WebhookRejectionNoError, 403)
	admissionmetrics.Metrics.ObserveWebhookRejection(ctx, "other.example.com", "validating", "UPDATE", admissionmetrics.WebhookRejectionCallingWebhookError, 503)
	return legacyregistry.DefaultGatherer
}

// gather returns every series g exports, each as key of its labels.
func gather(t *testing.T, g prometheus.Gatherer) []string {
	mfs, err := g.Gather()
	require.NoError(t, err)
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			out = append(out, key(seriesLabels(mf.GetName(), m), nil))
		}
	}
	return out
}

func seriesLabels(name string, m *dto.Metric) map[string]string {
	ls := map[string]string{"__name__": name}
	for _, l := range m.GetLabel() {
		ls[l.GetName()] = l.GetValue()
	}
	return ls
}

// key writes labels without those in drop, sorted: name="value",...
func key(labels map[string]string, drop []string) string {
	var kv []string
	for k, v := range labels {
		if !slices.Contains(drop, k) {
			kv = append(kv, k+"="+`"`+v+`"`)
		}
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}
