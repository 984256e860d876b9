package grouping

import (
	"errors"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

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
// OCM does). A selector compiles when metav1.LabelSelectorAsSelector
// accepts it. path is where the pair sits in its object, e.g.
// spec.predicates[0].requiredClusterSelector (nil: paths start at
// labelSelector and claimSelector). The error joins a *field.Error for
// every problem of every requirement that does not compile, as
// Kubernetes validates a LabelSelector:
//
//	spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'
func NewSelector(label metav1.LabelSelector, claim clusterv1beta1.ClusterClaimSelector, path *field.Path) (Selector, error) {
	s, errs := newSelector(label, claim, func() *field.Path { return path })
	return s, errors.Join(errs...)
}

// newSelector is NewSelector, with the selector's path made only for a
// problem.
func newSelector(label metav1.LabelSelector, claim clusterv1beta1.ClusterClaimSelector, path func() *field.Path) (Selector, []error) {
	var s Selector
	ls, errs := compileLabelSelector(label, path, "labelSelector")
	if ls != nil && !ls.Empty() {
		s.labels = ls
	}
	cs, cerrs := compileLabelSelector(metav1.LabelSelector{MatchExpressions: claim.MatchExpressions}, path, "claimSelector")
	if cs != nil && !cs.Empty() {
		s.claims = cs
	}
	if errs = append(errs, cerrs...); len(errs) > 0 {
		return Selector{}, errs
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

// operators are the operators of a LabelSelectorRequirement.
var operators = []metav1.LabelSelectorOperator{
	metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist,
}

// compileLabelSelector compiles sel, the field name of parent(), with
// metav1.LabelSelectorAsSelector. That stops at the first bad requirement
// (and, among matchLabels, at a random one); on failure every requirement
// is validated on its own, so that every problem is reported, in a stable
// order: matchLabels by key, then matchExpressions. Paths are made only
// then.
func compileLabelSelector(sel metav1.LabelSelector, parent func() *field.Path, name string) (labels.Selector, []error) {
	compiled, err := metav1.LabelSelectorAsSelector(&sel)
	if err == nil {
		return compiled, nil
	}
	path := parent().Child(name)
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		keyErrs := metav1validation.ValidateLabelName(k, path.Child("matchLabels"))
		for _, fe := range keyErrs {
			errs = append(errs, fe)
		}
		at := path.Child("matchLabels").Key(k)
		if len(keyErrs) > 0 {
			at = path.Child("matchLabels") // a path names only a valid key: a bad one is quoted in its own problem
		}
		for _, msg := range validation.IsValidLabelValue(sel.MatchLabels[k]) {
			errs = append(errs, field.Invalid(at, sel.MatchLabels[k], msg))
		}
	}
	for i, req := range sel.MatchExpressions {
		at := path.Child("matchExpressions").Index(i)
		if !slices.Contains(operators, req.Operator) {
			errs = append(errs, field.NotSupported(at.Child("operator"), string(req.Operator), operators))
		}
		opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for _, fe := range metav1validation.ValidateLabelSelectorRequirement(req, opts, at) {
			errs = append(errs, fe)
		}
	}
	if len(errs) == 0 {
		// Kubernetes' validation and LabelSelectorAsSelector agree today;
		// should they part, keep apimachinery's error rather than lose it.
		errs = append(errs, field.Invalid(path, metav1.FormatLabelSelector(&sel), err.Error()))
	}
	return nil, errs
}
