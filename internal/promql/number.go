package promql

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// numberOrDuration lexes a number (1, .5, 0x1f, 1e3, 1_000) or a duration
// (5m, 1h30m, 1.5m as a token that fails to parse later) from the current
// offset, which holds a digit or a "." and a digit. The rules are
// Prometheus's, character for character, so that the same inputs end a
// token, or fail, at the same place.
func (l *lexer) numberOrDuration() (token, bool) {
	start := l.pos
	end, ok := scanNumber(l.src, start)
	if ok {
		l.pos = end
		return l.emit(tokNumber, start)
	}
	// Not a number: a duration's units may follow where the scan stopped.
	end, ok = scanDurationRest(l.src, end)
	l.pos = end
	if ok {
		return l.emit(tokDuration, start)
	}
	return l.errorf(start, "bad number or duration %q", l.src[start:l.pos])
}

// scanNumber scans a number from offset i of s and returns where it ends
// and whether it is one: digits with at most one "." and one exponent,
// single underscores between digits, or 0x and hex digits; not followed by
// a letter, digit or underscore. On failure the offset says how far it
// got, where a duration's unit may follow (5m).
func scanNumber(s string, i int) (int, bool) {
	start := i
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	in := func(c byte, set string) bool { return c != 0 && strings.IndexByte(set, c) >= 0 }
	digits := "0123456789"
	if at(i) == '0' {
		i++
		if in(at(i), "xX") {
			i++
			if at(i) == '_' {
				i++
			}
			digits = "0123456789abcdefABCDEF"
		}
	}
	if at(i) == '.' {
		i++
	}
	if in(at(i), digits) {
		i++
	}
	dot, exponent := false, false
	for in(at(i), digits+"._eE") {
		c := at(i)
		switch {
		case c == '.' && dot, (c == 'e' || c == 'E') && exponent:
			return i + 1, false
		case c == '.':
			dot = true
			i++
			if in(at(i), "_.") {
				return i + 1, false
			}
			if len(digits) > 10 { // no fractional hex numbers
				return i, false
			}
		case c == 'e' || c == 'E':
			exponent = true
			i++
			if in(at(i), "+-") {
				i++
			}
			if in(at(i), "._eE") {
				return i + 1, false
			}
			if i >= len(s) {
				return i, false
			}
		case c == '_':
			i++
			if in(at(i), "._eE") {
				return i + 1, false
			}
			if i >= len(s) {
				return i, false
			}
		default:
			for in(at(i), digits) {
				i++
			}
		}
	}
	if i == start {
		return i, false
	}
	return i, !isAlpha(rune(at(i))) && !isDigit(rune(at(i)))
}

// scanDurationRest scans the units of a duration from offset i of s, where
// the number scan stopped: a unit (y, w, d, h, m, s, ms), then more digits
// and units, not followed by a letter, digit or underscore.
func scanDurationRest(s string, i int) (int, bool) {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	unit := func(units string) bool {
		if c := at(i); c == 0 || strings.IndexByte(units, c) < 0 {
			return false
		}
		i++
		if at(i) == 's' { // ms; hs and the like fail to parse later
			i++
		}
		return true
	}
	if !unit("smhdwy") {
		return i, false
	}
	for isDigit(rune(at(i))) {
		for isDigit(rune(at(i))) {
			i++
		}
		if !unit("smhdw") { // y comes first or not at all
			return i, false
		}
	}
	c := rune(at(i))
	return i, !isAlpha(c) && !isDigit(c)
}

// parseNumber is the value of a number token: an integer in Go syntax
// (0x1f, 0755, 1_000), else a float (1e3, Inf, NaN, 0x1p-2).
func parseNumber(text string) (float64, error) {
	if n, err := strconv.ParseInt(text, 0, 64); err == nil {
		return float64(n), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		var numErr *strconv.NumError
		if errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("number %s is out of range: want at most %g", text, math.MaxFloat64)
		}
		return 0, fmt.Errorf("number %s does not parse: want a decimal, hex or octal number, e.g. 0.5, 0x1f or 1e3", text)
	}
	return f, nil
}

// durationUnits are the units of a duration, biggest first.
var durationUnits = []struct {
	name string
	size time.Duration
}{
	{"y", 365 * 24 * time.Hour}, {"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour},
	{"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond},
}

// parseDuration parses a duration token as Prometheus does: numbers with
// units from the biggest to the smallest, each unit at most once (1h30m,
// 1y2w), or 0. A year is 365 days, a week 7.
func parseDuration(text string) (time.Duration, error) {
	if text == "0" {
		return 0, nil
	}
	want := fmt.Errorf("duration %s does not parse: want numbers with units from y, w, d, h, m, s, ms, biggest first, e.g. 1h30m", text)
	var total uint64
	last := -1
	for s := text; s != ""; {
		i := 0
		for i < len(s) && isDigit(rune(s[i])) {
			i++
		}
		if i == 0 {
			return 0, want
		}
		v, err := strconv.ParseUint(s[:i], 10, 64)
		if err != nil {
			return 0, want
		}
		s = s[i:]
		i = 0
		for i < len(s) && !isDigit(rune(s[i])) {
			i++
		}
		u := -1
		for k, unit := range durationUnits {
			if unit.name == s[:i] {
				u = k
			}
		}
		switch {
		case u < 0:
			return 0, fmt.Errorf("duration %s has an unknown unit %q: want y, w, d, h, m, s or ms", text, s[:i])
		case u <= last:
			return 0, want
		}
		s, last = s[i:], u
		size := uint64(durationUnits[u].size)
		if v > 1<<63/size {
			return 0, fmt.Errorf("duration %s is out of range: want at most about 292 years", text)
		}
		total += v * size
		if total > 1<<63-1 {
			return 0, fmt.Errorf("duration %s is out of range: want at most about 292 years", text)
		}
	}
	return time.Duration(total), nil
}

// durationOutOfRange reports whether seconds overflow a time.Duration.
func durationOutOfRange(seconds float64) bool {
	return seconds > 1<<63/1e9 || seconds < -(1<<63)/1e9
}

// nanoseconds rounds seconds to a time.Duration as Prometheus does, so
// that an offset of 1e-10 counts as no offset there and here alike.
func nanoseconds(seconds float64) time.Duration {
	return time.Duration(math.Round(seconds * float64(time.Second)))
}
