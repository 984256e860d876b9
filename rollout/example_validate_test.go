package rollout_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// Validate reports every problem of a strategy at once, each an
// apimachinery *field.Error whose path is relative to the strategy. A
// controller that validates the strategy inside an object puts the
// object's path before each.
func ExampleValidate() {
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.Progressive,
		Progressive: &clusterv1alpha1.RolloutProgressive{
			RolloutConfig:  clusterv1alpha1.RolloutConfig{ProgressDeadline: "soon", MaxFailures: intstr.FromInt32(-1)},
			MaxConcurrency: intstr.FromString("150%"),
		},
	}
	err := rollout.Validate(s)
	fmt.Println(err)

	base := field.NewPath("spec", "installStrategy", "placements").Index(0).Child("rolloutStrategy")
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *field.Error
		if errors.As(e, &fe) {
			fmt.Printf("%s.%s: %s\n", base, fe.Field, fe.ErrorBody())
		}
	}
	// Output:
	// progressive.maxConcurrency: Invalid value: "150%": want a non-negative integer or a percentage 0%-100%
	// progressive.progressDeadline: Invalid value: "soon": want "None" or a non-negative duration such as "90s" or "1h30m"
	// progressive.maxFailures: Invalid value: -1: want a non-negative integer or a percentage 0%-100%
	// spec.installStrategy.placements[0].rolloutStrategy.progressive.maxConcurrency: Invalid value: "150%": want a non-negative integer or a percentage 0%-100%
	// spec.installStrategy.placements[0].rolloutStrategy.progressive.progressDeadline: Invalid value: "soon": want "None" or a non-negative duration such as "90s" or "1h30m"
	// spec.installStrategy.placements[0].rolloutStrategy.progressive.maxFailures: Invalid value: -1: want a non-negative integer or a percentage 0%-100%
}
