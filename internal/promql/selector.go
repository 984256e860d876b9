package promql

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// labelMatchers parses {...} into vs: label matchers (job="a", job!="a",
// job=~"a.*", job!~"a.*", "a.b"="c") and quoted metric names ("a.b"),
// separated by commas, a trailing comma allowed.
func (p *parser) labelMatchers(vs *vectorSelector) {
	open := p.tok
	p.advance()
	for p.tok.kind != tokRightBrace {
		vs.matchers = append(vs.matchers, p.labelMatcher())
		switch p.tok.kind {
		case tokComma:
			p.advance()
		case tokRightBrace:
		default:
			p.unexpected(fmt.Sprintf(`"," or "}" to close the "{" at %s`, position(p.src, open.pos)))
		}
	}
	p.advance()
}

// labelMatcher parses one label matcher.
func (p *parser) labelMatcher() labelMatcher {
	name := p.tok
	switch name.kind {
	case tokIdentifier, tokString:
	default:
		p.unexpected(`a label name, e.g. {job="api"}, or "}"`)
	}
	p.advance()
	label := name.text
	if name.kind == tokString {
		label = unquote(name.text)
		if !p.tok.kind.isMatchOperator() {
			// A quoted name alone is the metric name: {"http.requests"}.
			return labelMatcher{name: "__name__", matchesEmpty: label == ""}
		}
	}
	op := p.tok
	if !op.kind.isMatchOperator() {
		p.unexpected(fmt.Sprintf(`=, !=, =~ or !~ after the label name %s`, name.spelling()))
	}
	p.advance()
	if p.tok.kind != tokString {
		p.unexpected(fmt.Sprintf(`a quoted value after %s%s, e.g. %s%s"api"`, name.spelling(), op.text, name.spelling(), op.text))
	}
	value := unquote(p.tok.text)
	p.advance()
	m := labelMatcher{name: label}
	switch op.kind {
	case tokAssign:
		m.matchesEmpty = value == ""
	case tokNeq:
		m.matchesEmpty = value != ""
	default:
		matches, err := matchesEmpty(value)
		var syntaxErr *syntax.Error
		switch {
		case errors.As(err, &syntaxErr): // its text quotes the expression as it is, line breaks and all
			p.report(name.pos, "invalid regular expression %s for label %q: %s: %s", quoteRaw(value), label, syntaxErr.Code, quoteRaw(syntaxErr.Expr))
		case err != nil:
			p.report(name.pos, "invalid regular expression %s for label %q: %v", quoteRaw(value), label, err)
		}
		m.matchesEmpty = matches == (op.kind == tokEqlRegex)
	}
	return m
}

// matchesEmpty compiles the regular expression of a label matcher as
// Prometheus does, anchored at both ends and with . matching newlines, and
// reports whether it matches the empty string, which is what the label
// of a series without it has.
//
// Prometheus compiles with a fork of Go's regexp (github.com/grafana/regexp)
// whose syntax package names Unicode classes as Go did before 1.25: \p{X}
// for X "Any", a category or a script, spelled as package unicode spells
// it (\p{Greek}, \p{Old_Italic}, \pL). Go 1.26 takes more names
// (\p{ASCII}, \p{Letter}, \p{greek}) and some of those no more
// (\p{Old_Italic}), so the names are checked here and each class is given
// to Go's parser as \pL: whether an expression parses and whether it
// matches the empty string do not depend on which class a \p is.
// Prometheus also takes an alternation of plain strings (a|b|c) as it is,
// without compiling it, so such a value may hold invalid UTF-8 there and
// here.
func matchesEmpty(re string) (bool, error) {
	if alternatives := strings.Split(re, "|"); plainStrings(alternatives) {
		for _, a := range alternatives {
			if a == "" {
				return true, nil
			}
		}
		return false, nil
	}
	re, err := unicodeClasses(re)
	if err != nil {
		return false, err
	}
	parsed, err := syntax.Parse(re, syntax.Perl|syntax.DotNL)
	if err != nil {
		return false, err
	}
	// The parsed form, printed, closes what re leaves open (\Q... without
	// \E) before the anchors.
	compiled, err := regexp.Compile("^(?s:" + parsed.String() + ")$")
	if err != nil {
		return false, err
	}
	return compiled.MatchString(""), nil
}

// plainStrings reports whether every alternative is a plain string, with
// no character that means something in a regular expression.
func plainStrings(alternatives []string) bool {
	for _, a := range alternatives {
		if regexp.QuoteMeta(a) != a {
			return false
		}
	}
	return true
}

// unicodeClasses checks the name of each Unicode class of re, \p{Name},
// \P{^Name} or \pN, against the names Prometheus's regexp takes, and
// returns re with each class replaced by \pL or \PL.
func unicodeClasses(re string) (string, error) {
	var b strings.Builder
	done := 0 // re[:done] is in b
	for i := 0; i+1 < len(re); i++ {
		if re[i] != '\\' {
			continue
		}
		switch re[i+1] {
		case 'Q': // literal text up to \E
			end := strings.Index(re[i+2:], `\E`)
			if end < 0 {
				i = len(re)
				continue
			}
			i += 2 + end + 1
			continue
		case 'p', 'P':
		default:
			i++ // the escaped character
			continue
		}
		var seq, name string
		if rest := re[i+2:]; strings.HasPrefix(rest, "{") {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				continue // the parse refuses it
			}
			seq, name = re[i:i+2+end+1], rest[1:end]
		} else {
			_, w := utf8.DecodeRuneInString(rest)
			seq, name = re[i:i+2+w], rest[:w]
		}
		name = strings.TrimPrefix(name, "^")
		if name != "Any" && unicode.Categories[name] == nil && unicode.Scripts[name] == nil {
			return "", fmt.Errorf("invalid character class %s: want a Unicode category or script, e.g. \\p{L} or \\p{Greek}", quoteRaw(seq))
		}
		b.WriteString(re[done:i])
		b.WriteString(re[i:i+2] + "L")
		done = i + len(seq)
		i = done - 1
	}
	b.WriteString(re[done:])
	return b.String(), nil
}

// validLabelName reports whether name may be a label name: a non-empty
// UTF-8 string.
func validLabelName(name string) bool {
	return name != "" && utf8.ValidString(name)
}

// unquote returns the value of a string token that the lexer checked:
// its escapes decoded (\x and octal escapes are bytes, which may make the
// value invalid UTF-8), a backquoted string as it is.
func unquote(text string) string {
	quote, s := text[0], text[1:len(text)-1]
	if quote == '`' || !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		if s[0] != '\\' {
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		c := s[1]
		s = s[2:]
		switch c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			b.WriteByte(byte(hexValue(s[:2])))
			s = s[2:]
		case 'u':
			b.WriteRune(rune(hexValue(s[:4])))
			s = s[4:]
		case 'U':
			b.WriteRune(rune(hexValue(s[:8])))
			s = s[8:]
		case '0', '1', '2', '3', '4', '5', '6', '7':
			b.WriteByte((c-'0')<<6 | (s[0]-'0')<<3 | (s[1] - '0'))
			s = s[2:]
		default: // \\, \" or \'
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hexValue is the value of hex digits the lexer checked.
func hexValue(digits string) uint32 {
	var v uint32
	for _, d := range digits {
		v = v<<4 | digitValue(d)
	}
	return v
}
