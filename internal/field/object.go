package field

import (
	"errors"
	"fmt"
)

// Object formats how an error names an object: `kind "namespace/name"`, or
// `kind "name"` when it has no namespace.
func Object(kind, namespace, name string) string {
	if namespace == "" {
		return fmt.Sprintf("%s %q", kind, name)
	}
	return fmt.Sprintf("%s %q", kind, namespace+"/"+name)
}

// About names object once around its problems: nil when there are none,
// else `object: ` before their errors.Join, so that errors.As still finds
// each problem.
func About(object string, problems ...error) error {
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", object, errors.Join(problems...))
}
