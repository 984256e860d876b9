package hubtest

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// Sample is the value of the series of metric in reg whose labels are
// labels (name, value, name, value, ...), a counter's or a gauge's; 0 when
// there is no such series.
func Sample(t *testing.T, reg prometheus.Gatherer, metric string, labels ...string) float64 {
	t.Helper()
	require.Zero(t, len(labels)%2, "labels %q: want name, value pairs", labels)
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := make(map[string]string, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for i := 0; i < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue series
				}
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}
