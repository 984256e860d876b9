package field_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

func ExampleParsePortion() {
	p, _ := field.ParsePortion("maxConcurrency", intstr.FromString("7%"), false)
	fmt.Println(p, "of 100 is", p.Of(100))
	_, err := field.ParsePortion("maxConcurrency", intstr.FromString("150%"), false)
	fmt.Println(err)
	// Output:
	// 7% of 100 is 7
	// maxConcurrency "150%": want a non-negative integer or a percentage 0%-100%
}
