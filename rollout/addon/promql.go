package addon

import (
	"strings"

	"github.com/rolloutkit/rolloutkit/internal/promql"
)

// checkPromQL returns what is wrong with a verification's PromQL query,
// or "" when nothing is: a blank query, or one Prometheus 3.x's parser
// refuses (a syntax error, an unknown function, a range vector where an
// instant vector goes, ...), each problem with its line:column in the
// query, joined by "; ". A query that passes can still fail on the server
// (a metric it does not have, a feature flag it lacks), and the check's
// message then quotes the server's error.
func checkPromQL(q string) string {
	if strings.TrimSpace(q) == "" {
		return "want a PromQL expression, e.g. max(addon_error_ratio) < 0.01"
	}
	err := promql.Check(q)
	if err == nil {
		return ""
	}
	var problems []string // promql.Check joins them with errors.Join
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			problems = append(problems, e.Error())
		}
	} else {
		problems = []string{err.Error()}
	}
	return strings.Join(problems, "; ")
}
