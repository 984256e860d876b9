package promql

import (
	"fmt"
	"math"
	"strings"
)

// problem is one thing wrong with a query, at a byte offset.
type problem struct {
	pos int
	msg string
}

// bailout unwinds the parser at a syntax error: what follows cannot be
// read reliably, so the parse stops there.
type bailout struct{}

// parser reads a query with one token of lookahead beyond the current one.
// A syntax error stops it; the problems Prometheus finds while it goes on
// parsing (an unknown function, a bad regular expression, an offset given
// twice) are collected and the parse continues.
type parser struct {
	src      string
	lex      lexer
	tok      token  // the current token
	ahead    *token // the token after tok, once peeked
	prev     token  // the last token consumed
	depth    int    // how deeply the expression being parsed nests
	problems []problem
}

// maxDepth bounds how deeply a query may nest, so that the parser's
// recursion stays within a goroutine's stack whatever the query (a 1 MB
// spec of "(((..." included). Prometheus's table-driven parser has no such
// bound; no query anyone writes comes near it.
const maxDepth = 1000

// nest counts one more level of nesting, to be undone by the caller's
// deferred p.depth--.
func (p *parser) nest() {
	if p.depth++; p.depth > maxDepth {
		p.fail(p.tok.pos, fmt.Sprintf("the query nests deeper than %d levels here: want a simpler query", maxDepth))
	}
}

// parse parses query into an expression and the problems found, the
// expression nil after a syntax error.
func parse(query string) (e expr, problems []problem) {
	p := &parser{src: query, lex: newLexer(query)}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			e, problems = nil, p.problems
		}
	}()
	p.advance()
	if p.tok.kind == tokEOF {
		p.fail(0, "found no expression, only spaces and comments: want a PromQL expression")
	}
	e = p.expression(0)
	if p.tok.kind != tokEOF {
		want := "an operator or the end of the query"
		if p.tok.kind == tokAssign {
			want = `an operator ("==" compares) or the end of the query`
		}
		p.fail(p.tok.pos, fmt.Sprintf("unexpected %s after %q: want %s", p.tok, p.text(e), want))
	}
	return e, p.problems
}

// report records a problem and lets the parse go on.
func (p *parser) report(pos int, format string, args ...any) {
	p.problems = append(p.problems, problem{pos: pos, msg: fmt.Sprintf(format, args...)})
}

// fail records a syntax error and stops the parse.
func (p *parser) fail(pos int, msg string) {
	p.problems = append(p.problems, problem{pos: pos, msg: msg})
	panic(bailout{})
}

// unexpected fails at the current token, which is not what was wanted.
func (p *parser) unexpected(want string) {
	p.fail(p.tok.pos, fmt.Sprintf("unexpected %s, want %s", p.tok, want))
}

// unexpectedAfter fails at the current token, which is not what was
// wanted after the previous one.
func (p *parser) unexpectedAfter(want string) {
	if p.prev.kind == tokError { // the zero token: nothing consumed yet
		p.unexpected(want)
	}
	p.unexpected(want + " after " + p.prev.String())
}

// advance moves to the next token; a lexical error stops the parse.
func (p *parser) advance() {
	p.prev = p.tok
	if p.ahead != nil {
		p.tok, p.ahead = *p.ahead, nil
	} else {
		p.tok = p.lex.next()
	}
	if p.tok.kind == tokError {
		p.fail(p.tok.pos, p.tok.text)
	}
}

// peek returns the token after the current one.
func (p *parser) peek() token {
	if p.ahead == nil {
		t := p.lex.next()
		if t.kind == tokError {
			p.fail(t.pos, t.text)
		}
		p.ahead = &t
	}
	return *p.ahead
}

// expect consumes a token of kind k, or fails saying want.
func (p *parser) expect(k tokenKind, want string) {
	if p.tok.kind != k {
		p.unexpected(want)
	}
	p.advance()
}

// end is the offset where the last token consumed ends.
func (p *parser) end() int { return p.prev.pos + len(p.prev.text) }

