package promqlparity

import (
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/rolloutkit/rolloutkit/internal/promql"
)

// referenceOptions configure Prometheus's parser as the checker promises
// to agree with it: experimental functions and aggregations and the fill
// modifiers enabled (see the differences below), unquoted UTF-8 names
// off, as by default.
var referenceOptions = parser.Options{EnableExperimentalFunctions: true, EnableBinopFillModifiers: true}

// difference is a deliberate difference between the checker and
// Prometheus's parser. Each has one of two predicates:
//
//   - byDefault, for a query the checker accepts and Prometheus's parser as
//     a server runs it by default (parser.Options{}) refuses: it reports
//     whether one of that parser's errors is this difference, and such a
//     query is allowed only when each of its errors is one;
//   - checker, for a query the checker refuses and the parser accepts
//     even with referenceOptions: it reports whether the checker's error
//     is this difference.
type difference struct {
	ID, Summary, Reason string
	byDefault           func(parser.ParseErr) bool
	checker             func(error) bool
}

// differences lists the deliberate differences. Against referenceOptions
// there is one, N1, for queries no one writes: on any other input the
// checker and the parser must agree.
var differences = []difference{
	{
		ID:      "X1",
		Summary: "experimental functions and aggregations (limitk, limit_ratio, sort_by_label, info, step(), ...) are accepted",
		Reason: "a server run with --enable-feature=promql-experimental-functions accepts them, and the checker cannot know " +
			"the server's flags: refusing would hold an add-on whose query runs; a server without the flag fails the check " +
			"at run time, with its own message",
		byDefault: func(e parser.ParseErr) bool {
			msg := e.Err.Error()
			return strings.HasSuffix(msg, "is not enabled") || strings.Contains(msg, "is experimental and must be enabled")
		},
	},
	{
		ID:      "X2",
		Summary: "the fill modifiers of binary operations (fill, fill_left, fill_right) are accepted",
		Reason:  "as X1, for --enable-feature=promql-binop-fill-modifiers",
		byDefault: func(e parser.ParseErr) bool {
			return e.Err.Error() == "binop fill modifiers are experimental and not enabled"
		},
	},
	{
		ID:      "N1",
		Summary: "a query that nests more than 1,000 levels deep is refused",
		Reason: "the checker's parser recurses, one level of Go's stack a level of the query, and a goroutine's stack " +
			"overflow kills the process: the bound keeps a controller up whatever a spec holds; Prometheus's parser " +
			"is table-driven and has none, and no query anyone writes nests so deep",
		checker: func(err error) bool {
			return strings.Contains(err.Error(), "the query nests deeper than 1000 levels here")
		},
	},
}

// references are the two configurations of Prometheus's parser a query is
// compared with.
type references struct {
	full, byDefault parser.Parser
}

func newReferences() references {
	return references{full: parser.NewParser(referenceOptions), byDefault: parser.NewParser(parser.Options{})}
}

// tally counts the queries of a run and their outcomes.
type tally struct {
	queries, accepted, refused int
	fired                      map[string]int // by difference ID
}

func newTally() *tally { return &tally{fired: map[string]int{}} }

func (t *tally) String() string {
	s := fmt.Sprintf("%d queries: %d accepted by both, %d refused by both", t.queries, t.accepted, t.refused)
	for _, d := range differences {
		s += fmt.Sprintf("; %s explained %d", d.ID, t.fired[d.ID])
	}
	return s
}

// compare runs the checker and both parsers on q, counts the outcome in
// t and returns what is wrong, or "".
func (r references) compare(q string, t *tally) string {
	t.queries++
	ours := promql.Check(q)
	_, theirs := r.full.ParseExpr(q)
	if (ours == nil) != (theirs == nil) {
		for _, d := range differences {
			if ours != nil && d.checker != nil && d.checker(ours) {
				t.fired[d.ID]++
				return ""
			}
		}
		return fmt.Sprintf("%q: the checker says %v, Prometheus (experimental features on) says %v", q, errText(ours), errText(theirs))
	}
	if ours != nil {
		t.refused++
		return ""
	}
	t.accepted++
	_, byDefault := r.byDefault.ParseExpr(q)
	if byDefault == nil {
		return ""
	}
	var errs parser.ParseErrors
	if !errors.As(byDefault, &errs) {
		return fmt.Sprintf("%q: Prometheus (default) refuses it with %v, not a list of parse errors", q, byDefault)
	}
	fired := map[string]bool{}
	for _, e := range errs {
		explained := false
		for _, d := range differences {
			if d.byDefault != nil && d.byDefault(e) {
				fired[d.ID], explained = true, true
			}
		}
		if !explained {
			return fmt.Sprintf("%q: the checker accepts it, Prometheus (default) refuses it, and no deliberate difference explains %q", q, e.Error())
		}
	}
	for id := range fired {
		t.fired[id]++
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return fmt.Sprintf("%q", err.Error())
}
