// Package promql checks PromQL queries as Prometheus 3.x parses them,
// without a Prometheus server and without its module: [Check] says whether
// the server's parser would accept a query and, when not, what is wrong
// and where. rollout/addon validates an AddOnRollout's Prometheus
// verifications with it, so that a controller, a dry run and an offline
// report refuse the same queries before any runs.
//
// The checker is a lexer and a recursive-descent parser of the grammar of
// Prometheus v0.316.0 (promql/parser: lex.go, generated_parser.y,
// functions.go), followed by the parser's type checks. It accepts:
//
//	expr      = operand {modifier} | ("+" | "-") expr | expr binop binmods expr
//	operand   = number | duration | string | "(" expr ")" | selector
//	          | function "(" [expr {"," expr}] ")"
//	          | aggregation [grouping] "(" [expr {"," expr}] ")" [grouping]
//	selector  = metric ["{" matchers "}"] | "{" matchers "}"
//	matchers  = [matcher {"," matcher} [","]]
//	matcher   = (label | string) ("=" | "!=" | "=~" | "!~") string | string
//	modifier  = "[" durexpr "]" | "[" durexpr ":" [durexpr] "]"
//	          | "offset" durexpr | "@" ["+" | "-"] number | "@" ("start" | "end") "(" ")"
//	          | "anchored" | "smoothed"
//	grouping  = ("by" | "without") labels
//	labels    = "(" [label {"," label} [","]] ")"
//	binmods   = ["bool"] [("on" | "ignoring") labels [("group_left" | "group_right") [labels]]]
//	            [fill "(" ["+" | "-"] number ")" [fill "(" ["+" | "-"] number ")"]]
//	durexpr   = number | duration | "step()" | "range()" | ("max_of" | "min_of") "(" durexpr "," durexpr ")"
//	          | "(" durexpr ")" | ("+" | "-") durexpr | durexpr ("+" | "-" | "*" | "/" | "%" | "^") durexpr
//
// with Prometheus's precedence, loosest first: or; and, unless;
// comparisons (== != < <= > >= and the histogram trims </ >/); + -;
// * / % atan2; unary - and +; ^ (right-associative); the modifiers, which
// bind to the operand before them. Numbers are decimal, hex (0x1f), octal
// (0755), with exponents (1e3), underscores (1_000), Inf and NaN;
// durations are 1h30m and the like, units from y to ms biggest first; a
// duration expression inside [...] and after offset is Prometheus 3.x's
// duration arithmetic (5m * 2, step(), max_of(5m, step())). Keywords are
// case-insensitive; function names are not. A quoted metric or label name
// may hold any UTF-8 ({"http.requests"}); regular expressions are RE2, with
// the Unicode class names of Prometheus's regexp package. A query may nest
// 1,000 levels deep.
//
// The checks after the parse are Prometheus's: a function's argument
// count and types (rate takes a range vector, so rate(foo) is refused);
// an aggregation's vector and parameter; a comparison of two scalars needs
// bool; binary operands are scalars or instant vectors, set operators
// (and, or, unless) and vector matching (on, ignoring, group_left) only
// between instant vectors; a range only after a vector selector, and
// before its offset and @; offset and @ once each, after a vector
// selector, a range or a subquery; a subquery only of an instant vector;
// a selector names its metric once and does not select every series
// ({job=~".*"} is refused).
//
// internal/promqlparity, a module of its own, runs the checker and
// Prometheus's parser on the same queries, Prometheus's own test inputs
// and random ones, and requires that they agree.
package promql
