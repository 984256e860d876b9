package hubplan

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// ValidateSpec returns every problem an AddOnRollout's spec has on its
// own, whatever the hub holds: a window's days, times and time zone (an
// IANA name, loaded with time.LoadLocation), a verification with both or
// neither of webhook and prometheus, a URL or address that is not an
// absolute http or https URL, a PromQL query that validate refuses (nil:
// only a blank one), a non-positive interval or timeout, a check's
// credentials, CA and headers (each reference complete and well named, a
// header that is not one the client sets, no password in a URL), and two
// verifications of one name. Each is a *field.Error whose path starts at
// the object's root (spec.windows[0].timeZone); none: nil.
//
// It is what an admission webhook refuses. [Planner.Plan] refuses the
// same problems, by the same code, and also names groups the add-on's
// placements do not have, which ValidateSpec does not judge: a group may
// appear after the AddOnRollout that names it.
func ValidateSpec(ar *v1alpha1.AddOnRollout, validate QueryValidator) field.ErrorList {
	if ar == nil {
		return field.ErrorList{field.Required(field.NewPath("spec"), "an AddOnRollout, not nil")}
	}
	_, errs := parseSpec(ar, validate, nil)
	var out field.ErrorList
	for _, err := range errs {
		var fe *field.Error
		if !errors.As(err, &fe) {
			fe = field.InternalError(field.NewPath("spec"), err)
		}
		out = append(out, fe)
	}
	return out
}
