package promql

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Check returns nil when Prometheus 3.x would accept query as a PromQL
// expression, and otherwise an error that joins (errors.Join) every
// problem found, each "line:column: what was found: want what", the
// column in bytes. A syntax error ends the list: what follows it cannot be
// read reliably. Types are checked only in a query without other
// problems, as Prometheus does.
//
// "Accept" is what Prometheus v0.316.0's parser (promql/parser,
// NewParser(Options{...}).ParseExpr) accepts with experimental functions
// and fill modifiers enabled, so that no query a server could run with
// --enable-feature=promql-experimental-functions is refused here; a
// server without that feature refuses those functions (limitk,
// limit_ratio, sort_by_label, info, ...) and fill (...) at run time.
// Unquoted UTF-8 names (--enable-feature=promql-unquoted-utf8-names) are
// not accepted: quote such names, {"http.requests"}, as Prometheus's
// default does.
func Check(query string) error {
	e, problems := parse(query)
	if len(problems) == 0 {
		c := &checker{src: query}
		c.check(e)
		problems = c.problems
	}
	if len(problems) == 0 {
		return nil
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = fmt.Errorf("%s: %s", position(query, p.pos), p.msg)
	}
	return errors.Join(errs...)
}

// checker checks the types of a parsed query as Prometheus does.
type checker struct {
	src      string
	problems []problem
}

func (c *checker) report(pos int, format string, args ...any) {
	c.problems = append(c.problems, problem{pos: pos, msg: fmt.Sprintf(format, args...)})
}

// source is the source text of e.
func (c *checker) source(e expr) string {
	start, end := e.span()
	return c.src[start:end]
}

// text is the source text of e, quoted, for a message.
func (c *checker) text(e expr) string { return fmt.Sprintf("%q", c.source(e)) }

// typeOf is the type of e's value.
func typeOf(e expr) valueType {
	switch e := e.(type) {
	case *numberLit:
		return scalar
	case *stringLit:
		return str
	case *vectorSelector, *aggregation:
		return vector
	case *matrixSelector, *subquery:
		return matrix
	case *call:
		return e.fn.returns
	case *paren:
		return typeOf(e.inner)
	case *unary:
		return typeOf(e.inner)
	case *binary:
		if typeOf(e.lhs) == scalar && typeOf(e.rhs) == scalar {
			return scalar
		}
		return vector
	}
	return none
}

// article prefixes a type with its article: "an instant vector".
func article(t valueType) string {
	if t == vector {
		return "an " + t.String()
	}
	return "a " + t.String()
}

// check checks e and what it holds, and returns e's type.
func (c *checker) check(e expr) valueType {
	switch e := e.(type) {
	case *vectorSelector:
		c.selector(e)
	case *matrixSelector:
		c.check(e.selector)
	case *subquery:
		if t := c.check(e.inner); t != vector {
			start, _ := e.inner.span()
			c.report(start, "a subquery of %s %s: want an instant vector before [range:step]", article(t), c.text(e.inner))
		}
	case *paren:
		c.check(e.inner)
	case *unary:
		if t := c.check(e.inner); t != scalar && t != vector {
			c.report(e.start, "a sign before %s %s: want a scalar or an instant vector", article(t), c.text(e.inner))
		}
	case *call:
		c.call(e)
	case *aggregation:
		c.aggregation(e)
	case *binary:
		c.binary(e)
	}
	return typeOf(e)
}

// expect checks e, which should be of type want, in what.
func (c *checker) expect(e expr, want valueType, what string) {
	if t := c.check(e); t != want {
		start, _ := e.span()
		hint := ""
		if vs, ok := e.(*vectorSelector); ok && want == matrix {
			hint = fmt.Sprintf(", e.g. %q", c.source(vs)+"[5m]")
		}
		c.report(start, "%s is %s %s: want %s%s", what, article(t), c.text(e), article(want), hint)
	}
}

// selector checks that a vector selector names its metric once and, unless
// it is info's second argument, does not select every series.
func (c *checker) selector(vs *vectorSelector) {
	if vs.name != "" {
		for _, m := range vs.matchers {
			if m.name == "__name__" {
				c.report(vs.start, "the metric name is given twice in %s: want it before the braces or as __name__ in them", c.text(vs))
			}
		}
		return
	}
	if vs.labelsOnly {
		return
	}
	if !slices.ContainsFunc(vs.matchers, func(m labelMatcher) bool { return !m.matchesEmpty }) {
		c.report(vs.start, `%s selects every series: want a metric name or a matcher that the empty value fails, e.g. {job="api"}`, c.text(vs))
	}
}

