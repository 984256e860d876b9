package field

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is one problem with one field of user input. Its message names the
// object (when known) and the field, quotes the value, and says what was
// expected:
//
//	placement "ns/p": decisionStrategy.groupStrategy.clustersPerDecisionGroup "150%": want a positive integer or a percentage 1%-100%
type Error struct {
	// Object names the object that holds the field, e.g.
	// `placement "open-cluster-management/cluster-proxy-placement"`. It may be
	// empty when the caller passed a bare value.
	Object string
	// Field is the path of the field, e.g. "progressivePerGroup.maxFailures".
	Field string
	// Value is the offending value as the user wrote it.
	Value string
	// Want says what would have been accepted.
	Want string
}

// Error formats the problem as `object: field "value": want ...`.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Object != "" {
		b.WriteString(e.Object)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s %q: want %s", e.Field, e.Value, e.Want)
	return b.String()
}

// In returns a copy of e that names obj as the object holding the field.
// An object already named is kept as the inner part of the path.
func (e *Error) In(obj string) *Error {
	c := *e
	if c.Object != "" {
		c.Object = obj + ": " + c.Object
	} else {
		c.Object = obj
	}
	return &c
}

// Name returns s as it is when it is a plain Kubernetes name (letters,
// digits, '-', '_', '.'; not empty), and quoted with strconv.Quote
// otherwise, so that a name with spaces or control characters cannot forge
// a line or a field of output.
func Name(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return strconv.Quote(s)
		}
	}
	return s
}
