package grouping

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// FieldError is one problem with one field of user input: it names the
// object (when known) and the field, quotes the value and says what was
// expected. Callers find it with errors.As.
type FieldError = field.Error

// SelectorError is a selector requirement that does not compile. Its
// message is the field error's followed by the cause:
//
//	predicates[0].requiredClusterSelector.labelSelector.matchExpressions[0] "{key: env, operator: Equals, values: [dev]}": want a valid label selector requirement: "Equals" is not a valid label selector operator
//
// errors.As finds both the SelectorError and its *FieldError.
type SelectorError struct {
	// Field names the requirement, quotes it and says what was expected.
	Field *FieldError
	// Cause is the error from k8s.io/apimachinery, the text OCM's placement
	// controller puts in its PlacementMisconfigured condition.
	Cause error
}

// Error formats the problem as "<field error>: <cause>".
func (e *SelectorError) Error() string { return e.Field.Error() + ": " + e.Cause.Error() }

// Unwrap returns the field error and the cause.
func (e *SelectorError) Unwrap() []error { return []error{e.Field, e.Cause} }

// In returns a copy of e whose field error names obj as the object holding
// the selector (see [FieldError.In]).
func (e *SelectorError) In(obj string) *SelectorError {
	return &SelectorError{Field: e.Field.In(obj), Cause: e.Cause}
}

// Problems splits an error returned by this package into its problems, one
// error each (a *FieldError, a *SelectorError or a plain error). An error
// that joins nothing is its own only problem; nil has none.
func Problems(err error) []error {
	switch e := err.(type) {
	case nil:
		return nil
	case *FieldError, *SelectorError:
		return []error{err}
	case interface{ Unwrap() []error }:
		var out []error
		for _, inner := range e.Unwrap() {
			out = append(out, Problems(inner)...)
		}
		return out
	default:
		return []error{err}
	}
}

// Selector is a compiled cluster selector: a label selector over a cluster's
// labels AND a claim selector over its cluster claims, as in a Placement's
// requiredClusterSelector or a decision group's groupClusterSelector. The
// zero Selector matches every cluster, as an empty selector does in OCM.
type Selector struct {
	// Nil means "everything": it saves an interface call per cluster for
	// the common case of a selector with no claim part.
	labels labels.Selector
	claims labels.Selector
}

// NewSelector compiles a label selector and a claim selector (whose
// matchExpressions are read as a label selector over the cluster claims, as
// OCM does). fieldPath names the selector in errors, e.g.
// "predicates[0].requiredClusterSelector"; the error lists every requirement
// that does not compile (bad key, operator or values), each a
// *[SelectorError].
func NewSelector(fieldPath string, label metav1.LabelSelector, claim clusterv1beta1.ClusterClaimSelector) (Selector, error) {
	var s Selector
	var errs []error
	ls, err := compileLabelSelector(prefix(fieldPath, "labelSelector"), "label", label)
	errs = append(errs, err...)
	if ls != nil && !ls.Empty() {
		s.labels = ls
	}
	cs, err := compileLabelSelector(prefix(fieldPath, "claimSelector"), "claim",
		metav1.LabelSelector{MatchExpressions: claim.MatchExpressions})
	errs = append(errs, err...)
	if cs != nil && !cs.Empty() {
		s.claims = cs
	}
	if len(errs) > 0 {
		return Selector{}, errors.Join(errs...)
	}
	return s, nil
}

// Matches reports whether c's labels match the label selector and c's claims
// match the claim selector. Nil maps are empty.
func (s Selector) Matches(c Cluster) bool {
	if s.labels != nil && !s.labels.Matches(labels.Set(c.Labels)) {
		return false
	}
	return s.claims == nil || s.claims.Matches(labels.Set(c.Claims))
}

// String formats the selector in the labels package's syntax, label part
// and claim part, e.g. "labels(environment=dev) claims(<everything>)".
func (s Selector) String() string {
	show := func(sel labels.Selector) string {
		if sel == nil {
			return "<everything>"
		}
		return sel.String()
	}
	return "labels(" + show(s.labels) + ") claims(" + show(s.claims) + ")"
}

func prefix(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// compileLabelSelector compiles sel with metav1.LabelSelectorAsSelector.
// That stops at the first bad requirement (and, for matchLabels, at a random
// one); on failure each requirement is compiled on its own, so that every
// bad one is reported, in a stable order: matchLabels by key, then
// matchExpressions.
func compileLabelSelector(path, kind string, sel metav1.LabelSelector) (labels.Selector, []error) {
	compiled, err := metav1.LabelSelectorAsSelector(&sel)
	if err == nil {
		return compiled, nil
	}
	want := "a valid " + kind + " selector requirement"
	var errs []error
	keys := make([]string, 0, len(sel.MatchLabels))
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		one := metav1.LabelSelector{MatchLabels: map[string]string{k: sel.MatchLabels[k]}}
		if _, err := metav1.LabelSelectorAsSelector(&one); err != nil {
			fe := &field.Error{Field: fmt.Sprintf("%s.matchLabels[%q]", path, k), Value: sel.MatchLabels[k], Want: want}
			errs = append(errs, &SelectorError{Field: fe, Cause: err})
		}
	}
	for i, req := range sel.MatchExpressions {
		one := metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req}}
		if _, err := metav1.LabelSelectorAsSelector(&one); err != nil {
			fe := &field.Error{Field: fmt.Sprintf("%s.matchExpressions[%d]", path, i), Value: formatRequirement(req), Want: want}
			errs = append(errs, &SelectorError{Field: fe, Cause: err})
		}
	}
	if len(errs) == 0 {
		// Cannot happen: the whole failed, so one of its parts fails. Keep
		// the error rather than lose it.
		fe := &field.Error{Field: path, Value: metav1.FormatLabelSelector(&sel), Want: "a valid " + kind + " selector"}
		errs = append(errs, &SelectorError{Field: fe, Cause: err})
	}
	return nil, errs
}

// formatRequirement writes a requirement the way it reads in YAML flow
// style: {key: environment, operator: In, values: [dev, stg]}.
func formatRequirement(r metav1.LabelSelectorRequirement) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{key: %s, operator: %s", r.Key, r.Operator)
	if len(r.Values) > 0 {
		b.WriteString(", values: [")
		b.WriteString(strings.Join(r.Values, ", "))
		b.WriteString("]")
	}
	b.WriteString("}")
	return b.String()
}
