package promql

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCheckAccepts: queries Prometheus 3.x parses, construct by construct.
func TestCheckAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		queries []string
	}{
		{"numbers", []string{"1", "-1", "+5.5e-3", ".5", "5.", "0x1f", "0X_1", "0755", "08", "1_000", "Inf", "-inf", "NaN", "0x1e3"}},
		{"durations", []string{"5m", "1h30m", "1y2w3d4h5m6s7ms", "-1h", "0", "1h30m + 1"}},
		{"strings", []string{`"a"`, `'a'`, "`a\nb`", `"\u00e9\x41\101\n\t\\\""`, `'\''`, `"'"`, `'"'`}},
		{"selectors", []string{"foo", "foo:bar:baz", ":", "foo{}", `foo{job="a",instance!="b",path=~"/api/.*",code!~"5.."}`,
			`{job="a"}`, `{__name__="foo"}`, `{"foo.bar"}`, `{"foo.bar", job="a"}`, `{"a.b"="c"}`, `foo{job="a",}`,
			`{a=~".+"}`, `{a!~""}`, `{a!=""}`, `{a=~"\\p{Greek}"}`, `{a=~"(?i)x|y"}`, `{a=~"a|b"}`, `{a=~"\xff|b"}`,
			`{a=~"\\Q.*"}`, `foo{a="b"} # a comment`, "foo\n# a comment\n+ bar"}},
		{"keywords as metric names", []string{"sum", "by", "without", "offset", "and", "start", "step", "max_of", "anchored",
			"fill", "fill + fill_left", "foo and and", "SUM{job=\"a\"}", "Offset offset 5m"}},
		{"ranges and subqueries", []string{"foo[5m]", "foo[ 5m ]", "foo [1h30m]", "foo[1.5]", "foo[0x10]", "foo[5m:1m]", "foo[5m:]",
			"rate(foo[5m])[30m:1m]", "(foo + bar)[5m:]", "foo[5m * 2]", "foo[step()]", "foo[max_of(5m, step())]",
			"foo[-(-5m)]", "foo[--5m]", "foo[5m - 10m]", "foo[5m / (0)]", "foo[(5m):1m]"}},
		{"offset and @", []string{"foo offset 5m", "foo offset -5m", "foo[5m] offset 1h", "foo[5m:1m] offset 1h", "foo offset 0 offset 5m",
			"foo offset 0 [5m]", "foo offset step()", "foo offset -(5m)", "foo offset (5m) * 2", "foo offset 5m * 2",
			"foo @ 1700000000", "foo @ -1", "foo @ 1h", "foo @ start()", "foo @ end ( )", "foo[5m] @ 100 offset 5m",
			"foo offset 5m @ 100", "foo anchored", "foo[5m] smoothed", "foo anchored[5m]", "rate(foo[5m] anchored)"}},
		{"functions", []string{"time()", "pi()", "rate(foo[5m])", "rate((foo[5m]))", "histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))",
			"round(foo)", "round(foo, 5)", `label_join(foo, "dst", ",", "a", "b", "c")`, `label_replace(foo, "dst", "$1", "src", "(.*)")`,
			"day_of_month()", "vector(1)", "scalar(foo)", "clamp(foo, 0, 1)", "quantile_over_time(0.9, foo[5m])",
			"sort_by_label(foo, \"a\", \"b\")", "info(foo, {k8s_cluster_name=~\".+\"})", "info(foo)", "step()", "max_of(1, 2)",
			"rate(foo[5m:1m])"}},
		{"aggregations", []string{"sum(foo)", "sum by (job) (foo)", "sum(foo) by (job)", "sum without () (foo)", "sum by (job,) (foo)",
			`sum by ("a.b", job) (foo)`, "sum by (foo:bar, sum, on, bool, offset) (foo)", "topk(3, foo)", "bottomk by (a) (3, foo)",
			`count_values("v", foo)`, "quantile(0.9, foo)", "limitk(2, foo)", "limit_ratio(0.5, foo)", "group(foo)",
			"stddev(foo)", "stdvar(foo)", "SUM BY (job) (foo)", "topk(scalar(foo), bar)"}},
		{"binary operators", []string{"1 + 2 * 3 ^ 4 ^ 5", "-2 ^ 2", "2 ^ -1", "1 < bool 2", "1 == bool 2 == bool 3", "foo > 1",
			"1 > foo", "foo </ bar", "foo >/ 0.5", "1 </ 2", "foo atan2 bar", "foo and bar or baz unless qux",
			"foo + on(a) bar", "foo * on(a) group_left bar", "foo * ignoring(a) group_right(b, c) bar",
			"foo * on(a) group_left (b) bar", "foo == bool on(a) bar", "1 + on() foo", "foo and on(a) bar",
			"foo + fill(0) bar", "foo + fill_left(1) fill_right(-1) bar", "foo + on(a) group_left fill(NaN) bar",
			"foo + ignoring(a) group_left(a) bar", "max(foo) < 0.01"}},
		{"unary and parentheses", []string{"-foo", "+foo", "-(1)", "- - 1", "-foo offset 5m", "((foo))", "(foo[5m])", "-sum(foo)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, q := range tt.queries {
				assert.NoError(t, Check(q), "%q", q)
			}
		})
	}
}

