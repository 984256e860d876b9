package promql

import (
	"regexp/syntax"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatchesEmpty: which regular expressions select series without the
// label, and which are refused.
func TestMatchesEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		re      string
		matches bool
		err     string
	}{
		{re: "", matches: true},
		{re: ".*", matches: true},
		{re: ".+"},
		{re: "a|b"},
		{re: "a|", matches: true},
		{re: "|", matches: true},
		{re: "(a|)", matches: true},
		{re: "a?b?", matches: true},
		{re: "\xff|b"}, // plain strings are not compiled, so invalid UTF-8 passes
		{re: `\Q.*`},   // \Q without \E quotes to the end
		{re: `\p{Greek}+`},
		{re: `[\p{^Han}]`},
		{re: `\pL`},
		{re: "(?<name>a)"},
		{re: "[", err: "error parsing regexp: missing closing ]: `[`"},
		{re: "\xff.", err: "error parsing regexp: invalid UTF-8: `\xff.`"},
		{re: "x{1001}", err: "error parsing regexp: invalid repeat count: `{1001}`"},
		{re: `\p{ASCII}`, err: "invalid character class `\\p{ASCII}`: want a Unicode category or script, e.g. \\p{L} or \\p{Greek}"},
		{re: `[\P{^Assigned}]`, err: "invalid character class `\\P{^Assigned}`: want a Unicode category or script, e.g. \\p{L} or \\p{Greek}"},
		{re: `\p{Letter}`, err: "invalid character class `\\p{Letter}`: want a Unicode category or script, e.g. \\p{L} or \\p{Greek}"},
		{re: `\\p{ASCII}`}, // an escaped backslash, then p{ASCII}
		{re: `\Q\p{ASCII}\E`},
	}
	for _, tt := range tests {
		t.Run(tt.re, func(t *testing.T) {
			t.Parallel()
			got, err := matchesEmpty(tt.re)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.matches, got)
		})
	}
}

// TestUnicodeClassNames: every name Prometheus's regexp takes in \p{...}
// is taken, whether Go 1.26 takes it (\p{Greek}) or not (\p{Old_Italic}),
// and the names only Go 1.26 takes are refused.
func TestUnicodeClassNames(t *testing.T) {
	t.Parallel()
	names := []string{"Any"}
	for name := range unicode.Categories {
		names = append(names, name)
	}
	for name := range unicode.Scripts {
		names = append(names, name)
	}
	for _, name := range names {
		for _, re := range []string{`\p{` + name + `}`, `\P{^` + name + `}+`, `[\p{` + name + `}a-z]`} {
			_, err := matchesEmpty(re)
			assert.NoError(t, err, re)
		}
	}
	for _, re := range []string{`\p{ASCII}`, `\p{Assigned}`, `\p{Letter}`, `\p{greek}`, `\p{^Cased_Letter}`} {
		_, goErr := syntax.Parse(re, syntax.Perl)
		require.NoError(t, goErr, "Go takes %s", re)
		_, err := matchesEmpty(re)
		assert.Error(t, err, re)
	}
}

// TestUnquote: escapes decoded as Prometheus does, \x and octal escapes as
// bytes.
func TestUnquote(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{`"a"`, "a"},
		{`'a"b'`, `a"b`},
		{"`a\\nb`", `a\nb`},
		{`"\a\b\f\n\r\t\v\\\""`, "\a\b\f\n\r\t\v\\\""},
		{`'\''`, "'"},
		{`"\x41\101\u00e9\U0001F600"`, "AA\u00e9\U0001F600"},
		{`"\xff\377"`, "\xff\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, unquote(tt.text))
		})
	}
}
