package addon

import (
	"strings"
)

// checkPromQL returns what is wrong with a PromQL query that can be told
// without a Prometheus server, or "" when nothing is: an empty query,
// unbalanced brackets, braces or parentheses, or an unterminated string.
// The server is the judge of the rest: a query it refuses fails its check,
// and the check's message quotes the server's error.
func checkPromQL(q string) string {
	if strings.TrimSpace(q) == "" {
		return "want a PromQL expression, e.g. max(addon_error_ratio) < 0.01"
	}
	var stack []rune
	closing := map[rune]rune{')': '(', ']': '[', '}': '{'}
	var quote rune
	escaped := false
	for _, r := range q {
		switch {
		case quote != 0:
			switch {
			case escaped:
				escaped = false
			case r == '\\' && quote != '`':
				escaped = true
			case r == quote:
				quote = 0
			}
		case r == '"' || r == '\'' || r == '`':
			quote = r
		case r == '(' || r == '[' || r == '{':
			stack = append(stack, r)
		case closing[r] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != closing[r] {
				return "want a PromQL expression: " + string(r) + " closes nothing"
			}
			stack = stack[:len(stack)-1]
		}
	}
	switch {
	case quote != 0:
		return "want a PromQL expression: a string is not terminated"
	case len(stack) > 0:
		return "want a PromQL expression: " + string(stack[len(stack)-1]) + " is not closed"
	}
	return ""
}
