package promql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lexer splits a query into tokens, one at a time, as Prometheus's lexer
// does: the same tokens, and a lexical error for the same inputs. What a
// character means depends on where it is, so the lexer has modes: inside
// braces every name is a label name and keywords are not recognized;
// right after "[" a duration expression starts (5m, step(), 1h + 5m) and a
// name is a duration keyword or an error. Comments (# to the end of the
// line) are skipped, except right after "[".
type lexer struct {
	src         string
	pos         int
	parens      []int // the offsets of the open "(", innermost last
	brace       int   // the offset of the open "{", or -1
	bracket     int   // the offset of the open "[", or -1
	gotColon    bool  // a ":" since the open "["
	gotDuration bool  // a duration or duration keyword since the open "[", in duration mode
	duration    bool  // in duration mode: right after "[", until the first number
	done        bool  // an error or the end was returned
}

func newLexer(src string) lexer {
	return lexer{src: src, brace: -1, bracket: -1}
}

// next returns the next token; after an error or the end of input, the end
// of input again.
func (l *lexer) next() token {
	if l.done {
		return token{kind: tokEOF, pos: len(l.src)}
	}
	for {
		var t token
		var ok bool
		switch {
		case l.brace >= 0:
			t, ok = l.insideBraces()
		case l.duration:
			t, ok = l.durationExpr()
		default:
			t, ok = l.statement()
		}
		if ok {
			if t.kind == tokError || t.kind == tokEOF {
				l.done = true
			}
			return t
		}
	}
}

// rune returns the rune at the current offset and its width, or -1 and 0
// at the end of the input.
func (l *lexer) rune() (rune, int) {
	if l.pos >= len(l.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(l.src[l.pos:])
}

// byteAt returns the byte at offset i, or 0 past the end.
func (l *lexer) byteAt(i int) byte {
	if i >= len(l.src) {
		return 0
	}
	return l.src[i]
}

func (l *lexer) emit(kind tokenKind, start int) (token, bool) {
	return token{kind: kind, pos: start, text: l.src[start:l.pos]}, true
}

func (l *lexer) errorf(start int, format string, args ...any) (token, bool) {
	return token{kind: tokError, pos: start, text: fmt.Sprintf(format, args...)}, true
}

// skipComment skips a comment up to the end of the line, the line break
// excluded.
func (l *lexer) skipComment() {
	for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
		l.pos++
	}
}

func (l *lexer) skipSpaces() {
	for l.pos < len(l.src) && isSpace(rune(l.src[l.pos])) {
		l.pos++
	}
}

