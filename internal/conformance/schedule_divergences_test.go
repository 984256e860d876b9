package conformance

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/placement"
)

// scheduleDivergence is a documented difference between OCM's scheduler
// and ours (docs/compatibility.md). Applies says, from the input and OCM's
// outcome, whether a scenario touches it; the parity test lets the two
// disagree only then, and requires each to explain a disagreement at
// least once in a full run.
type scheduleDivergence struct {
	ID, Summary string
	Applies     func(hc *hubCase, theirs scheduleOutcome) bool
}

var scheduleDivergences = []scheduleDivergence{
	{ID: "P1", Summary: "clustersPerDecisionGroup N% is rounded in floating point", Applies: percentRoundsUp},
	{ID: "P2", Summary: "clustersPerDecisionGroup values the CRD forbids are accepted", Applies: perGroupForbidden},
	{ID: "P6", Summary: "clustersPerDecisionGroup as a numeric string is refused", Applies: perGroupNumericString},
	{ID: "S1", Summary: "a celSelector is evaluated; ours refuses the Placement", Applies: usesCEL},
}

func scheduleDivergenceByID(id string) scheduleDivergence {
	for _, d := range scheduleDivergences {
		if d.ID == id {
			return d
		}
	}
	panic("no scheduler divergence " + id)
}

// percentRoundsUp: an N% clustersPerDecisionGroup whose floating-point
// ceiling (OCM's calculateLength) of the clusters OCM selected is not the
// exact one.
func percentRoundsUp(hc *hubCase, theirs scheduleOutcome) bool {
	v := hc.Placement.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup
	if v.Type != intstr.String || !strings.HasSuffix(v.StrVal, "%") {
		return false
	}
	p, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if err != nil || p <= 0 {
		return false
	}
	total := int(theirs.Selected)
	return int(math.Ceil(float64(p)/100*float64(total))) != (p*total+99)/100
}

// crdPerGroup is the CRD's pattern for clustersPerDecisionGroup.
var crdPerGroup = regexp.MustCompile(`^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$`)

// perGroupForbidden: a negative int, or a string the CRD's pattern
// forbids.
func perGroupForbidden(hc *hubCase, _ scheduleOutcome) bool {
	v := hc.Placement.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup
	if v.Type == intstr.Int {
		return v.IntVal < 0
	}
	return v.StrVal != "" && !crdPerGroup.MatchString(v.StrVal)
}

// perGroupNumericString: "5" rather than 5.
func perGroupNumericString(hc *hubCase, _ scheduleOutcome) bool {
	v := hc.Placement.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup
	return v.Type == intstr.String && crdPerGroup.MatchString(v.StrVal) && !strings.HasSuffix(v.StrVal, "%")
}

func usesCEL(hc *hubCase, _ scheduleOutcome) bool {
	for _, pr := range hc.Placement.Spec.Predicates {
		if len(pr.RequiredClusterSelector.CelSelector.CelExpressions) > 0 {
			return true
		}
	}
	return false
}

// celRefused checks S1 on our side: an empty Result and a *field.Error,
// NotSupported or Forbidden, on the celExpressions of the first predicate
// that has any.
func celRefused(hc *hubCase, ours scheduleOutcome, res placement.Result) string {
	want := ""
	for i, pr := range hc.Placement.Spec.Predicates {
		if len(pr.RequiredClusterSelector.CelSelector.CelExpressions) > 0 {
			want = fmt.Sprintf("spec.predicates[%d].requiredClusterSelector.celSelector.celExpressions", i)
			break
		}
	}
	var fe *field.Error
	switch {
	case !errors.As(ours.Err, &fe):
		return fmt.Sprintf("S1: want a *field.Error for a celSelector, got %v", ours.Err)
	case fe.Field != want:
		return fmt.Sprintf("S1: the error names %q, want %q", fe.Field, want)
	case fe.Type != field.ErrorTypeNotSupported && fe.Type != field.ErrorTypeForbidden:
		return fmt.Sprintf("S1: the error is of type %s, want NotSupported or Forbidden", fe.Type)
	case !reflect.DeepEqual(res, placement.Result{}):
		return fmt.Sprintf("S1: want an empty Result with the error, got %+v", res)
	}
	return ""
}
