package rolloutmetrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// TestBuildInfo: the build's gauge is 1 with its three labels, in the
// registry that holds the rollout metrics too; the same build registered
// again is no error.
func TestBuildInfo(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	_, err := New(reg)
	require.NoError(t, err)
	require.NoError(t, RegisterBuildInfo(reg, "v0.2.0", "a79262b1c0de5f0e6c2b4f1a9d3e8c7b6a5f4e3d", "go1.26.8"))
	want := `# HELP rolloutkit_build_info 1, labelled with the rolloutkit controller's version, VCS revision and Go version.
# TYPE rolloutkit_build_info gauge
rolloutkit_build_info{goversion="go1.26.8",revision="a79262b1c0de5f0e6c2b4f1a9d3e8c7b6a5f4e3d",version="v0.2.0"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), MetricBuildInfo))
	require.NoError(t, RegisterBuildInfo(reg, "v0.2.0", "a79262b1c0de5f0e6c2b4f1a9d3e8c7b6a5f4e3d", "go1.26.8"))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), MetricBuildInfo))
}