// TestCheckRefuses: what is wrong, where, and what is wanted.
func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  string
	}{
		// Syntax.
		{"max(foo) <", `1:11: unexpected end of input, want an expression after "<"`},
		{"sum(rate(x[5m])", `1:16: unexpected end of input, want ")" to close the "(" at 1:4`},
		{"rate(x[5m", `1:10: unexpected end of input, want "]" to close the "[" at 1:7`},
		{"foo)", `1:4: unexpected ")": no "(" to close`},
		{"foo bar", `1:5: unexpected identifier "bar" after "foo": want an operator or the end of the query`},
		{"foo = 1", `1:5: unexpected "=" after "foo": want an operator ("==" compares) or the end of the query`},
		{"foo on(a) bar", `1:5: unexpected "on" after "foo": want an operator or the end of the query`},
		{"sum by (a) (x) by (b)", `1:16: unexpected "by" after "sum by (a) (x)": want an operator or the end of the query`},
		{"sum by (without) (x)", `1:9: unexpected "without", want a label name`},
		{"sum by", `1:7: unexpected end of input, want "(" and a list of label names, e.g. (job, instance)`},
		{`{a="b" c="d"}`, `1:8: unexpected identifier "c", want "," or "}" to close the "{" at 1:1`},
		{`{a}`, `1:3: unexpected "}", want =, !=, =~ or !~ after the label name a`},
		{`{a=}`, `1:4: unexpected "}", want a quoted value after a=, e.g. a="api"`},
		{`up{job="a}`, `1:8: the string starting "\"a}" is not terminated: want a closing " on its line`},
		{`"\z"`, "1:1: unknown escape sequence `\\z` in the string starting \"\\\"\\\\z\\\"\""},
		{"foo =~ \"a\"", `1:5: unexpected "=~" outside braces: want it in a label matcher, e.g. {job=~"api.*"}`},
		{"foo[x]", `1:5: unexpected character 'x' inside "[...]": want a duration, e.g. [5m]`},
		{"foo[5m:1m:1m]", `1:10: unexpected second ":" in a subquery's [range:step]`},
		{"foo[:5m]", `1:5: unexpected ":" before a duration: want a range, e.g. [5m:1m]`},
		{"foo offset bar", `1:12: unexpected identifier "bar", want a duration after offset, e.g. offset 5m`},
		{"foo offset (5m) + bar", `1:19: unexpected identifier "bar", want a duration (5m, step(), range(), max_of(...) or min_of(...)) after "+"`},
		{"foo @ step()", `1:7: unexpected "step", want a timestamp, e.g. @ 1700000000, or start() or end()`},
		{"foo + fill(foo) bar", `1:12: unexpected identifier "foo", want a number in fill (...), e.g. fill (0)`},
		{"# only a comment", `1:1: found no expression, only spaces and comments: want a PromQL expression`},
		{"0x1e", `1:1: bad number or duration "0x1e"`},
		{"1e400", `1:1: number 1e400 is out of range: want at most 1.7976931348623157e+308`},
		{"foo[5m1h]", `1:5: duration 5m1h does not parse: want numbers with units from y, w, d, h, m, s, ms, biggest first, e.g. 1h30m`},
		{"foo[5hs]", `1:5: duration 5hs has an unknown unit "hs": want y, w, d, h, m, s or ms`},
		{"é", `1:1: unexpected character 'é'`},

		// Found while parsing.
		{"Rate(x[5m])", `1:1: unknown function Rate(): want rate() (function names are case-sensitive)`},
		{"nope(x)", `1:1: unknown function nope(): want a PromQL function, e.g. rate() or histogram_quantile()`},
		{"rate(x[5m],)", `1:11: trailing comma in the arguments of rate: want an argument after it, or none`},
		{"sum()", `1:1: sum() has no arguments: want one instant vector, e.g. sum(x)`},
		{"topk(x)", `1:1: topk() has 1 argument: want a count and an instant vector, e.g. topk(3, x)`},
		{`{a=~"["}`, "1:2: invalid regular expression `[` for label \"a\": missing closing ]: `[`"},
		{`{a=~"\\p{ASCII}"}`, "1:2: invalid regular expression `\\p{ASCII}` for label \"a\": invalid character class `\\p{ASCII}`: want a Unicode category or script, e.g. \\p{L} or \\p{Greek}"},
		{`sum by ("") (x)`, `1:9: invalid label name "" in a label list: want a non-empty UTF-8 string`},
		{"foo[-5m]", `1:5: duration "-5m" is not positive: want a range above 0, e.g. 5m`},
		{"foo[5m:0]", `1:8: duration "0" is not positive: want a range above 0, e.g. 5m`},
		{"foo[5m / 0]", `1:8: division by zero in a duration: want a divisor other than 0`},
		{"foo[1e30]", `1:5: duration "1e30" is out of range: want at most about 292 years`},
		{"foo offset 5m [5m]", `1:15: a range [...] follows an offset: want the offset after the range, e.g. foo[5m] offset 1h`},
		{"foo @ 1 [5m]", `1:9: a range [...] follows an @ modifier: want the @ after the range, e.g. foo[5m] @ 1700000000`},
		{"(foo)[5m]", `1:6: a range [...] may only follow a vector selector, not "(foo)": want a subquery [range:step], e.g. [5m:1m]`},
		{"sum(x) offset 5m", `1:8: offset after "sum(x)": want it after a vector selector, a range or a subquery, e.g. foo offset 5m`},
		{"foo offset 1m offset 2m", `1:15: a second offset: want one offset`},
		{"foo @ 1 @ 2", `1:9: a second @ modifier: want one`},
		{"foo @ Inf", `1:7: timestamp "Inf" after @ is out of range: want seconds since 1970`},
		{"(foo) anchored", `1:7: anchored after "(foo)": want it after a vector selector or a range, e.g. foo[5m] anchored`},
		{"foo[5m:] smoothed", `1:10: smoothed after a subquery: want it after a vector selector or a range, e.g. foo[5m] smoothed`},
		{"foo anchored smoothed", `1:14: anchored and smoothed together: want one of them`},

		// Types.
		{"rate(foo)", `1:6: argument 1 of rate() is an instant vector "foo": want a range vector, e.g. "foo[5m]"`},
		{"abs(foo[5m])", `1:5: argument 1 of abs() is a range vector "foo[5m]": want an instant vector`},
		{"rate(x[5m], 1)", `1:1: rate() has 2 arguments: want 1`},
		{"label_join(x)", `1:1: label_join() has 1 argument: want at least 3`},
		{"round(x, 1, 2)", `1:1: round() has 3 arguments: want at most 2`},
		{"histogram_quantile(x)", "1:1: histogram_quantile() has 1 argument: want 2\n" +
			`1:20: argument 1 of histogram_quantile() is an instant vector "x": want a scalar`},
		{"sum(rate(x[5m]))", ""},
		{"sum(x[5m])", `1:5: the vector of sum() is a range vector "x[5m]": want an instant vector`},
		{`topk("a", x)`, `1:6: the parameter of topk() is a string "\"a\"": want a scalar`},
		{"count_values(1, x)", `1:14: the label name of count_values() is a scalar "1": want a string`},
		{"1 < 2", `1:3: comparing two scalars needs the bool modifier: want "1 < bool 2"`},
		{"(1) >= -2", `1:5: comparing two scalars needs the bool modifier: want "(1) >= bool -2"`},
		{"foo + bool bar", `1:5: bool after +: want it only after a comparison (==, !=, <, <=, >, >=)`},
		{"foo[5m] + 1", `1:1: an operand of + is a range vector "foo[5m]": want a scalar or an instant vector`},
		{`"a" * 2`, `1:1: an operand of * is a string "\"a\"": want a scalar or an instant vector`},
		{"1 and 2", `1:3: and between scalar and scalar: want two instant vectors`},
		{"foo and on(a) group_left bar", `1:5: group_left after and: want no grouping, set operations are many-to-many`},
		{"1 + on(a) foo", `1:3: on (...) or ignoring (...) after + between scalar and instant vector: want them only between two instant vectors`},
		{"foo + on(a) group_left(a) bar", `1:5: label "a" is both in on (...) and in group_left (...): want it in one`},
		{"1 + fill(0) foo", `1:3: fill after + between scalar and instant vector: want it only between two instant vectors`},
		{"foo and fill(0) bar", `1:5: fill after and: want no fill for a set operation`},
		{"-foo[5m]", `1:1: a sign before a range vector "foo[5m]": want a scalar or an instant vector`},
		{"foo[5m][1m:]", `1:1: a subquery of a range vector "foo[5m]": want an instant vector before [range:step]`},
		{"{}", `1:1: "{}" selects every series: want a metric name or a matcher that the empty value fails, e.g. {job="api"}`},
		{`{job=~".*", a!="b"}`, `1:1: "{job=~\".*\", a!=\"b\"}" selects every series: want a metric name or a matcher that the empty value fails, e.g. {job="api"}`},
		{`foo{__name__="bar"}`, `1:1: the metric name is given twice in "foo{__name__=\"bar\"}": want it before the braces or as __name__ in them`},
		{"info(foo, bar)", `1:11: argument 2 of info() names the metric "bar": want label matchers only, e.g. {k8s_cluster_name=~".+"}`},

		// Every problem found, in one error.
		{"rate(x) + rate(y)", `1:6: argument 1 of rate() is an instant vector "x": want a range vector, e.g. "x[5m]"` + "\n" +
			`1:16: argument 1 of rate() is an instant vector "y": want a range vector, e.g. "y[5m]"`},
		{"nope(x) + Rate(y[5m]) +", `1:1: unknown function nope(): want a PromQL function, e.g. rate() or histogram_quantile()` + "\n" +
			`1:11: unknown function Rate(): want rate() (function names are case-sensitive)` + "\n" +
			`1:24: unexpected end of input, want an expression after "+"`},
		{"foo\n  + bar\n  < ", `3:5: unexpected end of input, want an expression after "<"`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.query)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Equal(t, tt.want, err.Error())
			}
		})
	}
}

