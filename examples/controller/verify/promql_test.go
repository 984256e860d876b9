package verify

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
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

// TestPromQLErrorsDoc: docs/errors.md quotes what an AddOnRollout with a
// query Prometheus's parser refuses says, word for word.
func TestPromQLErrorsDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/errors.md")
	require.NoError(t, err)
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	ctl := hubplan.Controls{Rollout: &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: cma.Name},
		Spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
			{Name: "a", Prometheus: &v1alpha1.PrometheusCheck{Address: "http://p.example", Query: "up"}},
			{Name: "b", Prometheus: &v1alpha1.PrometheusCheck{Address: "http://p.example", Query: "sum(rate(x[5m])"}}}}}}
	hashes := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) { return "h", nil }
	planner := hubplan.Planner{Rollout: rollout.Planner{Clock: clock.At(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))}, ValidateQuery: PromQL()}
	p, err := planner.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: []addon.PlacementInput{{}}, Controls: ctl, SpecHash: hashes})
	require.NoError(t, err)
	want := `spec.verifications[1].prometheus.query: Invalid value: "sum(rate(x[5m])": 1:16: parse error: unclosed left parenthesis`
	require.EqualError(t, p.Invalid, want)
	assert.Contains(t, string(doc), want, "docs/errors.md does not give this example")
}
