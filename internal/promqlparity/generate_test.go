package promqlparity

import (
	"math/rand/v2"
	"strings"
)

// generator writes random PromQL queries from the grammar, valid and
// invalid: every construct the checker knows, the keywords where names
// go, literals at the edges of their syntax, and wrong types and arities,
// with random spaces and comments between the tokens.
type generator struct {
	r *rand.Rand
}

// newGenerator returns the generator of case i of seed.
func newGenerator(seed uint64, i int) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, uint64(i)))}
}

func (g *generator) pick(options ...string) string { return options[g.r.IntN(len(options))] }
func (g *generator) chance(percent int) bool       { return g.r.IntN(100) < percent }

// space is what goes between two tokens: mostly one space or nothing,
// sometimes a line break, a tab or a comment.
func (g *generator) space() string {
	switch n := g.r.IntN(40); {
	case n < 18:
		return ""
	case n < 36:
		return " "
	case n < 37:
		return "\n"
	case n < 38:
		return "\t "
	case n < 39:
		return " # a comment\n"
	}
	return "  "
}

// join joins tokens with random spaces.
func (g *generator) join(tokens ...string) string {
	var b strings.Builder
	for i, t := range tokens {
		if i > 0 {
			b.WriteString(g.space())
		}
		b.WriteString(t)
	}
	return b.String()
}

var (
	metricNames = []string{"foo", "http_requests_total", "job:rate5m", ":", "a_1", "sum", "by", "without",
		"offset", "and", "or", "unless", "start", "end", "step", "range", "max_of", "min_of", "anchored",
		"smoothed", "count_values", "limitk", "fill", "fill_left", "Inf", "nan", "bool", "on", "group_left",
		"ignoring", "atan2", "SUM", "Offset", "x1", "_", "rate", "foo::bar"}
	labelNames = []string{"job", "instance", "__name__", "le", "a", "sum", "on", "bool", "offset", "inf",
		`"job"`, `"a.b"`, `""`, `"__name__"`, `'x'`, "`y`", `"\xff"`, "without", "group_left", "1a", "a:b"}
	labelValues = []string{`"api"`, `""`, `"a.*"`, `".*"`, `".+"`, `"a|b"`, `"a|"`, `"|"`, `"["`,
		`"\\p{Greek}"`, `"\\p{ASCII}"`, `"\\pL"`, `"\\p{^Han}"`, `"(?i)x"`, `"x{1001}"`, `"x{2,1}"`, `"\\"`,
		`'single'`, "`raw`", `"\xff"`, `"\\xff"`, `"\n"`, `"(?P<n>a)"`, `"(?<n>a)"`, `"a{,3}"`, `"\\Q.*\\E"`,
		`"\\z"`, `"\\C"`, `"[[:alpha:]]"`, `"[[:foo:]]"`, `"\\p{Assigned}"`, `"\\p{Old_Italic}"`, `"\\p{greek}"`, `"[\\PL\\p{Letter}]"`, `"\\pN+"`, `"\u00e9"`, `"\400"`, `"\377"`}
	numbers = []string{"1", "0", "-1", "0.5", ".5", "5.", "1e3", "1e-3", "1E+3", "0x1f", "0X1F", "0x1e",
		"0xfe", "0x", "0x_1", "0755", "08", "1_000", "1__0", "1e400", "Inf", "-Inf", "NaN", "inf", "nAn",
		"123456789012345678901234567890", "1e", "0x1p-2", "9.2e18", "1e19", "0.0000000001", "1.2.3", "1e3m"}
	durations = []string{"5m", "1h", "1h30m", "30s", "5ms", "1y", "1w", "1d", "1y1w", "1w1y", "30m1h",
		"1m1m", "5hs", "0s", "1.5m", "100000000000000000000s", "9223372036s", "300y", "1ms1ms", "0", "1_0m",
		"5sm", "2h0m"}
	functionNames = []string{"rate", "irate", "increase", "delta", "abs", "absent", "absent_over_time",
		"histogram_quantile", "clamp", "clamp_max", "label_replace", "label_join", "round", "time", "pi",
		"vector", "scalar", "sort", "sort_by_label", "info", "day_of_month", "year", "predict_linear",
		"quantile_over_time", "histogram_quantiles", "double_exponential_smoothing", "integral", "max_of",
		"min_of", "start", "end", "step", "range", "ts_of_max_over_time", "mad_over_time",
		"start_timestamp", "histogram_fraction", "Rate", "RATE", "STEP", "unknown_fn", "sum_over_time",
		"first_over_time", "resets", "changes", "timestamp", "sgn", "days_in_month", "hour"}
	aggregations = []string{"sum", "avg", "count", "min", "max", "group", "stddev", "stdvar", "topk",
		"bottomk", "count_values", "quantile", "limitk", "limit_ratio", "SUM", "Topk"}
	binaryOps = []string{"+", "-", "*", "/", "%", "^", "atan2", "==", "!=", "<", "<=", ">", ">=", "</", ">/",
		"and", "or", "unless", "AND", "Or"}
)

