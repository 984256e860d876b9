package promql

import (
	"fmt"
	"strconv"
)

// tokenKind is the kind of a token of a query.
type tokenKind uint8

const (
	tokError tokenKind = iota // a lexical error; the token's text is the message
	tokEOF
	tokIdentifier       // foo, or any label name inside braces
	tokMetricIdentifier // a name with a colon: job:rate5m
	tokNumber           // 1, 0x1f, 1e3, Inf, NaN
	tokDuration         // 5m, 1h30m
	tokString           // "a", 'a' or `a`, quotes included

	tokLeftParen
	tokRightParen
	tokLeftBrace
	tokRightBrace
	tokLeftBracket
	tokRightBracket
	tokComma
	tokColon
	tokAssign // = in a label matcher

	// Operators.
	tokAdd
	tokSub
	tokMul
	tokDiv
	tokMod
	tokPow
	tokAtan2
	tokEqlc // ==
	tokNeq
	tokLss
	tokLte
	tokGtr
	tokGte
	tokTrimUpper // </
	tokTrimLower // >/
	tokEqlRegex
	tokNeqRegex
	tokAnd
	tokOr
	tokUnless
	tokAt

	// Aggregation operators.
	tokSum
	tokAvg
	tokCount
	tokMin
	tokMax
	tokGroup
	tokStddev
	tokStdvar
	tokTopk
	tokBottomk
	tokCountValues
	tokQuantile
	tokLimitk
	tokLimitRatio

	// Keywords.
	tokOffset
	tokAnchored
	tokSmoothed
	tokBy
	tokWithout
	tokOn
	tokIgnoring
	tokGroupLeft
	tokGroupRight
	tokFill
	tokFillLeft
	tokFillRight
	tokBool
	tokStart
	tokEnd
	tokStep
	tokRange
	tokMaxOf
	tokMinOf
)

// keywords maps the lower-case spelling of each keyword to its token; a
// keyword is case-insensitive. Inf and NaN are numbers. Read-only.
var keywords = map[string]tokenKind{
	"and": tokAnd, "or": tokOr, "unless": tokUnless, "atan2": tokAtan2,

	"sum": tokSum, "avg": tokAvg, "count": tokCount, "min": tokMin, "max": tokMax,
	"group": tokGroup, "stddev": tokStddev, "stdvar": tokStdvar, "topk": tokTopk,
	"bottomk": tokBottomk, "count_values": tokCountValues, "quantile": tokQuantile,
	"limitk": tokLimitk, "limit_ratio": tokLimitRatio,

	"offset": tokOffset, "anchored": tokAnchored, "smoothed": tokSmoothed,
	"by": tokBy, "without": tokWithout, "on": tokOn, "ignoring": tokIgnoring,
	"group_left": tokGroupLeft, "group_right": tokGroupRight,
	"fill": tokFill, "fill_left": tokFillLeft, "fill_right": tokFillRight,
	"bool":  tokBool,
	"start": tokStart, "end": tokEnd, "step": tokStep, "range": tokRange,
	"max_of": tokMaxOf, "min_of": tokMinOf,

	"inf": tokNumber, "nan": tokNumber,
}

// durationKeywords are the keywords a duration expression (inside [...])
// may hold.
var durationKeywords = map[string]tokenKind{
	"step": tokStep, "range": tokRange, "max_of": tokMaxOf, "min_of": tokMinOf,
}

// token is one token of a query: its kind, its byte offset and its text.
type token struct {
	kind tokenKind
	pos  int
	text string
}

// String describes the token for an error message: `end of input`,
// `identifier "foo"`, `"by"`, `"("`.
func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokIdentifier:
		return "identifier " + strconv.Quote(t.text)
	case tokMetricIdentifier:
		return "metric name " + strconv.Quote(t.text)
	case tokNumber:
		return "number " + t.text
	case tokDuration:
		return "duration " + t.text
	case tokString:
		return "string " + t.spelling()
	}
	return strconv.Quote(t.text)
}