// statement lexes one token outside braces and outside duration mode. It
// returns false when it skipped a space or comment and has no token yet.
func (l *lexer) statement() (token, bool) {
	start := l.pos
	if strings.HasPrefix(l.src[l.pos:], "#") {
		l.skipComment()
		return token{}, false
	}
	r, w := l.rune()
	l.pos += w
	switch {
	case r < 0:
		switch { // name the innermost of what is open
		case len(l.parens) > 0 && l.parens[len(l.parens)-1] > l.bracket:
			open := l.parens[len(l.parens)-1]
			return l.errorf(start, `unexpected end of input, want ")" to close the "(" at %s`, position(l.src, open))
		case l.bracket >= 0:
			return l.errorf(start, `unexpected end of input, want "]" to close the "[" at %s`, position(l.src, l.bracket))
		}
		return l.emit(tokEOF, start)
	case isSpace(r):
		l.skipSpaces()
		return token{}, false
	case r == ',':
		return l.emit(tokComma, start)
	case r == '*':
		return l.emit(tokMul, start)
	case r == '/':
		return l.emit(tokDiv, start)
	case r == '%':
		return l.emit(tokMod, start)
	case r == '+':
		return l.emit(tokAdd, start)
	case r == '-':
		return l.emit(tokSub, start)
	case r == '^':
		return l.emit(tokPow, start)
	case r == '@':
		return l.emit(tokAt, start)
	case r == '=':
		switch l.byteAt(l.pos) {
		case '=':
			l.pos++
			return l.emit(tokEqlc, start)
		case '~':
			return l.errorf(start, `unexpected "=~" outside braces: want it in a label matcher, e.g. {job=~"api.*"}`)
		}
		return l.emit(tokAssign, start)
	case r == '!':
		if l.byteAt(l.pos) != '=' {
			return l.errorf(start, `unexpected "!" outside braces: want "!="`)
		}
		l.pos++
		return l.emit(tokNeq, start)
	case r == '<' || r == '>':
		kind, orEqual, trim := tokLss, tokLte, tokTrimUpper
		if r == '>' {
			kind, orEqual, trim = tokGtr, tokGte, tokTrimLower
		}
		switch l.byteAt(l.pos) {
		case '=':
			l.pos++
			kind = orEqual
		case '/':
			l.pos++
			kind = trim
		}
		return l.emit(kind, start)
	case isDigit(r) || (r == '.' && isDigit(rune(l.byteAt(l.pos)))):
		l.pos = start
		return l.numberOrDuration()
	case r == '"' || r == '\'':
		return l.quoted(start, r)
	case r == '`':
		return l.raw(start)
	case isAlpha(r) || r == ':':
		if l.bracket < 0 {
			return l.keywordOrIdentifier(start)
		}
		return l.insideBracket(start, r)
	case r == '(':
		l.parens = append(l.parens, start)
		return l.emit(tokLeftParen, start)
	case r == ')':
		if len(l.parens) == 0 {
			return l.errorf(start, `unexpected ")": no "(" to close`)
		}
		l.parens = l.parens[:len(l.parens)-1]
		return l.emit(tokRightParen, start)
	case r == '{':
		l.brace = start
		return l.emit(tokLeftBrace, start)
	case r == '}':
		return l.errorf(start, `unexpected "}": no "{" to close`)
	case r == '[':
		if l.bracket >= 0 {
			return l.errorf(start, `unexpected "[" inside the "[" at %s`, position(l.src, l.bracket))
		}
		l.gotColon, l.gotDuration = false, false
		t, _ := l.emit(tokLeftBracket, start)
		l.skipSpaces()
		l.bracket, l.duration = start, true
		return t, true
	case r == ']':
		if l.bracket < 0 {
			return l.errorf(start, `unexpected "]": no "[" to close`)
		}
		l.bracket = -1
		return l.emit(tokRightBracket, start)
	}
	return l.errorf(start, "unexpected character %s", quoteRune(r))
}

// insideBracket lexes a name or ":" inside [...] after its first number:
// the ":" of a subquery or a duration keyword.
func (l *lexer) insideBracket(start int, r rune) (token, bool) {
	if r == ':' {
		if l.gotColon {
			return l.errorf(start, `unexpected second ":" in a subquery's [range:step]`)
		}
		l.gotColon = true
		return l.emit(tokColon, start)
	}
	if isDurationKeywordStart(r) {
		if kind, ok := l.durationKeyword(start); ok {
			return l.emit(kind, start)
		}
	}
	return l.errorf(start, `unexpected character %s inside "[...]": want a duration, e.g. [5m], or ":"`, quoteRune(r))
}

// durationExpr lexes one token in duration mode, right after "[": no
// comments, no names but the duration keywords, and a ":" only after a
// duration.
func (l *lexer) durationExpr() (token, bool) {
	start := l.pos
	r, w := l.rune()
	l.pos += w
	switch {
	case r < 0:
		return l.errorf(start, `unexpected end of input, want "]" to close the "[" at %s`, position(l.src, l.bracket))
	case r == ']':
		l.bracket, l.gotColon, l.duration = -1, false, false
		return l.emit(tokRightBracket, start)
	case r == ':':
		if !l.gotDuration {
			return l.errorf(start, `unexpected ":" before a duration: want a range, e.g. [5m:1m]`)
		}
		if l.gotColon {
			return l.errorf(start, `unexpected second ":" in a subquery's [range:step]`)
		}
		l.gotColon = true
		return l.emit(tokColon, start)
	case r == '(':
		l.parens = append(l.parens, start)
		return l.emit(tokLeftParen, start)
	case r == ')':
		if len(l.parens) == 0 {
			return l.errorf(start, `unexpected ")": no "(" to close`)
		}
		l.parens = l.parens[:len(l.parens)-1]
		return l.emit(tokRightParen, start)
	case isSpace(r):
		l.skipSpaces()
		return token{}, false
	case r == '+':
		return l.emit(tokAdd, start)
	case r == '-':
		return l.emit(tokSub, start)
	case r == '*':
		return l.emit(tokMul, start)
	case r == '/':
		return l.emit(tokDiv, start)
	case r == '%':
		return l.emit(tokMod, start)
	case r == '^':
		return l.emit(tokPow, start)
	case r == ',':
		return l.emit(tokComma, start)
	case isDurationKeywordStart(r):
		if kind, ok := l.durationKeyword(start); ok {
			l.gotDuration = true
			return l.emit(kind, start)
		}
	case isDigit(r) || (r == '.' && isDigit(rune(l.byteAt(l.pos)))):
		l.pos = start
		l.gotDuration, l.duration = true, false
		return l.numberOrDuration()
	}
	return l.errorf(start, `unexpected character %s inside "[...]": want a duration, e.g. [5m]`, quoteRune(r))
}

