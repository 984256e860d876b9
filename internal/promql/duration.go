package promql

import "fmt"

// durationValue is what the checks need of a duration expression: whether
// it is a plain number of seconds (5m, -1h, 30) and which, or an
// expression that Prometheus evaluates later (5m * 2, step(), (5m)).
type durationValue struct {
	literal bool
	seconds float64
}

// durationPrecedence is the precedence of k as an operator of a duration
// expression, or 0: + - < * / % < ^.
func durationPrecedence(k tokenKind) int {
	switch k {
	case tokAdd, tokSub:
		return 4
	case tokMul, tokDiv, tokMod:
		return 5
	case tokPow:
		return 6
	}
	return 0
}

// positiveDuration parses the range or step of [range:step], which must
// be above 0 when it is a plain number.
func (p *parser) positiveDuration() {
	start, reported := p.tok.pos, len(p.problems)
	if d := p.durationExpr(0); d.literal && d.seconds <= 0 && len(p.problems) == reported {
		p.report(start, "duration %q is not positive: want a range above 0, e.g. 5m", p.src[start:p.end()])
	}
}

// durationExpr parses a duration expression of operators binding at least
// as tightly as minPrecedence: 5m, 1h + 5m, 2 * step(), -(5m),
// max_of(5m, step()).
func (p *parser) durationExpr(minPrecedence int) durationValue {
	p.nest()
	defer func() { p.depth-- }()
	lhs := p.durationUnary()
	for {
		op := p.tok
		prec := durationPrecedence(op.kind)
		if prec == 0 || prec < minPrecedence {
			return lhs
		}
		p.advance()
		next := prec + 1
		if op.kind == tokPow {
			next = prec
		}
		rhs := p.durationExpr(next)
		lhs = durationValue{}
		if (op.kind == tokDiv || op.kind == tokMod) && rhs.literal && rhs.seconds == 0 {
			what := "division"
			if op.kind == tokMod {
				what = "modulo"
			}
			p.report(op.pos, "%s by zero in a duration: want a divisor other than 0", what)
			lhs = durationValue{literal: true} // as Prometheus: 0, which then fails as a range
		}
	}
}

// durationUnary parses -d or +d, whose operand extends over ^, or a
// duration operand. A sign on a plain number is folded into it.
func (p *parser) durationUnary() durationValue {
	op := p.tok
	if op.kind != tokAdd && op.kind != tokSub {
		return p.durationOperand()
	}
	p.advance()
	d := p.durationExpr(precedencePow)
	if d.literal {
		return p.signed(op, d)
	}
	return d
}

// signed applies a sign to a plain number of seconds, which must fit a
// time.Duration.
func (p *parser) signed(sign token, d durationValue) durationValue {
	if sign.kind == tokSub {
		d.seconds = -d.seconds
	}
	if durationOutOfRange(d.seconds) {
		p.report(sign.pos, "duration %q is out of range: want at most about 292 years", p.src[sign.pos:p.end()])
		return durationValue{literal: true}
	}
	return d
}

// durationOperand parses a number of seconds, a duration, step(),
// range(), max_of(a, b), min_of(a, b) or a parenthesized duration
// expression.
func (p *parser) durationOperand() durationValue {
	switch t := p.tok; t.kind {
	case tokNumber, tokDuration:
		p.advance()
		d := durationValue{literal: true, seconds: p.literal(t)}
		if durationOutOfRange(d.seconds) {
			p.report(t.pos, "duration %q is out of range: want at most about 292 years", t.text)
			return durationValue{literal: true}
		}
		return d
	case tokStep, tokRange:
		p.advance()
		p.expect(tokLeftParen, fmt.Sprintf(`"()" after %s`, t.text))
		p.expect(tokRightParen, fmt.Sprintf(`"()" after %s`, t.text))
	case tokMaxOf, tokMinOf:
		p.advance()
		p.expect(tokLeftParen, fmt.Sprintf(`"(" and two durations after %s`, t.text))
		p.durationExpr(0)
		p.expect(tokComma, fmt.Sprintf(`"," and a second duration in %s(...)`, t.text))
		p.durationExpr(0)
		p.expect(tokRightParen, fmt.Sprintf(`")" to close %s(...)`, t.text))
	case tokLeftParen:
		p.advance()
		p.durationExpr(0)
		p.expect(tokRightParen, fmt.Sprintf(`an operator or ")" to close the "(" at %s`, position(p.src, t.pos)))
	default:
		p.unexpectedAfter("a duration (5m, step(), range(), max_of(...) or min_of(...))")
	}
	return durationValue{}
}

// offsetDuration parses the duration after offset. Prometheus's grammar
// makes a signed number, step(), range(), max_of(...), min_of(...) or a
// signed parenthesized expression the whole offset, so that the operator
// after it applies to the offset expression (foo offset 5m * 2 is
// (foo offset 5m) * 2), while any other duration expression goes on as
// far as duration operators do (foo offset (5m) * 2 is foo offset 10m).
func (p *parser) offsetDuration() durationValue {
	t := p.tok
	switch t.kind {
	case tokNumber, tokDuration, tokStep, tokRange, tokMaxOf, tokMinOf:
		return p.durationOperand()
	case tokAdd, tokSub:
		switch p.peek().kind {
		case tokNumber, tokDuration:
			p.advance()
			n := p.tok
			p.advance()
			return p.signed(t, durationValue{literal: true, seconds: p.literal(n)})
		case tokStep, tokRange, tokMaxOf, tokMinOf, tokLeftParen:
			p.advance()
			p.durationOperand()
			return durationValue{}
		}
		return p.durationExpr(0)
	case tokLeftParen:
		return p.durationExpr(0)
	}
	p.unexpected("a duration after offset, e.g. offset 5m")
	return durationValue{}
}
