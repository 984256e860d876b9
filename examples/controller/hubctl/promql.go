package hubctl

import (
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/rolloutkit/rolloutkit/addonrollout"
)

// PromQL is the query validator the controller, its dry run and
// rolloutctl give the library (addonrollout.Controls.ValidateQuery):
// Prometheus's own parser, with its default options (no experimental
// functions). A query it refuses makes the AddOnRollout invalid, with the
// parser's message at spec.verifications[i].prometheus.query.
func PromQL() addonrollout.QueryValidator {
	p := parser.NewParser(parser.Options{})
	return func(q string) error {
		_, err := p.ParseExpr(q)
		return err
	}
}