// TestCheckDepth: a query may nest 1,000 levels deep, not more, however
// it nests.
func TestCheckDepth(t *testing.T) {
	t.Parallel()
	nest := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	tests := []struct {
		name  string
		query func(n int) string
	}{
		{"parentheses", func(n int) string { return nest("(", "1", ")", n-1) }},
		{"signs", func(n int) string { return nest("-", "foo", "", n-1) }},
		{"powers", func(n int) string { return nest("foo ^ ", "foo", "", n-1) }},
		{"calls", func(n int) string { return nest("abs(", "foo", ")", n-1) }},
		{"durations", func(n int) string { return "foo[" + nest("(", "5m", ")", n-2) + "]" }}, // foo is a level
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.NoError(t, Check(tt.query(maxDepth)))
			err := Check(tt.query(maxDepth + 1))
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), "the query nests deeper than 1000 levels here: want a simpler query")
			}
			assert.Error(t, Check(tt.query(1_000_000)), "no stack overflow")
		})
	}
}

// BenchmarkCheck checks a verification's typical query, and one with
// regular expressions, which compiling dominates.
func BenchmarkCheck(b *testing.B) {
	for _, q := range []string{
		`sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m])) > 0.01`,
		`histogram_quantile(0.99, sum by (le) (rate(addon_request_seconds_bucket{job="addon", path!~"/healthz|/metrics"}[10m]))) < 0.5`,
	} {
		b.Run(strconv.Itoa(len(q)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Check(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
