package grouping_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// crdLengthPattern is the pattern of clustersPerDecisionGroup in OCM's
// Placement CRD (cluster.open-cluster-management.io_placements.crd.yaml).
var crdLengthPattern = regexp.MustCompile(`^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$`)

// checkLength fails t unless Compile admits v exactly when the CRD pattern
// does: a string by the pattern, an integer by its decimal form, except
// the integer 0, the Go zero value, which means unset.
func checkLength(t *testing.T, v intstr.IntOrString) {
	t.Helper()
	want := crdLengthPattern.MatchString(v.StrVal)
	if v.Type == intstr.Int {
		want = v.IntVal == 0 || crdLengthPattern.MatchString(strconv.Itoa(int(v.IntVal)))
	}
	_, err := grouping.Compile(strategy(v), nil)
	if want {
		assert.NoError(t, err, "%s: the CRD admits it", v.String())
	} else {
		assert.Error(t, err, "%s: the CRD refuses it", v.String())
	}
}

func TestClustersPerDecisionGroupIsTheCRDPattern(t *testing.T) {
	t.Parallel()
	tests := []intstr.IntOrString{
		{}, intstr.FromInt32(0), intstr.FromInt32(1), intstr.FromInt32(250), intstr.FromInt32(-1), intstr.FromInt32(-3),
		intstr.FromString("1"), intstr.FromString("5"), intstr.FromString("1000000"), intstr.FromString("99999999999999999999999"),
		intstr.FromString("1%"), intstr.FromString("9%"), intstr.FromString("10%"), intstr.FromString("99%"), intstr.FromString("100%"),
		intstr.FromString("0"), intstr.FromString("05"), intstr.FromString("-3"), intstr.FromString("+3"), intstr.FromString(" 3"),
		intstr.FromString("0%"), intstr.FromString("00%"), intstr.FromString("05%"), intstr.FromString("101%"), intstr.FromString("150%"),
		intstr.FromString("1000%"), intstr.FromString("0100%"), intstr.FromString("7.5%"), intstr.FromString("%"), intstr.FromString("7%%"),
		intstr.FromString("ten"), intstr.FromString(""), intstr.FromString("٣"), intstr.FromString("3\n"),
	}
	for _, v := range tests {
		t.Run(strconv.Quote(v.String()), func(t *testing.T) {
			t.Parallel()
			checkLength(t, v)
		})
	}
}
