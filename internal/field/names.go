package field

import (
	"strconv"
	"strings"
)

// Names quotes the first shown of names, comma-separated, and counts the
// rest of total: `"a", "b" and 3 more`. Messages quote a few names, not a
// fleet's worth; each package says how many in one constant.
func Names(names []string, total, shown int) string {
	n := max(0, min(len(names), shown))
	quoted := make([]string, n)
	for i, name := range names[:n] {
		quoted[i] = strconv.Quote(name)
	}
	s := strings.Join(quoted, ", ")
	if rest := total - n; rest > 0 {
		s += " and " + strconv.Itoa(rest) + " more"
	}
	return s
}