// insideBraces lexes one token of a vector selector's label matchers.
func (l *lexer) insideBraces() (token, bool) {
	start := l.pos
	if strings.HasPrefix(l.src[l.pos:], "#") {
		l.skipComment()
		return token{}, false
	}
	r, w := l.rune()
	l.pos += w
	switch {
	case r < 0:
		return l.errorf(start, `unexpected end of input, want "}" to close the "{" at %s`, position(l.src, l.brace))
	case isSpace(r):
		l.skipSpaces()
		return token{}, false
	case isAlpha(r):
		for l.pos < len(l.src) && (isAlpha(rune(l.src[l.pos])) || isDigit(rune(l.src[l.pos]))) {
			l.pos++
		}
		return l.emit(tokIdentifier, start)
	case r == ',':
		return l.emit(tokComma, start)
	case r == '"' || r == '\'':
		return l.quoted(start, r)
	case r == '`':
		return l.raw(start)
	case r == '=':
		if l.byteAt(l.pos) == '~' {
			l.pos++
			return l.emit(tokEqlRegex, start)
		}
		return l.emit(tokAssign, start)
	case r == '!':
		switch l.byteAt(l.pos) {
		case '~':
			l.pos++
			return l.emit(tokNeqRegex, start)
		case '=':
			l.pos++
			return l.emit(tokNeq, start)
		}
		return l.errorf(start, `unexpected "!" in a label matcher: want "!=" or "!~"`)
	case r == '{':
		return l.errorf(start, `unexpected "{" inside the "{" at %s`, position(l.src, l.brace))
	case r == '}':
		l.brace = -1
		return l.emit(tokRightBrace, start)
	}
	return l.errorf(start, `unexpected character %s in a label matcher: want a label name, e.g. {job="api"}`, quoteRune(r))
}

// keywordOrIdentifier lexes a name outside braces: a keyword (any case),
// or a metric name, which may hold colons. fill, fill_left and fill_right
// are keywords only before "(", so that a metric may have those names.
func (l *lexer) keywordOrIdentifier(start int) (token, bool) {
	for l.pos < len(l.src) && (isAlpha(rune(l.src[l.pos])) || isDigit(rune(l.src[l.pos])) || l.src[l.pos] == ':') {
		l.pos++
	}
	word := l.src[start:l.pos]
	if kind, ok := keywords[strings.ToLower(word)]; ok {
		if (kind != tokFill && kind != tokFillLeft && kind != tokFillRight) || l.leftParenFollows() {
			return l.emit(kind, start)
		}
	}
	if strings.Contains(word, ":") {
		return l.emit(tokMetricIdentifier, start)
	}
	return l.emit(tokIdentifier, start)
}

// leftParenFollows reports whether the next character but spaces is "(".
func (l *lexer) leftParenFollows() bool {
	for i := l.pos; i < len(l.src); i++ {
		if !isSpace(rune(l.src[i])) {
			return l.src[i] == '('
		}
	}
	return false
}

// isDurationKeywordStart reports whether r can start step, range, max_of
// or min_of, in any case.
func isDurationKeywordStart(r rune) bool {
	switch unicode.ToLower(r) {
	case 's', 'r', 'm':
		return true
	}
	return false
}

