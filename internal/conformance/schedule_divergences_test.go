package conformance

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/placement"
)

// scheduleDivergence is a documented difference between OCM's scheduler
// and ours (docs/compatibility.md). Applies says, from the input and OCM's
// outcome, whether a scenario touches it; the parity test lets the two
// disagree only then, and requires each to explain a disagreement at
// least once in a full run. Applies is nil for those explainRecheck
// tells.
type scheduleDivergence struct {
	ID, Summary string
	Applies     func(hc *hubCase, theirs scheduleOutcome) bool
}

var scheduleDivergences = []scheduleDivergence{
	{ID: "P1", Summary: "clustersPerDecisionGroup N% is rounded in floating point", Applies: percentRoundsUp},
	{ID: "P2", Summary: "clustersPerDecisionGroup values the CRD forbids are accepted", Applies: perGroupForbidden},
	{ID: "P6", Summary: "clustersPerDecisionGroup as a numeric string is refused", Applies: perGroupNumericString},
	{ID: "S1", Summary: "a celSelector is evaluated; ours refuses the Placement", Applies: usesCEL},
	// S2 and S3 concern RecheckAfter alone; explainRecheck tells them.
	{ID: "S2", Summary: "the requeue counts only the clusters of the decisions before the sync"},
	{ID: "S3", Summary: "no requeue when an AddOnPlacementScore expires"},
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

// explainRecheck explains a disagreement on RecheckAfter alone with S2 or
// S3, or says why it cannot.
//
// S2: OCM computes its requeue from the clusters of the Placement's
// PlacementDecisions as they were before the sync. The clusters it selects
// now count at its next sync, which its own write of the decisions
// triggers. Ours counts both at once and gives the earlier: it must agree
// with the earlier of OCM's two syncs.
//
// S3: OCM never requeues for an AddOnPlacementScore's validUntil. Ours
// does, for the scores it read: its recheck must then be the expiry of a
// score a prioritizer of the Placement reads, before any requeue of OCM's.
func explainRecheck(hc *hubCase, ours, theirs scheduleOutcome) (id, why string) {
	next := runOCMScheduler(nextSync(*hc, theirs))
	both := earlierRecheck(theirs, next)
	if recheckAgrees(ours, both) {
		return "S2", ""
	}
	if usedScoreExpires(hc, ours.RecheckAfter) && (both.RecheckAfter == 0 && both.RecheckSlack == 0 || ours.RecheckAfter < both.RecheckAfter) {
		return "S3", ""
	}
	return "", fmt.Sprintf("RecheckAfter: ours %s, OCM %s (+%s) at this sync and %s (+%s) at the next",
		ours.RecheckAfter, theirs.RecheckAfter, theirs.RecheckSlack, next.RecheckAfter, next.RecheckSlack)
}

// earlierRecheck is the earlier requeue of two OCM outcomes, none when
// neither asks for one.
func earlierRecheck(a, b scheduleOutcome) scheduleOutcome {
	none := func(o scheduleOutcome) bool { return o.RecheckAfter == 0 && o.RecheckSlack == 0 }
	switch {
	case none(a):
		return b
	case none(b) || a.RecheckAfter <= b.RecheckAfter:
		return a
	}
	return b
}

// usedScoreExpires: d is how long until some AddOnPlacementScore, of a
// resource a prioritizer of the Placement reads with a weight, expires.
func usedScoreExpires(hc *hubCase, d time.Duration) bool {
	read := map[string]bool{}
	for _, c := range hc.Placement.Spec.PrioritizerPolicy.Configurations {
		if sc := c.ScoreCoordinate; sc != nil && sc.AddOn != nil && c.Weight != 0 {
			read[sc.AddOn.ResourceName] = true
		}
	}
	for _, s := range hc.Hub.Scores {
		if vu := s.Status.ValidUntil; vu != nil && read[s.Name] && vu.After(hc.Now) && vu.Sub(hc.Now) == d {
			return true
		}
	}
	return false
}
