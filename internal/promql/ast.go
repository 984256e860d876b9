package promql

// expr is a node of a parsed query. Only what the checks need is kept:
// the shape, the positions, and the modifiers that may not repeat.
type expr interface {
	// span is the node's byte range in the query.
	span() (start, end int)
}

// numberLit is a number or a duration in an expression: 1, -2.5, 5m.
type numberLit struct {
	start, end int
}

// stringLit is a string in an expression.
type stringLit struct {
	start, end int
}

// modifiers are the modifiers of a vector selector or a subquery, which
// may be given once each.
type modifiers struct {
	offset   bool // offset given, and not 0
	at       bool // @ given
	anchored bool
	smoothed bool
}

// vectorSelector is foo, foo{job="a"} or {__name__="foo"}.
type vectorSelector struct {
	start, end int
	name       string // the name before the braces, or ""
	matchers   []labelMatcher
	labelsOnly bool // info's second argument, whose matchers may all match ""
	modifiers
}

// labelMatcher is one label matcher of a vector selector.
type labelMatcher struct {
	name         string // unquoted
	matchesEmpty bool   // the matcher selects series without the label
}

// matrixSelector is a vector selector with a range: foo[5m].
type matrixSelector struct {
	selector expr // a *vectorSelector when the query is valid
	end      int
}

// subquery is an expression with a range and an optional step: x[1h:5m].
type subquery struct {
	inner expr
	end   int
	modifiers
}

// call is a function call: rate(x[5m]).
type call struct {
	start, end int
	fn         *function
	args       []expr
}

// aggregation is sum(x), topk(3, x) by (job) and the like.
type aggregation struct {
	start, end int
	op         token
	param      expr // topk's 3, or nil
	inner      expr
}

// binary is a binary operation with its modifiers.
type binary struct {
	op         token
	lhs, rhs   expr
	returnBool bool
	matching   []string // on (...) or ignoring (...)
	on         bool
	group      tokenKind // tokGroupLeft, tokGroupRight or 0
	include    []string  // group_left (...)
	fill       bool      // fill, fill_left or fill_right given
}

// unary is -x or +x, x not a number.
type unary struct {
	start int
	inner expr
}

// paren is (x).
type paren struct {
	start, end int
	inner      expr
}

func (e *numberLit) span() (int, int)      { return e.start, e.end }
func (e *stringLit) span() (int, int)      { return e.start, e.end }
func (e *vectorSelector) span() (int, int) { return e.start, e.end }
func (e *call) span() (int, int)           { return e.start, e.end }
func (e *aggregation) span() (int, int)    { return e.start, e.end }
func (e *paren) span() (int, int)          { return e.start, e.end }

func (e *matrixSelector) span() (int, int) {
	start, _ := e.selector.span()
	return start, e.end
}

func (e *subquery) span() (int, int) {
	start, _ := e.inner.span()
	return start, e.end
}

func (e *binary) span() (int, int) {
	start, _ := e.lhs.span()
	_, end := e.rhs.span()
	return start, end
}

func (e *unary) span() (int, int) {
	_, end := e.inner.span()
	return e.start, end
}