// call checks a function's argument count and types.
func (c *checker) call(e *call) {
	fn := e.fn
	n, got := len(fn.args), len(e.args)
	switch {
	case fn.variadic == 0 && got != n:
		c.report(e.start, "%s() has %s: want %d", fn.name, plural(got, "argument"), n)
	case fn.variadic != 0 && got < n-1:
		c.report(e.start, "%s() has %s: want at least %d", fn.name, plural(got, "argument"), n-1)
	case fn.variadic > 0 && got > n-1+fn.variadic:
		c.report(e.start, "%s() has %s: want at most %d", fn.name, plural(got, "argument"), n-1+fn.variadic)
	}
	if fn.name == "info" && got > 1 {
		c.infoLabels(e.args[1])
	}
	for k, arg := range e.args {
		i := k
		if i >= n {
			if fn.variadic == 0 {
				break // the count is wrong, and reported
			}
			i = n - 1
		}
		c.expect(arg, fn.args[i], fmt.Sprintf("argument %d of %s()", k+1, fn.name))
	}
}

// infoLabels checks info's second argument: label matchers only, which may
// all match the empty value.
func (c *checker) infoLabels(arg expr) {
	start, _ := arg.span()
	if t := typeOf(arg); t != vector {
		c.report(start, "argument 2 of info() is %s %s: want label matchers, e.g. {k8s_cluster_name=~\".+\"}", article(t), c.text(arg))
	}
	vs, ok := arg.(*vectorSelector)
	switch {
	case ok && vs.name != "":
		c.report(start, "argument 2 of info() names the metric %q: want label matchers only, e.g. {k8s_cluster_name=~\".+\"}", vs.name)
	case ok:
		vs.labelsOnly = true
	default:
		c.report(start, "argument 2 of info() is %s: want label matchers only, e.g. {k8s_cluster_name=~\".+\"}", c.text(arg))
	}
}

// aggregation checks an aggregation's vector and parameter.
func (c *checker) aggregation(e *aggregation) {
	name := strings.ToLower(e.op.text)
	c.expect(e.inner, vector, fmt.Sprintf("the vector of %s()", name))
	switch e.op.kind {
	case tokTopk, tokBottomk, tokQuantile, tokLimitk, tokLimitRatio:
		c.expect(e.param, scalar, fmt.Sprintf("the parameter of %s()", name))
	case tokCountValues:
		c.expect(e.param, str, fmt.Sprintf("the label name of %s()", name))
	}
}

// binary checks a binary operation's operand types and modifiers.
func (c *checker) binary(e *binary) {
	lt, rt := c.check(e.lhs), c.check(e.rhs)
	op := e.op
	if e.returnBool && !op.kind.isComparison() {
		c.report(op.pos, "bool after %s: want it only after a comparison (==, !=, <, <=, >, >=)", op.text)
	}
	if op.kind.isComparison() && !e.returnBool && lt == scalar && rt == scalar {
		c.report(op.pos, "comparing two scalars needs the bool modifier: want %q", c.source(e.lhs)+" "+op.text+" bool "+c.source(e.rhs))
	}
	if e.on {
		for _, l := range e.matching {
			if slices.Contains(e.include, l) {
				c.report(op.pos, "label %q is both in on (...) and in %s (...): want it in one", l, e.groupKeyword())
			}
		}
	}
	for _, side := range []struct {
		e expr
		t valueType
	}{{e.lhs, lt}, {e.rhs, rt}} {
		if side.t != scalar && side.t != vector {
			c.report(spanStart(side.e), "an operand of %s is %s %s: want a scalar or an instant vector", op.text, article(side.t), c.text(side.e))
		}
	}
	switch {
	case lt != vector || rt != vector:
		if len(e.matching) > 0 {
			c.report(op.pos, "on (...) or ignoring (...) after %s between %s and %s: want them only between two instant vectors", op.text, lt, rt)
		}
		if e.fill {
			c.report(op.pos, "fill after %s between %s and %s: want it only between two instant vectors", op.text, lt, rt)
		}
	case op.kind.isSetOperator():
		if e.group != 0 {
			c.report(op.pos, "%s after %s: want no grouping, set operations are many-to-many", e.groupKeyword(), op.text)
		}
		if e.fill {
			c.report(op.pos, "fill after %s: want no fill for a set operation", op.text)
		}
	}
	if (lt == scalar || rt == scalar) && op.kind.isSetOperator() {
		c.report(op.pos, "%s between %s and %s: want two instant vectors", op.text, lt, rt)
	}
}

// groupKeyword spells the binary operation's grouping.
func (e *binary) groupKeyword() string {
	if e.group == tokGroupRight {
		return "group_right"
	}
	return "group_left"
}

func spanStart(e expr) int {
	start, _ := e.span()
	return start
}
