package grouping

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// lengthWant is what a bad clustersPerDecisionGroup is told to be.
const lengthWant = "want a positive integer or a percentage 1%-100%"

// parseLength parses clustersPerDecisionGroup, the field of the
// GroupStrategy at gs, as the Placement CRD admits it. A string must match
// the CRD's pattern
//
//	^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$
//
// that is a percentage 1%-100% without leading zeros, or a positive
// integer written as a string ("5"). An integer must be positive too, as
// if the pattern applied to it, except that the integer 0 is the Go zero
// value of the field: unset, all clusters in one group. A string integer
// too large for an int is larger than any fleet, and so means all clusters
// as well.
func parseLength(v intstr.IntOrString, gs *field.Path) (ifield.Portion, error) {
	bad := func(val any) (ifield.Portion, error) {
		return ifield.Portion{}, field.Invalid(gs.Child("clustersPerDecisionGroup"), val, lengthWant)
	}
	switch v.Type {
	case intstr.Int:
		if v.IntVal < 0 {
			return bad(v.IntVal)
		}
		return ifield.Portion{N: int(v.IntVal)}, nil
	case intstr.String:
		s := v.StrVal
		if digits, ok := strings.CutSuffix(s, "%"); ok {
			if !positiveDigits(digits) || len(digits) > 3 || (len(digits) == 3 && digits != "100") {
				return bad(s)
			}
			n, err := strconv.Atoi(digits)
			if err != nil {
				return bad(s)
			}
			return ifield.Portion{N: n, Percent: true}, nil
		}
		if !positiveDigits(s) {
			return bad(s)
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			// Only a range error is left: more clusters than an int holds.
			n = math.MaxInt
		}
		return ifield.Portion{N: n}, nil
	default:
		return bad(fmt.Sprintf("<intstr type %d>", v.Type))
	}
}

// positiveDigits reports whether s is [1-9][0-9]*: decimal digits with no
// leading zero.
func positiveDigits(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