// query returns one random query.
func (g *generator) query() string {
	return g.expr(g.r.IntN(5))
}

// expr returns a random expression nested up to depth.
func (g *generator) expr(depth int) string {
	if depth <= 0 {
		return g.leaf()
	}
	switch g.r.IntN(12) {
	case 0, 1:
		return g.binary(depth)
	case 2:
		return g.call(depth)
	case 3:
		return g.aggregation(depth)
	case 4:
		return g.join(g.pick("-", "+"), g.expr(depth-1))
	case 5:
		return g.join("(", g.expr(depth-1), ")")
	case 6:
		return g.join(g.expr(depth-1), "[", g.durationExpr(2), ":", g.maybe(g.durationExpr(1)), "]")
	case 7:
		return g.join(g.expr(depth-1), g.modifier())
	case 8:
		return g.rangeSelector()
	}
	return g.leaf()
}

func (g *generator) maybe(s string) string {
	if g.chance(30) {
		return ""
	}
	return s
}

// leaf returns a literal or a selector.
func (g *generator) leaf() string {
	switch g.r.IntN(10) {
	case 0:
		return g.pick(numbers...)
	case 1:
		return g.pick(durations...)
	case 2:
		return g.pick(`"a string"`, `'single'`, "`raw\nstring`", `"\u00e9"`, `"\x41"`, `"\ud800"`, `"\z"`, `"\'"`, `'\''`, `"unterminated`)
	case 3, 4:
		return g.rangeSelector()
	}
	return g.selector()
}

// selector returns a vector selector, maybe with modifiers.
func (g *generator) selector() string {
	s := ""
	switch g.r.IntN(6) {
	case 0:
		s = g.join("{", g.matchers(), "}")
	case 1, 2:
		s = g.pick(metricNames...)
	default:
		s = g.join(g.pick(metricNames...), "{", g.matchers(), "}")
	}
	for g.chance(15) {
		s = g.join(s, g.modifier())
	}
	return s
}

// rangeSelector returns a selector with a range, maybe with modifiers
// before (which Prometheus refuses) or after it.
func (g *generator) rangeSelector() string {
	s := g.selector()
	s = g.join(s, "[", g.durationExpr(2), "]")
	for g.chance(20) {
		s = g.join(s, g.modifier())
	}
	return s
}

// matchers returns the inside of {...}.
func (g *generator) matchers() string {
	n := g.r.IntN(4)
	var parts []string
	for range n {
		switch g.r.IntN(8) {
		case 0:
			parts = append(parts, g.pick(`"metric.name"`, `"foo"`, `""`, `'bar'`))
		default:
			parts = append(parts, g.join(g.pick(labelNames...), g.pick("=", "!=", "=~", "!~", "==", "~"), g.pick(labelValues...)))
		}
	}
	s := strings.Join(parts, ","+g.space())
	if n > 0 && g.chance(10) {
		s += ","
	}
	return s
}

// modifier returns offset, @, anchored or smoothed with an argument.
func (g *generator) modifier() string {
	switch g.r.IntN(6) {
	case 0, 1:
		return g.join("offset", g.offsetDuration())
	case 2:
		return g.join("@", g.pick("", "-", "+")+g.pick(append(numbers, durations...)...))
	case 3:
		return g.join("@", g.pick("start", "end", "START", "step"), "(", ")")
	case 4:
		return g.pick("anchored", "smoothed", "ANCHORED")
	}
	return g.join("offset", g.pick(durations...))
}

// offsetDuration returns what may follow offset.
func (g *generator) offsetDuration() string {
	switch g.r.IntN(5) {
	case 0:
		return g.durationExpr(2)
	case 1:
		return g.join("(", g.durationExpr(2), ")")
	case 2:
		return g.join(g.pick("-", "+", "--"), g.durationOperand(1))
	}
	return g.pick(durations...)
}

// durationExpr returns a duration expression, as inside [...].
func (g *generator) durationExpr(depth int) string {
	if depth <= 0 || g.chance(50) {
		return g.durationOperand(depth)
	}
	if g.chance(20) {
		return g.join(g.pick("-", "+"), g.durationExpr(depth-1))
	}
	return g.join(g.durationExpr(depth-1), g.pick("+", "-", "*", "/", "%", "^", "atan2", "<"), g.durationExpr(depth-1))
}

func (g *generator) durationOperand(depth int) string {
	switch g.r.IntN(9) {
	case 0:
		return g.join(g.pick("step", "range", "STEP", "Range", "start"), "(", ")")
	case 1:
		return g.join(g.pick("max_of", "min_of", "MAX_OF"), "(", g.durationExpr(depth-1), ",", g.durationExpr(depth-1), ")")
	case 2:
		return g.join("(", g.durationExpr(depth-1), ")")
	case 3:
		return g.pick("0", "0s", "-5m", "0x0", "1e30", "Inf", "foo", "")
	case 4, 5:
		return g.pick(numbers...)
	}
	return g.pick(durations...)
}

