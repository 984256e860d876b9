package field

import "strconv"

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
