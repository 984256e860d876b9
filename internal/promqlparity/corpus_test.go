package promqlparity

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handWritten are queries at the edges of the grammar, most of them
// corners where Prometheus's yacc grammar decides something a
// recursive-descent parser could easily decide otherwise. Whether each is
// valid is Prometheus's to say: the test asks both.
var handWritten = map[string][]string{
	"literals": {"1", "-1", "+5.5e-3", ".5", "5.", "0x1f", "0X_1", "0x1e", "0xfe", "0x1e3", "0x", "0755", "08", "0_1",
		"1_000", "1__0", "1e", "1e+", "1e400", "1.2.3", "Inf", "-inf", "NaN", "nAn", "0x1p-2", "1h30m", "1y1w", "1w1y",
		"30m1h", "1m1m", "5hs", "1.5m", "1_0m", "5sm", "100000000000000000000s", `"a"`, `'a'`, "`a\nb`", `"\u00e9"`,
		`"\ud800"`, `"\400"`, `"\377"`, `"\z"`, `'\"'`, `"\'"`, `'\''`, "\"a\nb\"", "\"\xff\"", "\"\uFFFD\"", "é"},
	"selectors": {"foo", "foo:bar", ":", "::", "foo{}", "{}", `{a=""}`, `{a=~".*"}`, `{a=~".+"}`, `{a!~""}`, `{a!="a"}`,
		`{a!=""}`, `{"foo"}`, `{"foo", "bar"}`, `foo{"foo"}`, `{""}`, `{""="a"}`, `{"foo.bar", job="x"}`, `foo{__name__="a"}`,
		`foo{__name__!="a"}`, `{__name__="a", __name__="b"}`, `{a="b", a="c"}`, `{foo:bar="x"}`, `{a="b",}`, `{,}`,
		`{a="b",,}`, `{a}`, `{a=}`, `{a=="b"}`, `{a~"b"}`, `{1a="b"}`, `{sum="a", offset="b"}`, `{a=~"a|b|"}`,
		`{a=~"["}`, `{a=~"\\"}`, `{a=~"\\p{Greek}"}`, `{a=~"\\p{ASCII}"}`, `{a=~"\\p{Assigned}"}`, `{a=~"\\p{Old_Italic}"}`,
		`{a=~"\\p{greek}"}`, `{a=~"\\pL"}`, `{a=~"\\p"}`, `{a=~"(?<n>x)"}`, `{a=~"x{1001}"}`, `{a=~"\\Q.*"}`, `{a=~"\xff"}`,
		`{a=~"\xff."}`, `{a=~"a{,3}"}`, `{a=~"(?i)x"}`, "foo # comment", "# comment", "{a=\"b\" # comment\n}"},
	"keywords as names": {"sum", "sum{}", "and", "foo and and", "foo and or", "by", "on", "bool", "offset", "offset{a=\"b\"}",
		"without", "group_left", "atan2", "start", "start()", "STEP()", "Start()", "end()", "step", "range", "max_of",
		"anchored", "smoothed", "fill", "fill + fill", "fill_left(1)", "Rate(foo[5m])", "SUM(foo)", "foo + offset",
		"foo offset offset"},
	"ranges and subqueries": {"foo[5m]", "foo [5m]", "foo[ 5m ]", "foo[5 m]", "foo[1.5]", "foo[1e3]", "foo[0x10]",
		"foo[Inf]", "foo[-5m]", "foo[0]", "foo[0s]", "foo[5m+]", "foo[step]", "foo[STEP()]", "foo[x]", "foo[5m:1m:1m]",
		"foo[:1m]", "foo[5m:]", "foo[5m:step()]", "foo[5m:-1m]", "foo[5m:0]", "foo[2^3]", "foo[-(-5m)]", "foo[--5m]",
		"foo[+-5m]", "foo[5m - 10m]", "foo[5m % 0]", "foo[5m / 0]", "foo[5m / (0)]", "foo[5m / -0]", "foo[1e30]",
		"foo[(5m):1m]", "foo[step():1m]", "foo[1m:Step()]", "foo[max_of(5m, step())]", "foo[min_of(1m)]", "foo[5m # c\n]",
		"foo[#c\n5m]", "foo[5m][1m:]", "foo[5m:][1m:]", "rate(foo[5m])[5m:1m]", "foo[5m] [1m]", "(foo)[5m]",
		"(foo)[5m:1m]", "{__name__=\"foo\"}[5m]", "foo[5m]]", "foo[[5m]]", "1[5m:]", "\"a\"[5m:]"},
	"offset and @": {"foo offset 5m", "foo offset -5m", "foo offset 1+1", "foo offset (1+1)", "foo offset -2^2",
		"foo offset (5m) * 2", "foo offset (5m) + bar", "foo offset --5m * 2", "foo offset -5m * 2", "foo offset -(5m) * 2",
		"foo offset step() * 2", "foo offset max_of(1m, 2m) * 2", "foo offset -max_of(1m,2m) ^ 2", "foo offset -(foo)",
		"foo offset foo", "foo offset 5m offset 1m", "foo offset 0 offset 5m", "foo offset 0 [5m]", "foo offset (0) [5m]",
		"foo offset -0 [5m]", "foo offset 0.0000000001 [5m]", "foo offset 1e30", "foo offset Inf", "foo offset NaN [5m]",
		"1 offset 5m", "sum(foo) offset 5m", "(foo) offset 5m", "foo[5m] offset 5m", "foo[5m:1m] offset 5m",
		"foo @ 100", "foo @ -100", "foo @ +100", "foo @ 1m", "foo @ - 1h", "foo @ (1)", "foo @ start", "foo @ start ()",
		"foo @ step()", "foo @ 1 + 2", "foo @ Inf", "foo @ NaN", "foo @ 1e19", "foo @ 9.2e18", "foo @ 0 @ 1",
		"foo @ 5 [5m]", "foo[5m] @ 100", "foo offset 5m @ 100", "a + b @ 5", "-a @ 5", "sum(foo) @ 5",
		"foo anchored", "foo[5m] anchored", "foo anchored smoothed", "foo anchored [5m]", "foo[5m] anchored anchored",
		"(foo[5m]) anchored", "foo[5m:] anchored", "sum(foo) anchored", "rate(foo[5m] anchored)", "foo anchored offset 5m"},
	"functions": {"time()", "time(1)", "pi()", "rate(foo)", "rate(foo[5m])", "rate((foo[5m]))", "rate(foo[5m],)", "rate(,)",
		"rate(foo[5m], 1)", "round(foo)", "round(foo, 1)", "round(foo, 1, 2)", `label_join(foo, "a", ",", "b", "c", "d")`,
		"label_join(foo)", "day_of_month()", "histogram_quantile(0.9, foo)", "histogram_quantile(foo, 0.9)",
		`histogram_quantiles(foo, "q", 0.5, 0.9)`, "info(foo)", "info(foo, bar)", `info(foo, {a="b"})`, "info(foo, {})",
		`info(foo, ({a="b"}))`, "max_of(1, 2)", "max_of(foo, 2)", "vector(foo)", "scalar(foo) > bool 1", "unknown(foo)"},
	"aggregations": {"sum(foo)", "sum by (a) (foo)", "sum(foo) by (a)", "sum by (a) (foo) by (b)", "sum without () (foo)",
		"sum by (a,) (foo)", `sum by ("a.b") (foo)`, "sum by (foo:bar) (foo)", "sum by (without) (foo)", "sum by (inf) (foo)",
		`sum by ("") (foo)`, `sum by ("\xff") (foo)`, "sum by (bool, on, ignoring, group_left, atan2, offset, and) (foo)",
		"topk(3, foo)", "topk(foo)", `topk("a", foo)`, `count_values("x", foo)`, "count_values(1, foo)", "quantile(0.9, foo)",
		"limitk(2, foo)", "limit_ratio(0.5, foo)", "sum(foo, bar)", "sum()", "sum(foo[5m])", "sum by", "sum by (a)"},
	"binary operations": {"1 + 2", "1 < 2", "1 < bool 2", "max(foo) <", "foo[5m] + 1", `"a" + 1`, "1 > bool 2 > 3",
		"1 == bool 2 == bool 3", "foo </ bar", "foo >/ bar", "1 </ 2", "foo </ bool bar", "1 < /2", "foo + bar </ baz",
		"foo atan2 bar", "1 atan2 2", "-2 ^ 2", "2 ^ -1", "a ^ -b ^ c", "a ^ -b * c", "-a * b", "-a[5m]", "-foo offset 5m",
		"foo + on(a) bar", "foo + on(a) group_left bar", "foo + on(a) group_left(b) bar", "foo + on(a) group_left (b) bar",
		"foo + on(a) group_left (b)", "foo + ignoring(a) group_right bar", "foo + group_left bar", "foo and on(a) group_left bar",
		"foo and bar", "foo or bool bar", "foo == bool bar", "foo + bool bar", "foo == on(a) bool bar", "1 + on(a) foo",
		"1 + on() foo", "1 + on() group_left foo", "1 and foo", "1 and 2", "foo + on(a) group_left(a) bar",
		"foo + ignoring(a) group_left(a) bar", "foo + fill(0) bar", "foo + fill(-1) bar", "foo + fill(1m) bar",
		"foo + fill(NaN) bar", "foo + fill_left(0) fill_right(1) bar", "foo + fill_right(0) fill_left(1) bar",
		"foo + fill(0) fill_left(1) bar", "foo + fill_left(0) fill_left(1) bar", "foo + on(a) group_left fill(0) bar",
		"foo and fill(0) bar", "1 + fill(0) foo", "foo + fill(--1) bar", "foo + fill((1)) bar", "foo = 1", "foo == ",
		"foo bar", "foo)", "(foo", "foo]", "foo}", "foo =~ \"a\"", "foo!bar"},
}

// readCorpus reads a file of Go-quoted strings, one a line, lines
// starting with # comments.
func readCorpus(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, err := strconv.Unquote(line)
		require.NoError(t, err, line)
		out = append(out, q)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestParityCorpus runs the hand-written queries and Prometheus's own
// parser test inputs and engine test queries (testdata/prometheus.txt)
// through the checker and Prometheus's parser: they must agree on every
// one.
func TestParityCorpus(t *testing.T) {
	t.Parallel()
	sets := map[string][]string{"prometheus test inputs": readCorpus(t, "testdata/prometheus.txt")}
	for name, queries := range handWritten {
		sets["hand-written "+name] = queries
	}
	for name, queries := range sets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			refs, n := newReferences(), newTally()
			for _, q := range queries {
				if msg := refs.compare(q, n); msg != "" {
					t.Error(msg)
				}
			}
			t.Logf("%s: %v", name, n)
			assert.Positive(t, n.accepted, "no query of the set is valid")
			assert.Positive(t, n.refused, "no query of the set is invalid")
		})
	}
}
