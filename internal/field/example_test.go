package field_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
	apifield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

func ExampleParsePortion() {
	p, _ := field.ParsePortion(intstr.FromString("7%"))
	fmt.Println(p, "of 100 is", p.Of(100))
	bad := intstr.FromString("150%")
	if _, ok := field.ParsePortion(bad); !ok {
		fmt.Println(field.InvalidPortion(apifield.NewPath("progressive", "maxConcurrency"), bad))
	}
	// Output:
	// 7% of 100 is 7
	// progressive.maxConcurrency: Invalid value: "150%": want a non-negative integer or a percentage 0%-100%
}
