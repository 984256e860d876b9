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