// durationKeyword reads the letters from start and reports which duration
// keyword they spell, if any.
func (l *lexer) durationKeyword(start int) (tokenKind, bool) {
	for l.pos < len(l.src) && isAlpha(rune(l.src[l.pos])) {
		l.pos++
	}
	kind, ok := durationKeywords[strings.ToLower(l.src[start:l.pos])]
	return kind, ok
}

// quoted lexes a string in double or single quotes; the opening quote is
// read. Escapes are Go's, but a single-quoted string may hold " and a
// double-quoted one ' unescaped, and only the string's own quote may be
// escaped.
func (l *lexer) quoted(start int, quote rune) (token, bool) {
	for {
		r, w := l.rune()
		l.pos += w
		switch {
		case r == '\\':
			if msg := l.escape(quote); msg != "" {
				return l.errorf(start, "%s in the string starting %s", msg, quoteStart(l.src[start:]))
			}
		case r == utf8.RuneError:
			return l.errorf(start, "invalid UTF-8 in the string starting %s", quoteStart(l.src[start:]))
		case r < 0 || r == '\n':
			return l.errorf(start, "the string starting %s is not terminated: want a closing %c on its line", quoteStart(l.src[start:]), quote)
		case r == quote:
			return l.emit(tokString, start)
		}
	}
}

// raw lexes a string in backquotes, which has no escapes and may span
// lines; the opening quote is read.
func (l *lexer) raw(start int) (token, bool) {
	for {
		r, w := l.rune()
		l.pos += w
		switch {
		case r == utf8.RuneError:
			return l.errorf(start, "invalid UTF-8 in the string starting %s", quoteStart(l.src[start:]))
		case r < 0:
			return l.errorf(start, "the string starting %s is not terminated: want a closing `", quoteStart(l.src[start:]))
		case r == '`':
			return l.emit(tokString, start)
		}
	}
}

// escape reads an escape sequence after its backslash and returns what
// is wrong with it, or "".
func (l *lexer) escape(quote rune) string {
	r, w := l.rune()
	l.pos += w
	var digits int
	var base, maxVal uint32
	switch r {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', quote:
		return ""
	case '0', '1', '2', '3', '4', '5', '6', '7':
		digits, base, maxVal = 3, 8, 255
	case 'x':
		digits, base, maxVal = 2, 16, 255
	case 'u':
		digits, base, maxVal = 4, 16, unicode.MaxRune
	case 'U':
		digits, base, maxVal = 8, 16, unicode.MaxRune
	case -1:
		return "an escape sequence is not terminated"
	default:
		return "unknown escape sequence " + quoteRaw(`\`+string(r))
	}
	if r != 'x' && r != 'u' && r != 'U' {
		l.pos -= w // the first octal digit is a digit of the value
	}
	var x uint32
	for ; digits > 0; digits-- {
		d, w := l.rune()
		l.pos += w
		v := digitValue(d)
		if v >= base {
			if d < 0 {
				return "an escape sequence is not terminated"
			}
			return fmt.Sprintf("illegal character %s in an escape sequence", quoteRune(d))
		}
		x = x*base + v
	}
	if x > maxVal || 0xD800 <= x && x < 0xE000 {
		return "an escape sequence is not a valid Unicode code point"
	}
	return ""
}

// digitValue is the value of a hex digit, or 16 for any other rune.
func digitValue(r rune) uint32 {
	switch {
	case '0' <= r && r <= '9':
		return uint32(r - '0')
	case 'a' <= r && r <= 'f':
		return uint32(r - 'a' + 10)
	case 'A' <= r && r <= 'F':
		return uint32(r - 'A' + 10)
	}
	return 16
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
func isDigit(r rune) bool { return '0' <= r && r <= '9' }
func isAlpha(r rune) bool { return r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') }

// quoteRune quotes r for a message: 'x'.
func quoteRune(r rune) string { return fmt.Sprintf("%q", r) }

// quoteStart quotes the first characters of s for a message.
func quoteStart(s string) string {
	const most = 12
	if len(s) <= most {
		return fmt.Sprintf("%q", s)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", s[:cut])
}
