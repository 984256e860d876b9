package placement

import (
	"cmp"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// The built-in prioritizers, by their name in a ScoreCoordinate.
const (
	builtInBalance           = "Balance"
	builtInSteady            = "Steady"
	builtInAllocatableCPU    = "ResourceAllocatableCPU"
	builtInAllocatableMemory = "ResourceAllocatableMemory"
)

// prioritizerKind is what a prioritizer scores by.
type prioritizerKind int

const (
	balance prioritizerKind = iota
	steady
	allocatableCPU
	allocatableMemory
	addOnScore
)

// prioritizer is one enabled prioritizer (its weight is not 0).
type prioritizer struct {
	kind   prioritizerKind
	weight int64
	// addOn names the AddOnPlacementScore and the score in it, for kind
	// addOnScore.
	addOn clusterv1beta1.AddOnScore
}

// parsePrioritizers reads spec.prioritizerPolicy as OCM's scheduler does.
// Additive (or empty) mode starts from the defaults, Balance and Steady
// with weight 1; Exact starts from nothing. Each configuration then sets
// the weight of its score coordinate, the last one winning. Coordinates
// are told apart as OCM's map keys tell them apart: by type, built-in name
// and the identity of the addOn pointer. A weight of 0 disables the
// prioritizer. A type other than BuiltIn is read as AddOn, as OCM's
// controller reads it (the API server defaults an empty type to BuiltIn).
//
// It returns the enabled prioritizers, every problem in spec order, and
// OCM's message for the first problem OCM meets: a bad mode, else a
// configuration without scoreCoordinate, else a bad coordinate.
func parsePrioritizers(pp clusterv1beta1.PrioritizerPolicy) ([]prioritizer, []error, string) {
	path := field.NewPath("spec", "prioritizerPolicy")
	var order []clusterv1beta1.ScoreCoordinate // by first appearance
	weights := map[clusterv1beta1.ScoreCoordinate]int32{}
	last := map[clusterv1beta1.ScoreCoordinate]int{} // the configuration that set the weight
	set := func(sc clusterv1beta1.ScoreCoordinate, w int32, at int) {
		if _, ok := weights[sc]; !ok {
			order = append(order, sc)
		}
		weights[sc], last[sc] = w, at
	}
	switch pp.Mode {
	case clusterv1beta1.PrioritizerPolicyModeExact:
	case clusterv1beta1.PrioritizerPolicyModeAdditive, "":
		set(builtIn(builtInBalance), 1, -1)
		set(builtIn(builtInSteady), 1, -1)
	default:
		return nil, []error{field.NotSupported(path.Child("mode"), string(pp.Mode), []clusterv1beta1.PrioritizerPolicyModeType{
			clusterv1beta1.PrioritizerPolicyModeAdditive, clusterv1beta1.PrioritizerPolicyModeExact,
		})}, "incorrect prioritizer policy mode: " + string(pp.Mode)
	}
	for i, c := range pp.Configurations {
		if c.ScoreCoordinate != nil {
			set(*c.ScoreCoordinate, c.Weight, i)
		}
	}

	var errs []error
	var missing, bad string // OCM's messages
	for i, c := range pp.Configurations {
		at := path.Child("configurations").Index(i).Child("scoreCoordinate")
		switch {
		case c.ScoreCoordinate == nil:
			errs = append(errs, field.Required(at, "want a BuiltIn or AddOn score coordinate"))
			missing = cmp.Or(missing, "scoreCoordinate field is required")
		case last[*c.ScoreCoordinate] != i || c.Weight == 0:
			// Another configuration sets its weight, or it is off.
		default:
			if err, msg := checkCoordinate(*c.ScoreCoordinate, at); err != nil {
				errs = append(errs, err)
				bad = cmp.Or(bad, msg)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs, cmp.Or(missing, bad)
	}
	out := make([]prioritizer, 0, len(order))
	for _, sc := range order {
		if w := weights[sc]; w != 0 {
			out = append(out, newPrioritizer(sc, w))
		}
	}
	return out, nil, ""
}

func builtIn(name string) clusterv1beta1.ScoreCoordinate {
	return clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}
}

// checkCoordinate refuses what OCM refuses: an unknown built-in name, and
// a coordinate of any other type without addOn. It returns our error and
// OCM's message.
func checkCoordinate(sc clusterv1beta1.ScoreCoordinate, path *field.Path) (*field.Error, string) {
	if sc.Type == clusterv1beta1.ScoreCoordinateTypeBuiltIn {
		switch sc.BuiltIn {
		case builtInBalance, builtInSteady, builtInAllocatableCPU, builtInAllocatableMemory:
			return nil, ""
		}
		return field.NotSupported(path.Child("builtIn"), sc.BuiltIn,
				[]string{builtInBalance, builtInSteady, builtInAllocatableCPU, builtInAllocatableMemory}),
			"incorrect builtin prioritizer: " + sc.BuiltIn
	}
	if sc.AddOn != nil {
		return nil, ""
	}
	const msg = "addOn should not be empty"
	if sc.Type == clusterv1beta1.ScoreCoordinateTypeAddOn {
		return field.Required(path.Child("addOn"), "want resourceName and scoreName for type AddOn"), msg
	}
	return field.NotSupported(path.Child("type"), sc.Type,
		[]string{clusterv1beta1.ScoreCoordinateTypeBuiltIn, clusterv1beta1.ScoreCoordinateTypeAddOn}), msg
}

// newPrioritizer makes the prioritizer of a coordinate checkCoordinate
// accepted.
func newPrioritizer(sc clusterv1beta1.ScoreCoordinate, weight int32) prioritizer {
	p := prioritizer{weight: int64(weight)}
	if sc.Type != clusterv1beta1.ScoreCoordinateTypeBuiltIn {
		p.kind, p.addOn = addOnScore, *sc.AddOn
		return p
	}
	switch sc.BuiltIn {
	case builtInBalance:
		p.kind = balance
	case builtInSteady:
		p.kind = steady
	case builtInAllocatableCPU:
		p.kind = allocatableCPU
	default:
		p.kind = allocatableMemory
	}
	return p
}
