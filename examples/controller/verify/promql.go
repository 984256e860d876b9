package verify

import (
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/rolloutkit/rolloutkit/hubplan"
)

// PromQL is the query validator the controller, its dry run and
// rolloutctl give the library (hubplan.Controls.ValidateQuery):
// Prometheus's own parser. It accepts the experimental functions and the
// fill modifiers, which the target server may enable by a feature flag
// the controller cannot see: a query that parses can still fail on the
// server, and the check's message then quotes the server's error. A query
// it refuses makes the AddOnRollout invalid, with the parser's message at
// spec.verifications[i].prometheus.query.
func PromQL() hubplan.QueryValidator {
	p := parser.NewParser(parser.Options{EnableExperimentalFunctions: true, EnableBinopFillModifiers: true})
	return func(q string) error {
		_, err := p.ParseExpr(q)
		return err
	}
}
