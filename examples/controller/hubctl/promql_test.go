package hubctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPromQL: Prometheus's parser accepts what a verification asks and
// refuses, with its position, what it cannot parse.
func TestPromQL(t *testing.T) {
	t.Parallel()
	validate := PromQL()
	for _, tt := range []struct {
		query string
		want  string // a part of the error; empty: valid
	}{
		{query: "max(addon_error_ratio) < 0.01"},
		{query: `sum(rate(http_requests_total{job="proxy"}[5m])) > 0`},
		{query: `sum(rate(x{job="a"}[5m]) < 1`, want: "1:"},
		{query: "rate(addon_errors_total) > 1", want: "range vector"},
		{query: "Rate(x[5m])", want: "Rate"},
	} {
		err := validate(tt.query)
		if tt.want == "" {
			assert.NoError(t, err, tt.query)
			continue
		}
		if assert.Error(t, err, tt.query) {
			assert.Contains(t, err.Error(), tt.want, tt.query)
		}
	}
}
