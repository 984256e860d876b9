package field

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Portion is a parsed OCM int-or-percent quantity: either an absolute count
// or a whole percentage of some total.
type Portion struct {
	// N is the count, or the percentage when Percent is set.
	N int
	// Percent says N is a percentage (0..100).
	Percent bool
}

// Of returns the portion of total: N itself, or ceil(N*total/100) computed in
// exact integer arithmetic (OCM computes it in floating point, so "7%" of 100
// gives 8 there; here it gives 7).
func (p Portion) Of(total int) int {
	if !p.Percent {
		return p.N
	}
	// N <= 100, so N*total cannot overflow for any total a slice can hold.
	return (p.N*total + 99) / 100
}

// IsZero reports whether the portion is 0 or 0%: OCM's "unset".
func (p Portion) IsZero() bool { return p.N == 0 }

// String formats the portion as it would be written in a manifest.
func (p Portion) String() string {
	if p.Percent {
		return strconv.Itoa(p.N) + "%"
	}
	return strconv.Itoa(p.N)
}

// ParsePortion parses an int-or-percent value. A string must be a whole
// percentage "N%" with 0 <= N <= 100 (the pattern OCM's CRDs enforce); an
// int must be >= 0 unless allowNegative is set. The error is an *Error for
// fieldPath that quotes the value.
func ParsePortion(fieldPath string, v intstr.IntOrString, allowNegative bool) (Portion, error) {
	want := "a non-negative integer or a percentage 0%-100%"
	if allowNegative {
		want = "an integer or a percentage 0%-100%"
	}
	bad := func(val string) (Portion, error) {
		return Portion{}, &Error{Field: fieldPath, Value: val, Want: want}
	}
	switch v.Type {
	case intstr.Int:
		if v.IntVal < 0 && !allowNegative {
			return bad(strconv.Itoa(int(v.IntVal)))
		}
		return Portion{N: int(v.IntVal)}, nil
	case intstr.String:
		s := v.StrVal
		digits, ok := strings.CutSuffix(s, "%")
		if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
			return bad(s)
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n > 100 {
			return bad(s)
		}
		return Portion{N: n, Percent: true}, nil
	default:
		return bad(fmt.Sprintf("<intstr type %d>", v.Type))
	}
}
