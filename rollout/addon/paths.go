package addon

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rooted returns the problems of err, a join of *field.Error as
// rollout.Validate returns them with paths relative to the strategy, each
// with path before its own, so that every problem names its field from the
// ClusterManagementAddOn's root; a problem that is not a *field.Error is
// kept as it is, after path. errors.As finds each problem in the result.
func rooted(path *field.Path, err error) error {
	var out []error
	for _, e := range problems(err) {
		var fe *field.Error
		if !errors.As(e, &fe) {
			out = append(out, &field.Error{Type: field.ErrorTypeInvalid, Field: path.String(), BadValue: field.OmitValueType{}, Detail: e.Error()})
			continue
		}
		c := *fe
		c.Field = path.String() + "." + fe.Field
		out = append(out, &c)
	}
	return errors.Join(out...)
}

// problems returns the errors joined in err (err itself when it joins
// none).
func problems(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// oneLine words err on one line, for a condition's message: the problems
// it joins, separated by "; ".
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
