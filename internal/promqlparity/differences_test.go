package promqlparity

import (
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/internal/promql"
)

// TestDifferences shows each deliberate difference on queries. For X1 and
// X2 the checker accepts them, as Prometheus does with the feature on,
// and Prometheus by default refuses them with the errors the difference
// explains; for N1 the checker refuses what Prometheus accepts.
func TestDifferences(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000)
	examples := map[string][]string{
		"X1": {"limitk(2, foo)", "limit_ratio(0.5, foo)", `sort_by_label(foo, "job")`, `info(up, {k8s_cluster_name=~".+"})`,
			"step()", "max_of(1, 2)", "mad_over_time(foo[5m])", "double_exponential_smoothing(foo[5m], 0.5, 0.5)"},
		"X2": {"foo + fill(0) bar", "foo + on(a) group_left fill_left(0) fill_right(1) bar"},
		"N1": {deep, "foo[" + strings.Repeat("(", 1000) + "5m" + strings.Repeat(")", 1000) + "]", strings.Repeat("-", 1000) + "foo", strings.Repeat("abs(", 1000) + "foo" + strings.Repeat(")", 1000)},
	}
	refs := newReferences()
	for _, d := range differences {
		t.Run(d.ID, func(t *testing.T) {
			t.Parallel()
			assert.NotEmpty(t, examples[d.ID])
			for _, q := range examples[d.ID] {
				_, full := refs.full.ParseExpr(q)
				assert.NoError(t, full, q)
				ours := promql.Check(q)
				if d.checker != nil {
					if assert.Error(t, ours, q) {
						assert.True(t, d.checker(ours), "%s: %v is not %s", q, ours, d.ID)
					}
					continue
				}
				assert.NoError(t, ours, q)
				_, byDefault := refs.byDefault.ParseExpr(q)
				var errs parser.ParseErrors
				if assert.ErrorAs(t, byDefault, &errs, q) {
					for _, e := range errs {
						assert.True(t, d.byDefault(e), "%s: %q is not %s", q, e.Error(), d.ID)
					}
				}
			}
		})
	}
}

// TestUnquotedUTF8Names: like a server by default, the checker refuses a
// name with dots or non-ASCII letters unless it is quoted, which every
// server takes; a server run with
// --enable-feature=promql-unquoted-utf8-names takes some of them unquoted,
// and then refuses a label list that holds a colon.
func TestUnquotedUTF8Names(t *testing.T) {
	t.Parallel()
	refs := newReferences()
	utf8Names := parser.NewParser(parser.Options{EnableUnquotedUTF8Names: true})
	tests := []struct {
		query             string
		byDefault, byFlag bool // accepted
	}{
		{query: "http.requests_total", byDefault: false, byFlag: true},
		{query: "sum by (k8s.namespace) (up)", byDefault: false, byFlag: true},
		{query: `{"http.requests_total"}`, byDefault: true, byFlag: true},
		{query: `sum by ("k8s.namespace") (up)`, byDefault: true, byFlag: true},
		{query: "sum by (foo:bar) (up)", byDefault: true, byFlag: false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			_, byDefault := refs.byDefault.ParseExpr(tt.query)
			_, byFlag := utf8Names.ParseExpr(tt.query)
			assert.Equal(t, tt.byDefault, byDefault == nil, "Prometheus by default: %v", byDefault)
			assert.Equal(t, tt.byFlag, byFlag == nil, "Prometheus with unquoted UTF-8 names: %v", byFlag)
			assert.Equal(t, tt.byDefault, promql.Check(tt.query) == nil, "the checker agrees with the default")
		})
	}
}
