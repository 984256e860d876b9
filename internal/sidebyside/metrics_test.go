package sidebyside

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEachSample checks the benchmark's reading of a metrics endpoint: a
// counter's samples with their labels, a histogram's sum and count, and
// an exposition that does not parse. It needs no hub.
func TestEachSample(t *testing.T) {
	t.Parallel()
	const exposition = `# HELP rest_client_requests_total Requests.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 3
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 7
# HELP apiserver_watch_events_sizes Sizes.
# TYPE apiserver_watch_events_sizes histogram
apiserver_watch_events_sizes_bucket{group="addon.open-cluster-management.io",resource="managedclusteraddons",version="v1beta1",le="1024"} 1
apiserver_watch_events_sizes_bucket{group="addon.open-cluster-management.io",resource="managedclusteraddons",version="v1beta1",le="+Inf"} 4
apiserver_watch_events_sizes_sum{group="addon.open-cluster-management.io",resource="managedclusteraddons",version="v1beta1"} 10240
apiserver_watch_events_sizes_count{group="addon.open-cluster-management.io",resource="managedclusteraddons",version="v1beta1"} 4
`
	got := map[string]float64{}
	err := eachSample(strings.NewReader(exposition), func(name string, labels map[string]string, v float64) {
		got[name+" "+labels["method"]+labels["resource"]] += v
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{
		"rest_client_requests_total GET":                          3,
		"rest_client_requests_total PATCH":                        7,
		"apiserver_watch_events_sizes_sum managedclusteraddons":   10240,
		"apiserver_watch_events_sizes_count managedclusteraddons": 4,
	}, got)

	err = eachSample(strings.NewReader("rest_client_requests_total{method=\"GET\" 3\n"), func(string, map[string]string, float64) {})
	assert.ErrorContains(t, err, "reading metrics")
}

// TestWebhookCalls checks the reading of the API server's webhook
// histogram: calls of the webhooks named, admitted and rejected, and their
// time; another webhook's and a mutating one's are left out. It needs no
// hub.
func TestWebhookCalls(t *testing.T) {
	t.Parallel()
	const exposition = `# HELP apiserver_admission_webhook_admission_duration_seconds Latency.
# TYPE apiserver_admission_webhook_admission_duration_seconds histogram
apiserver_admission_webhook_admission_duration_seconds_bucket{name="gate.example.io",operation="UPDATE",rejected="false",type="validating",le="+Inf"} 5
apiserver_admission_webhook_admission_duration_seconds_sum{name="gate.example.io",operation="UPDATE",rejected="false",type="validating"} 0.25
apiserver_admission_webhook_admission_duration_seconds_count{name="gate.example.io",operation="UPDATE",rejected="false",type="validating"} 5
apiserver_admission_webhook_admission_duration_seconds_bucket{name="gate.example.io",operation="UPDATE",rejected="true",type="validating",le="+Inf"} 3
apiserver_admission_webhook_admission_duration_seconds_sum{name="gate.example.io",operation="UPDATE",rejected="true",type="validating"} 0.15
apiserver_admission_webhook_admission_duration_seconds_count{name="gate.example.io",operation="UPDATE",rejected="true",type="validating"} 3
apiserver_admission_webhook_admission_duration_seconds_bucket{name="other.example.io",operation="CREATE",rejected="false",type="validating",le="+Inf"} 7
apiserver_admission_webhook_admission_duration_seconds_sum{name="other.example.io",operation="CREATE",rejected="false",type="validating"} 1
apiserver_admission_webhook_admission_duration_seconds_count{name="other.example.io",operation="CREATE",rejected="false",type="validating"} 7
apiserver_admission_webhook_admission_duration_seconds_bucket{name="gate.example.io",operation="UPDATE",rejected="false",type="admit",le="+Inf"} 11
apiserver_admission_webhook_admission_duration_seconds_sum{name="gate.example.io",operation="UPDATE",rejected="false",type="admit"} 2
apiserver_admission_webhook_admission_duration_seconds_count{name="gate.example.io",operation="UPDATE",rejected="false",type="admit"} 11
`
	read := func(webhooks ...string) webhookCalls {
		var w webhookCalls
		require.NoError(t, eachSample(strings.NewReader(exposition), func(name string, labels map[string]string, v float64) {
			w.addWebhookSample(webhooks, name, labels, v)
		}))
		return w
	}
	for _, tc := range []struct {
		webhooks                    []string
		admitted, rejected, seconds float64
	}{
		{[]string{"gate.example.io"}, 5, 3, 0.4},
		{[]string{"other.example.io"}, 7, 0, 1},
		{[]string{"gate.example.io", "other.example.io"}, 12, 3, 1.4},
		{[]string{"none.example.io"}, 0, 0, 0},
		{nil, 12, 3, 1.4},
	} {
		got := read(tc.webhooks...)
		assert.Equal(t, [2]float64{tc.admitted, tc.rejected}, [2]float64{got.admitted, got.rejected}, "calls of %q", tc.webhooks)
		assert.InDelta(t, tc.seconds, got.seconds, 1e-9, "seconds of %q", tc.webhooks)
	}
	gate := read("gate.example.io")
	assert.InDelta(t, 50, gate.meanMillis(), 1e-9)
	assert.Equal(t, "8 times (5 admitted, 3 rejected), 50.0 ms a call", gate.String())
	since := gate.minus(webhookCalls{admitted: 1, rejected: 1, seconds: 0.1})
	assert.Equal(t, [2]float64{4, 2}, [2]float64{since.admitted, since.rejected})
	assert.Zero(t, webhookCalls{}.meanMillis())
}