// binary returns a binary operation with random modifiers.
func (g *generator) binary(depth int) string {
	op := g.pick(binaryOps...)
	mods := []string{op}
	if g.chance(20) {
		mods = append(mods, "bool")
	}
	if g.chance(25) {
		mods = append(mods, g.pick("on", "ignoring"), g.labels())
		if g.chance(40) {
			mods = append(mods, g.pick("group_left", "group_right"))
			if g.chance(50) {
				mods = append(mods, g.labels())
			}
		}
	}
	if g.chance(8) {
		mods = append(mods, g.fill())
	}
	return g.join(g.expr(depth-1), g.join(mods...), g.expr(depth-1))
}

func (g *generator) fill() string {
	value := func() string {
		return g.join("(", g.pick("", "-", "+", "--")+g.pick("0", "1", "NaN", "1m", "-Inf", "foo", "(1)"), ")")
	}
	switch g.r.IntN(4) {
	case 0:
		return g.join("fill", value())
	case 1:
		return g.join("fill_left", value(), "fill_right", value())
	case 2:
		return g.join("fill_right", value())
	}
	return g.join("fill_left", value())
}

// labels returns a label list in parentheses.
func (g *generator) labels() string {
	n := g.r.IntN(4)
	var names []string
	for range n {
		names = append(names, g.pick("job", "le", "a", "b", `"a.b"`, `""`, "sum", "bool", "on", "without", "inf",
			"offset", "group_left", "atan2", "foo:bar", "step", "1", `"\xff"`, "fill"))
	}
	s := strings.Join(names, ","+g.space())
	if n > 0 && g.chance(10) {
		s += ","
	}
	return g.join("(", s, ")")
}

// call returns a function call with arguments of random types.
func (g *generator) call(depth int) string {
	name := g.pick(functionNames...)
	n := g.r.IntN(4)
	var args []string
	for range n {
		args = append(args, g.argument(depth-1))
	}
	s := strings.Join(args, ","+g.space())
	if n > 0 && g.chance(5) {
		s += ","
	}
	return g.join(name, "(", s, ")")
}

// argument returns an argument, often of a type some function wants.
func (g *generator) argument(depth int) string {
	switch g.r.IntN(5) {
	case 0:
		return g.rangeSelector()
	case 1:
		return g.pick(numbers...)
	case 2:
		return g.pick(`"dst"`, `","`, `"a"`, `"(.*)"`, `"$1"`)
	}
	return g.expr(depth)
}

// aggregation returns an aggregation with a grouping before or after.
func (g *generator) aggregation(depth int) string {
	op := g.pick(aggregations...)
	grouping := ""
	if g.chance(50) {
		grouping = g.join(g.pick("by", "without", "BY"), g.labels())
	}
	var args []string
	if g.chance(50) || strings.Contains("topk bottomk quantile count_values limitk limit_ratio", strings.ToLower(op)) {
		args = append(args, g.pick("3", "0.5", `"version"`, "foo", "scalar(foo)"))
	}
	if !g.chance(5) {
		args = append(args, g.expr(depth-1))
	}
	body := g.join("(", strings.Join(args, ", "), ")")
	if g.chance(50) {
		return g.join(op, grouping, body)
	}
	return g.join(op, body, grouping)
}

// mutate changes a query a little: it deletes, inserts, replaces or
// duplicates a few characters or tokens, or cuts the query short.
func (g *generator) mutate(q string) string {
	for range 1 + g.r.IntN(2) {
		if q == "" {
			return g.pick(mutationTokens...)
		}
		i := g.r.IntN(len(q))
		j := i + 1 + g.r.IntN(min(4, len(q)-i))
		switch g.r.IntN(6) {
		case 0:
			q = q[:i] + q[j:]
		case 1:
			q = q[:i] + g.pick(mutationTokens...) + q[i:]
		case 2:
			q = q[:i] + string(q[g.r.IntN(len(q))]) + q[i+1:]
		case 3:
			q = q[:j] + q[i:j] + q[j:]
		case 4:
			q = q[:i]
		default:
			q = q[:i] + " " + g.pick(mutationTokens...) + " " + q[j:]
		}
	}
	return q
}

var mutationTokens = []string{"(", ")", "[", "]", "{", "}", ",", ":", "=", "==", "!=", "=~", "!~", "@", "+", "-",
	"*", "/", "^", "<", "</", "#", `"`, "'", "`", "offset", "bool", "on", "by", "without", "group_left", "sum",
	"5m", "1", "foo", "step()", "\\", "\n", "\xff", "é", "ſ", "K", ".", "_", "0x", "e", "inf", "anchored"}
