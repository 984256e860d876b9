package placement

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// celRefusals names each predicate that selects with CEL expressions.
// rolloutkit does not evaluate CEL: rather than match such a predicate on
// its label and claim selectors alone, and select clusters OCM would not,
// it refuses the Placement.
func celRefusals(predicates []clusterv1beta1.ClusterPredicate) []error {
	var errs []error
	for i, pr := range predicates {
		if len(pr.RequiredClusterSelector.CelSelector.CelExpressions) == 0 {
			continue
		}
		path := field.NewPath("spec", "predicates").Index(i).
			Child("requiredClusterSelector", "celSelector", "celExpressions")
		errs = append(errs, field.Forbidden(path,
			"CEL expressions are not evaluated by rolloutkit: select with labelSelector or claimSelector"))
	}
	return errs
}
