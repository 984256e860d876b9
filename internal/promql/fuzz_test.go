package promql

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// FuzzCheck checks the checker on arbitrary input: it never panics and
// gives the same answer twice; every problem starts with a line:column
// inside the query; a query it accepts stays accepted in parentheses,
// after a space and before a comment.
func FuzzCheck(f *testing.F) {
	for _, q := range []string{
		`sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) > 0.1`, "max(foo) <", "rate(x[5m",
		`{"a.b", c!~"\\Q.*"}`, "foo offset (5m) * 2 @ start()", "foo[5m:step()] anchored", "0x1e + 1_000 - .5e-3",
		"foo + on(a) group_left (b) fill_left(1) bar", "`raw\nstring`", "'\\u00e9' # comment", "histogram_quantile(0.9, x)",
		"1 < bool 2", "topk(3, x) by (a)", "foo[-(5m) + max_of(1m, range())]", "{a=~\"\\xff|b\"}", "foo @ -1e19",
	} {
		f.Add(q)
	}
	problem := regexp.MustCompile(`^(\d+):(\d+): .`)
	f.Fuzz(func(t *testing.T, q string) {
		err := Check(q)
		again := Check(q)
		if (err == nil) != (again == nil) || (err != nil && err.Error() != again.Error()) {
			t.Fatalf("%q: two answers: %v and %v", q, err, again)
		}
		if err == nil {
			for _, wrapped := range []string{"(" + q + "\n)", " " + q, q + "\n# a comment"} {
				if err := Check(wrapped); err != nil {
					t.Fatalf("%q is accepted, %q is not: %v", q, wrapped, err)
				}
			}
			return
		}
		lines := strings.Count(q, "\n") + 1
		joined, ok := err.(interface{ Unwrap() []error })
		if !ok {
			t.Fatalf("%q: %v is not a list of problems", q, err)
		}
		for _, e := range joined.Unwrap() {
			msg := e.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("%q: problem %q has a line break", q, msg)
			}
			m := problem.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("%q: problem %q does not start with line:column", q, msg)
			}
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			if line < 1 || line > lines || col < 1 || col > len(q)+1 {
				t.Fatalf("%q: problem %q is outside the query", q, msg)
			}
		}
	})
}