// text is the source text of e, for a message.
func (p *parser) text(e expr) string {
	start, end := e.span()
	return p.src[start:end]
}

// expression parses binary operations whose operators bind at least as
// tightly as minPrecedence: or (1) < and, unless < comparisons < + - <
// * / % atan2 < ^ (6). ^ is right-associative, the others left.
func (p *parser) expression(minPrecedence int) expr {
	p.nest()
	defer func() { p.depth-- }()
	lhs := p.unaryExpr()
	for {
		op := p.tok
		prec := op.kind.binaryPrecedence()
		if prec == 0 || prec < minPrecedence {
			return lhs
		}
		p.advance()
		b := &binary{op: op, lhs: lhs}
		p.binaryModifiers(b)
		next := prec + 1
		if op.kind == tokPow {
			next = prec
		}
		b.rhs = p.expression(next)
		lhs = b
	}
}

// unaryExpr parses -x or +x, whose operand extends over ^ (-2 ^ 2 is
// -(2 ^ 2)), or an operand with its modifiers.
func (p *parser) unaryExpr() expr {
	if op := p.tok; op.kind == tokAdd || op.kind == tokSub {
		p.advance()
		inner := p.expression(precedencePow)
		if n, ok := inner.(*numberLit); ok {
			n.start = op.pos
			return n
		}
		return &unary{start: op.pos, inner: inner}
	}
	return p.postfix(p.operand())
}

// operand parses a literal, a parenthesized expression, a vector
// selector, a function call or an aggregation.
func (p *parser) operand() expr {
	t := p.tok
	switch {
	case t.kind == tokNumber || t.kind == tokDuration:
		p.advance()
		p.literal(t)
		return &numberLit{start: t.pos, end: p.end()}
	case t.kind == tokString:
		p.advance()
		return &stringLit{start: t.pos, end: p.end()}
	case t.kind == tokLeftParen:
		p.advance()
		inner := p.expression(0)
		p.expect(tokRightParen, fmt.Sprintf(`an operator or ")" to close the "(" at %s`, position(p.src, t.pos)))
		return &paren{start: t.pos, end: p.end(), inner: inner}
	case t.kind == tokLeftBrace:
		vs := &vectorSelector{start: t.pos}
		p.labelMatchers(vs)
		vs.end = p.end()
		return vs
	case t.kind.isAggregation() && p.startsAggregation():
		return p.aggregation()
	case t.kind == tokIdentifier || t.kind == tokStart || t.kind == tokEnd || t.kind == tokStep ||
		t.kind == tokRange || t.kind == tokMaxOf || t.kind == tokMinOf:
		if p.peek().kind == tokLeftParen {
			return p.call()
		}
	}
	if !t.kind.isMetricName() {
		p.unexpectedAfter("an expression")
	}
	p.advance()
	vs := &vectorSelector{start: t.pos, name: t.text}
	if p.tok.kind == tokLeftBrace {
		p.labelMatchers(vs)
	}
	vs.end = p.end()
	return vs
}

// startsAggregation reports whether the aggregation operator at the
// current token starts an aggregation, not a metric of that name.
func (p *parser) startsAggregation() bool {
	switch p.peek().kind {
	case tokLeftParen, tokBy, tokWithout:
		return true
	}
	return false
}

// literal checks that a number or duration token has a value, and
// returns it in seconds.
func (p *parser) literal(t token) float64 {
	if t.kind == tokDuration {
		d, err := parseDuration(t.text)
		if err != nil {
			p.report(t.pos, "%v", err)
		}
		return d.Seconds()
	}
	v, err := parseNumber(t.text)
	if err != nil {
		p.report(t.pos, "%v", err)
	}
	return v
}

