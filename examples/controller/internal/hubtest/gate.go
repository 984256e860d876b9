package hubtest

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// GateConfiguration is the work gate's ValidatingWebhookConfiguration as
// the controller keeps it (its webhook serving path, named name), scoped to the seed's add-on: creates and
// updates of its ManifestWorks go to the gate, and fail while it does not
// answer. Each of with changes it.
func GateConfiguration(path, name string, with ...func(*admissionregistrationv1.ValidatingWebhook)) *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	w := admissionregistrationv1.ValidatingWebhook{
		Name:                    hubplan.WorkGateWebhook,
		AdmissionReviewVersions: []string{"v1"},
		ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
			Namespace: "rolloutkit-system", Name: "rolloutkit-webhook", Path: PtrTo(path)}},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{workv1.GroupName}, APIVersions: []string{"v1"},
				Resources: []string{"manifestworks"}},
		}},
		FailurePolicy:  &fail,
		SideEffects:    &none,
		ObjectSelector: workgate.Scope([]string{SeedAddonName}),
	}
	for _, f := range with {
		f(&w)
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{w}}
}
