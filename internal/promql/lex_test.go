package promql

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tokens lexes src to the end, each token as its text, a lexical error as
// "error: " and its message.
func tokens(src string) []string {
	l := newLexer(src)
	var out []string
	for {
		t := l.next()
		switch t.kind {
		case tokEOF:
			return out
		case tokError:
			return append(out, "error: "+t.text)
		}
		out = append(out, t.text)
	}
}

// TestLexer: where one token ends and the next starts, in each mode of
// the lexer, and which inputs are lexical errors.
func TestLexer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want string // the tokens joined by "|"
	}{
		{`sum by(job)(rate(x{a!~"b"}[5m:1m]))`, `sum|by|(|job|)|(|rate|(|x|{|a|!~|"b"|}|[|5m|:|1m|]|)|)`},
		{"foo # comment\n+bar", "foo|+|bar"},
		{"foo<=bar</baz>/qux>=1!=2==3", "foo|<=|bar|</|baz|>/|qux|>=|1|!=|2|==|3"},
		{"job:rate5m :", "job:rate5m|:"},
		{"fill + fill (1) fill_left", "fill|+|fill|(|1|)|fill_left"},
		{`{sum="a", offset=~'b', c="\u00e9"}`, `{|sum|=|"a"|,|offset|=~|'b'|,|c|=|"\u00e9"|}`},
		{"[ step() + 5m * (1h)]", "[|step|(|)|+|5m|*|(|1h|)|]"},
		{"[5m:Step()]", "[|5m|:|Step|(|)|]"},
		{"[5m # comment\n]", "[|5m|]"},
		{"1 0x1f .5 5. 1e3 1_000 0755 Inf nAn 1h30m 1y2w 5ms", "1|0x1f|.5|5.|1e3|1_000|0755|Inf|nAn|1h30m|1y2w|5ms"},

		{"0x1e", `error: bad number or duration "0x1e"`},
		{"1__0", `error: bad number or duration "1__"`},
		{"1w1y", `error: bad number or duration "1w1"`},
		{"1e", `error: bad number or duration "1e"`},
		{"1.5m", "1.5m"}, // a duration token that does not parse
		{"foo)", `foo|error: unexpected ")": no "(" to close`},
		{"(foo", `(|foo|error: unexpected end of input, want ")" to close the "(" at 1:1`},
		{"x[5m", `x|[|5m|error: unexpected end of input, want "]" to close the "[" at 1:2`},
		{"x[", `x|[|error: unexpected end of input, want "]" to close the "[" at 1:2`},
		{"x[#c\n5m]", `x|[|error: unexpected character '#' inside "[...]": want a duration, e.g. [5m]`},
		{"x[5m][", `x|[|5m|]|[|error: unexpected end of input, want "]" to close the "[" at 1:6`},
		{"x[[", `x|[|error: unexpected character '[' inside "[...]": want a duration, e.g. [5m]`},
		{"x[5m[", `x|[|5m|error: unexpected "[" inside the "[" at 1:2`},
		{"x[5m:foo]", `x|[|5m|:|error: unexpected character 'f' inside "[...]": want a duration, e.g. [5m], or ":"`},
		{"x[5m::]", `x|[|5m|:|error: unexpected second ":" in a subquery's [range:step]`},
		{"{a", `{|a|error: unexpected end of input, want "}" to close the "{" at 1:1`},
		{"{a:b}", `{|a|error: unexpected character ':' in a label matcher: want a label name, e.g. {job="api"}`},
		{`"a`, `error: the string starting "\"a" is not terminated: want a closing " on its line`},
		{"\"a\nb\"", `error: the string starting "\"a\nb\"" is not terminated: want a closing " on its line`},
		{`"\ud800"`, `error: an escape sequence is not a valid Unicode code point in the string starting "\"\\ud800\""`},
		{`"\400"`, `error: an escape sequence is not a valid Unicode code point in the string starting "\"\\400\""`},
		{`"\x4g"`, `error: illegal character 'g' in an escape sequence in the string starting "\"\\x4g\""`},
		{"\"\xff\"", `error: invalid UTF-8 in the string starting "\"\xff\""`},
		{"\"\uFFFD\"", "error: invalid UTF-8 in the string starting \"\\\"\uFFFD\\\"\""}, // as Prometheus: U+FFFD reads as an error
		{"`a\nb`", "`a\nb`"},
		{"a =~ b", `a|error: unexpected "=~" outside braces: want it in a label matcher, e.g. {job=~"api.*"}`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, strings.Join(tokens(tt.src), "|"))
		})
	}
}

// TestParseDuration: Prometheus's duration syntax, units biggest first.
func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want time.Duration
		err  string
	}{
		{text: "0", want: 0},
		{text: "5m", want: 5 * time.Minute},
		{text: "1h30m", want: 90 * time.Minute},
		{text: "1y1w1d", want: (365 + 7 + 1) * 24 * time.Hour},
		{text: "1s500ms", want: 1500 * time.Millisecond},
		{text: "30m1h", err: "duration 30m1h does not parse: want numbers with units from y, w, d, h, m, s, ms, biggest first, e.g. 1h30m"},
		{text: "1m1m", err: "duration 1m1m does not parse: want numbers with units from y, w, d, h, m, s, ms, biggest first, e.g. 1h30m"},
		{text: "5hs", err: `duration 5hs has an unknown unit "hs": want y, w, d, h, m, s or ms`},
		{text: "1.5m", err: `duration 1.5m has an unknown unit ".": want y, w, d, h, m, s or ms`},
		{text: "300y", err: "duration 300y is out of range: want at most about 292 years"},
		{text: "292y", want: 292 * 365 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			got, err := parseDuration(tt.text)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestParseNumber: integers in Go syntax first, then floats.
func TestParseNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want float64
		err  bool
	}{
		{text: "0x1f", want: 31}, {text: "0755", want: 493}, {text: "08", want: 8}, {text: "1_000", want: 1000},
		{text: "1e3", want: 1000}, {text: ".5", want: 0.5}, {text: "0X_1", want: 1},
		{text: "0x", err: true}, {text: "1e400", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			got, err := parseNumber(tt.text)
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want, got, 0)
		})
	}
}