// call parses a function call; the current token is its name.
func (p *parser) call() expr {
	name := p.tok
	p.advance()
	c := &call{start: name.pos, fn: functions[name.text]}
	if c.fn == nil {
		if f := functions[strings.ToLower(name.text)]; f != nil {
			p.report(name.pos, "unknown function %s(): want %s() (function names are case-sensitive)", name.text, f.name)
		} else {
			p.report(name.pos, "unknown function %s(): want a PromQL function, e.g. rate() or histogram_quantile()", name.text)
		}
	}
	c.args = p.arguments(name.text)
	c.end = p.end()
	return c
}

// arguments parses the parenthesized arguments of a function or
// aggregation.
func (p *parser) arguments(of string) []expr {
	p.expect(tokLeftParen, fmt.Sprintf(`"(" and the arguments of %s`, of))
	var args []expr
	if p.tok.kind == tokRightParen {
		p.advance()
		return args
	}
	for {
		args = append(args, p.expression(0))
		switch p.tok.kind {
		case tokRightParen:
			p.advance()
			return args
		case tokComma:
			comma := p.tok
			p.advance()
			if p.tok.kind == tokRightParen {
				p.report(comma.pos, "trailing comma in the arguments of %s: want an argument after it, or none", of)
				p.advance()
				return args
			}
		default:
			p.unexpected(fmt.Sprintf(`an operator, "," or ")" in the arguments of %s`, of))
		}
	}
}

// aggregation parses sum(x), sum by (a) (x), sum(x) without (a),
// topk(3, x) and the like; the current token is the operator.
func (p *parser) aggregation() expr {
	op := p.tok
	p.advance()
	a := &aggregation{start: op.pos, op: op}
	grouped := p.tok.kind == tokBy || p.tok.kind == tokWithout
	if grouped {
		p.advance()
		p.groupingLabels()
	}
	args := p.arguments(strings.ToLower(op.text))
	if !grouped && (p.tok.kind == tokBy || p.tok.kind == tokWithout) {
		p.advance()
		p.groupingLabels()
	}
	a.end = p.end()
	want := 1
	if op.kind.hasParam() {
		want = 2
	}
	switch {
	case len(args) == 0:
		p.report(op.pos, "%s() has no arguments: want %s", strings.ToLower(op.text), aggregationArgs(op))
	case len(args) != want:
		p.report(op.pos, "%s() has %s: want %s", strings.ToLower(op.text), plural(len(args), "argument"), aggregationArgs(op))
	case want == 2:
		a.param, a.inner = args[0], args[1]
	default:
		a.inner = args[0]
	}
	return a
}

// plural counts n things: "1 argument", "2 arguments".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// aggregationArgs says what an aggregation takes.
func aggregationArgs(op token) string {
	switch op.kind {
	case tokCountValues:
		return `a label name and an instant vector, e.g. count_values("version", build_info)`
	case tokQuantile:
		return "a quantile and an instant vector, e.g. quantile(0.9, x)"
	case tokLimitRatio:
		return "a ratio and an instant vector, e.g. limit_ratio(0.5, x)"
	case tokTopk, tokBottomk, tokLimitk:
		return fmt.Sprintf("a count and an instant vector, e.g. %s(3, x)", strings.ToLower(op.text))
	}
	return fmt.Sprintf("one instant vector, e.g. %s(x)", strings.ToLower(op.text))
}

// groupingLabels parses the label list of by, without, on, ignoring,
// group_left and group_right: (a, "b.c", ...), maybe empty, a trailing
// comma allowed.
func (p *parser) groupingLabels() []string {
	p.expect(tokLeftParen, `"(" and a list of label names, e.g. (job, instance)`)
	labels := []string{}
	for p.tok.kind != tokRightParen {
		switch t := p.tok; {
		case t.kind.isGroupingLabel():
			labels = append(labels, t.text)
		case t.kind == tokString:
			name := unquote(t.text)
			if !validLabelName(name) {
				p.report(t.pos, "invalid label name %s in a label list: want a non-empty UTF-8 string", t.spelling())
			}
			labels = append(labels, name)
		default:
			p.unexpected("a label name")
		}
		p.advance()
		switch p.tok.kind {
		case tokComma:
			p.advance()
		case tokRightParen:
		default:
			p.unexpected(`"," or ")" in a list of label names`)
		}
	}
	p.advance()
	return labels
}

