package field

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	apifield "k8s.io/apimachinery/pkg/util/validation/field"
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

// portionWant is what a bad int-or-percent value is told to be.
const portionWant = "want a non-negative integer or a percentage 0%-100%"

// ParsePortion parses an int-or-percent value as OCM's CRDs admit it: a
// string must be a whole percentage "N%" with 0 <= N <= 100, an int must
// be >= 0. ok is false for anything else; [InvalidPortion] words the
// problem.
func ParsePortion(v intstr.IntOrString) (p Portion, ok bool) {
	switch v.Type {
	case intstr.Int:
		if v.IntVal < 0 {
			return Portion{}, false
		}
		return Portion{N: int(v.IntVal)}, true
	case intstr.String:
		digits, ok := strings.CutSuffix(v.StrVal, "%")
		if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
			return Portion{}, false
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n > 100 {
			return Portion{}, false
		}
		return Portion{N: n, Percent: true}, true
	default:
		return Portion{}, false
	}
}

// InvalidPortion is the problem of v, a value that ParsePortion refuses,
// as the field at path: the value as written (an int unquoted) and what is
// wanted, e.g.
//
//	progressive.maxConcurrency: Invalid value: "150%": want a non-negative integer or a percentage 0%-100%
func InvalidPortion(path *apifield.Path, v intstr.IntOrString) *apifield.Error {
	var value any
	switch v.Type {
	case intstr.Int:
		value = v.IntVal
	case intstr.String:
		value = v.StrVal
	default:
		value = fmt.Sprintf("<intstr type %d>", v.Type)
	}
	return apifield.Invalid(path, value, portionWant)
}
