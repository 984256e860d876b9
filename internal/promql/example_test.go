package promql_test

import (
	"fmt"

	"github.com/rolloutkit/rolloutkit/internal/promql"
)

func ExampleCheck() {
	for _, q := range []string{
		`sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) > 0.1`,
		"max(addon_error_ratio) <",
		"rate(addon_errors_total) + Rate(addon_requests_total[5m])",
		"1 < 2",
	} {
		fmt.Println(promql.Check(q))
	}
	// Output:
	// <nil>
	// 1:25: unexpected end of input, want an expression after "<"
	// 1:28: unknown function Rate(): want rate() (function names are case-sensitive)
	// 1:3: comparing two scalars needs the bool modifier: want "1 < bool 2"
}