// binaryModifiers parses what may follow a binary operator: bool, on (...)
// or ignoring (...), group_left or group_right with their labels, and
// fill (...), fill_left (...), fill_right (...).
func (p *parser) binaryModifiers(b *binary) {
	if p.tok.kind == tokBool {
		b.returnBool = true
		p.advance()
	}
	if p.tok.kind == tokOn || p.tok.kind == tokIgnoring {
		b.on = p.tok.kind == tokOn
		p.advance()
		b.matching = p.groupingLabels()
		if p.tok.kind == tokGroupLeft || p.tok.kind == tokGroupRight {
			b.group = p.tok.kind
			p.advance()
			if p.tok.kind == tokLeftParen {
				b.include = p.groupingLabels()
			}
		}
	}
	switch p.tok.kind {
	case tokFill:
		p.fillValue()
		b.fill = true
	case tokFillLeft, tokFillRight:
		other := tokFillRight
		if p.tok.kind == tokFillRight {
			other = tokFillLeft
		}
		p.fillValue()
		if p.tok.kind == other {
			p.fillValue()
		}
		b.fill = true
	}
}

// fillValue parses fill (1), fill_left (-1), fill_right (NaN); the current
// token is the keyword.
func (p *parser) fillValue() {
	keyword := p.tok
	p.advance()
	p.expect(tokLeftParen, `"(" and a number`)
	if p.tok.kind == tokAdd || p.tok.kind == tokSub {
		p.advance()
	}
	if t := p.tok; t.kind != tokNumber && t.kind != tokDuration {
		p.unexpected(fmt.Sprintf("a number in %s (...), e.g. %s (0)", strings.ToLower(keyword.text), strings.ToLower(keyword.text)))
	}
	p.literal(p.tok)
	p.advance()
	p.expect(tokRightParen, `")" after the number`)
}

// postfix parses the modifiers after an operand, which bind tighter than
// any operator, left to right: [range], [range:step], offset, @, anchored
// and smoothed.
func (p *parser) postfix(e expr) expr {
	for {
		switch p.tok.kind {
		case tokLeftBracket:
			e = p.rangeOrSubquery(e)
		case tokOffset:
			p.offset(e)
		case tokAt:
			p.at(e)
		case tokAnchored, tokSmoothed:
			p.anchoredOrSmoothed(e)
		default:
			return e
		}
		setEnd(e, p.end())
	}
}

// setEnd moves the end of e's span past a modifier.
func setEnd(e expr, end int) {
	switch e := e.(type) {
	case *vectorSelector:
		e.end = end
	case *matrixSelector:
		e.end = end
	case *subquery:
		e.end = end
	}
}

// rangeOrSubquery parses [range] after a vector selector or [range:step]
// or [range:] after any expression.
func (p *parser) rangeOrSubquery(e expr) expr {
	open := p.tok
	p.advance()
	p.positiveDuration()
	switch p.tok.kind {
	case tokRightBracket:
		p.advance()
		vs, ok := e.(*vectorSelector)
		switch {
		case !ok:
			p.report(open.pos, `a range [...] may only follow a vector selector, not %q: want a subquery [range:step], e.g. [5m:1m]`, p.text(e))
		case vs.offset:
			p.report(open.pos, "a range [...] follows an offset: want the offset after the range, e.g. foo[5m] offset 1h")
		case vs.at:
			p.report(open.pos, "a range [...] follows an @ modifier: want the @ after the range, e.g. foo[5m] @ 1700000000")
		}
		return &matrixSelector{selector: e, end: p.end()}
	case tokColon:
		p.advance()
		if p.tok.kind != tokRightBracket {
			p.positiveDuration()
		}
		p.expect(tokRightBracket, fmt.Sprintf(`"]" to close the "[" at %s`, position(p.src, open.pos)))
		return &subquery{inner: e, end: p.end()}
	}
	p.unexpected(fmt.Sprintf(`":" or "]" to close the "[" at %s`, position(p.src, open.pos)))
	return nil
}

