package hubplan

import (
	"strings"
)

// QueryValidator checks a verification's PromQL query: nil when the query
// parses, else what is wrong with it. A controller gives Prometheus's own
// parser (for instance func(q string) error { _, err :=
// parser.ParseExpr(q); return err }), so that the check matches the
// server's grammar.
type QueryValidator func(query string) error

// checkPromQL returns what is wrong with a verification's PromQL query,
// or "" when nothing is: a blank query, or one validate refuses, its
// message on one line (problems on several lines joined by "; "). Without
// a validator only a blank query is refused. A query that passes can
// still fail on the server (a metric it does not have, a feature flag it
// lacks), and the check's message then quotes the server's error.
func checkPromQL(q string, validate QueryValidator) string {
	if strings.TrimSpace(q) == "" {
		return "want a PromQL expression, e.g. max(addon_error_ratio) < 0.01"
	}
	if validate == nil {
		return ""
	}
	if err := validate(q); err != nil {
		lines := strings.FieldsFunc(err.Error(), func(r rune) bool { return r == '\n' })
		return strings.Join(lines, "; ")
	}
	return ""
}