// spelling is the token's text for a message: as it is, or quoted when it
// holds a line break or another control character (a string may).
func (t token) spelling() string {
	if strconv.CanBackquote(t.text) {
		return t.text
	}
	return strconv.Quote(t.text)
}

// isAggregation reports whether k is an aggregation operator.
func (k tokenKind) isAggregation() bool { return k >= tokSum && k <= tokLimitRatio }

// hasParam reports whether the aggregation k takes a parameter before its
// vector: topk(3, x).
func (k tokenKind) hasParam() bool {
	switch k {
	case tokTopk, tokBottomk, tokCountValues, tokQuantile, tokLimitk, tokLimitRatio:
		return true
	}
	return false
}

// isComparison reports whether k is a comparison operator.
func (k tokenKind) isComparison() bool {
	switch k {
	case tokEqlc, tokNeq, tokLss, tokLte, tokGtr, tokGte:
		return true
	}
	return false
}

// isSetOperator reports whether k is and, or or unless.
func (k tokenKind) isSetOperator() bool { return k == tokAnd || k == tokOr || k == tokUnless }

// isMatchOperator reports whether k compares a label to a value.
func (k tokenKind) isMatchOperator() bool {
	return k == tokAssign || k == tokNeq || k == tokEqlRegex || k == tokNeqRegex
}

// isMetricName reports whether a token of kind k, where an expression
// starts, can be a metric name: an identifier, and the keywords that are
// not operators of their own (sum, by, offset, and, ...).
func (k tokenKind) isMetricName() bool {
	switch k {
	case tokIdentifier, tokMetricIdentifier, tokBy, tokWithout, tokOffset, tokAnchored, tokSmoothed,
		tokAnd, tokOr, tokUnless, tokFill, tokFillLeft, tokFillRight,
		tokStart, tokEnd, tokStep, tokRange, tokMaxOf, tokMinOf:
		return true
	}
	return k.isAggregation()
}

// isGroupingLabel reports whether a token of kind k can be a label name
// in by (...), on (...) and group_left (...): any keyword but without, and
// no number.
func (k tokenKind) isGroupingLabel() bool {
	switch k {
	case tokIdentifier, tokMetricIdentifier, tokAnd, tokOr, tokUnless, tokAtan2,
		tokOffset, tokAnchored, tokSmoothed, tokBy, tokOn, tokIgnoring, tokGroupLeft, tokGroupRight,
		tokFill, tokFillLeft, tokFillRight, tokBool, tokStart, tokEnd, tokStep, tokRange, tokMaxOf, tokMinOf:
		return true
	}
	return k.isAggregation()
}

// binaryPrecedence is the precedence of k as a binary operator, from 1
// (or) to 6 (^), or 0 when k is none.
func (k tokenKind) binaryPrecedence() int {
	switch k {
	case tokOr:
		return 1
	case tokAnd, tokUnless:
		return 2
	case tokEqlc, tokNeq, tokLss, tokLte, tokGtr, tokGte, tokTrimUpper, tokTrimLower:
		return 3
	case tokAdd, tokSub:
		return 4
	case tokMul, tokDiv, tokMod, tokAtan2:
		return 5
	case tokPow:
		return 6
	}
	return 0
}

// precedencePow is the precedence of ^, which binds tighter than a unary
// minus: -2 ^ 2 is -(2 ^ 2).
const precedencePow = 6

// position formats the byte offset pos of src as line:column, both from 1,
// the column in bytes as Prometheus counts it.
func position(src string, pos int) string {
	line, lineStart := 1, 0
	for i := 0; i < pos && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return fmt.Sprintf("%d:%d", line, pos-lineStart+1)
}

// quoteRaw quotes s for a message in backquotes, as text with
// backslashes reads best (`\p{Greek}`), unless s holds a backquote or a
// control character.
func quoteRaw(s string) string {
	if strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