// offset parses offset and its duration after e.
func (p *parser) offset(e expr) {
	keyword := p.tok
	p.advance()
	d := p.offsetDuration()
	m := p.modifiersOf(e, keyword)
	switch {
	case m == nil:
	case m.offset:
		p.report(keyword.pos, "a second offset: want one offset")
	default:
		m.offset = !d.literal || nanoseconds(d.seconds) != 0
	}
}

// at parses @ and its timestamp, start() or end(), after e.
func (p *parser) at(e expr) {
	keyword := p.tok
	p.advance()
	t := p.tok
	switch {
	case t.kind == tokStart || t.kind == tokEnd:
		p.advance()
		p.expect(tokLeftParen, fmt.Sprintf(`"()" after @ %s`, t.text))
		p.expect(tokRightParen, fmt.Sprintf(`"()" after @ %s`, t.text))
	case t.kind == tokAdd || t.kind == tokSub:
		if n := p.peek(); n.kind != tokNumber && n.kind != tokDuration {
			p.advance()
			p.unexpected("a timestamp, e.g. @ 1700000000")
		}
		p.advance()
		fallthrough
	case t.kind == tokNumber || t.kind == tokDuration:
		ts := p.literal(p.tok)
		if t.kind == tokSub {
			ts = -ts
		}
		p.advance()
		if math.IsInf(ts, 0) || math.IsNaN(ts) || ts >= float64(math.MaxInt64) || ts <= float64(math.MinInt64) {
			p.report(t.pos, "timestamp %q after @ is out of range: want seconds since 1970", p.src[t.pos:p.end()])
		}
	default:
		p.unexpected("a timestamp, e.g. @ 1700000000, or start() or end()")
	}
	m := p.modifiersOf(e, keyword)
	switch {
	case m == nil:
	case m.at:
		p.report(keyword.pos, "a second @ modifier: want one")
	default:
		m.at = true
	}
}

// anchoredOrSmoothed parses anchored or smoothed after e.
func (p *parser) anchoredOrSmoothed(e expr) {
	keyword := p.tok
	p.advance()
	var m *modifiers
	switch e := e.(type) {
	case *vectorSelector:
		m = &e.modifiers
	case *matrixSelector:
		vs, ok := e.selector.(*vectorSelector)
		if !ok {
			return // the range is the problem, and reported
		}
		m = &vs.modifiers
	case *subquery:
		p.report(keyword.pos, "%s after a subquery: want it after a vector selector or a range, e.g. foo[5m] %s", keyword.text, keyword.text)
		return
	default:
		p.report(keyword.pos, "%s after %q: want it after a vector selector or a range, e.g. foo[5m] %s", keyword.text, p.text(e), keyword.text)
		return
	}
	if keyword.kind == tokAnchored {
		m.anchored = true
	} else {
		m.smoothed = true
	}
	if m.anchored && m.smoothed {
		p.report(keyword.pos, "anchored and smoothed together: want one of them")
	}
}

// modifiersOf returns the modifiers that offset or @ sets on e, or nil
// when e cannot have them.
func (p *parser) modifiersOf(e expr, keyword token) *modifiers {
	switch e := e.(type) {
	case *vectorSelector:
		return &e.modifiers
	case *matrixSelector:
		if vs, ok := e.selector.(*vectorSelector); ok {
			return &vs.modifiers
		}
		return nil // the range is the problem, and reported
	case *subquery:
		return &e.modifiers
	}
	example := "foo offset 5m"
	if keyword.kind == tokAt {
		example = "foo @ 1700000000"
	}
	p.report(keyword.pos, "%s after %q: want it after a vector selector, a range or a subquery, e.g. %s", keyword.text, p.text(e), example)
	return nil
}
