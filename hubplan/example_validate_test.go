package hubplan_test

import (
	"fmt"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// ExampleValidateSpec checks an AddOnRollout as an admission webhook
// does: every problem at once, each with its path, its value and what was
// wanted. The group "canary" is not judged: a placement may have it later.
func ExampleValidateSpec() {
	ar := &v1alpha1.AddOnRollout{Spec: v1alpha1.AddOnRolloutSpec{
		ApprovalRequired: []string{"canary"},
		Windows:          []v1alpha1.RolloutWindow{{Days: []string{"Mon-Fri"}, Start: "9:00", End: "17:00", TimeZone: "Europe/Berln"}},
		Verifications: []v1alpha1.Verification{{Name: "slo",
			Prometheus: &v1alpha1.PrometheusCheck{Address: "prometheus.monitoring:9090", Query: "max(addon_error_ratio) < 0.01"}}},
	}}
	for _, err := range hubplan.ValidateSpec(ar, nil) {
		fmt.Println(err)
	}
	// Output:
	// spec.windows[0].timeZone: Invalid value: "Europe/Berln": want an IANA name such as Europe/Berlin or UTC
	// spec.verifications[0].prometheus.address: Invalid value: "prometheus.monitoring:9090": want an absolute http or https URL, e.g. http://verifier.example:8080/verify
}
