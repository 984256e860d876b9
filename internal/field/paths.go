package field

import (
	"errors"
	"strings"

	apifield "k8s.io/apimachinery/pkg/util/validation/field"
)

// Rooted returns the problems of err, a join of *field.Error as
// rollout.Validate returns them with paths relative to the strategy, each
// with path before its own, so that every problem names its field from the
// ClusterManagementAddOn's root; a problem that is not a *field.Error is
// kept as it is, after path. errors.As finds each problem in the result.
func Rooted(path *apifield.Path, err error) error {
	var out []error
	for _, e := range Problems(err) {
		var fe *apifield.Error
		if !errors.As(e, &fe) {
			out = append(out, &apifield.Error{Type: apifield.ErrorTypeInvalid, Field: path.String(), BadValue: apifield.OmitValueType{}, Detail: e.Error()})
			continue
		}
		c := *fe
		c.Field = path.String() + "." + fe.Field
		out = append(out, &c)
	}
	return errors.Join(out...)
}

// Problems returns the errors joined in err (err itself when it joins
// none).
func Problems(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// OneLine words err on one line, for a condition's message: the problems
// it joins, separated by "; ".
func OneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
