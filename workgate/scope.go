package workgate

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// NoAddOnLabel is the label the gate's objectSelector asks for while the
// controller takes no add-on: no work carries it, so the API server asks
// the gate about nothing.
const NoAddOnLabel = "rolloutkit.io/no-addon-taken"

// Scope is the objectSelector of the gate's webhooks for the add-ons the
// controller takes (names, in any order, repeats allowed): the works
// labelled open-cluster-management.io/addon-name with one of their names.
// The works of every other add-on, OCM's own included, are never sent to
// the gate, so that they go on being written while no replica of the
// controller answers. With no name, it selects no work.
func Scope(names []string) *metav1.LabelSelector {
	taken := slices.Sorted(slices.Values(names))
	taken = slices.Compact(taken)
	if len(taken) > 0 && taken[0] == "" {
		taken = taken[1:] // no add-on's works have an empty name
	}
	if len(taken) == 0 {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: NoAddOnLabel, Operator: metav1.LabelSelectorOpExists}}}
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: addonv1beta1.AddonLabelKey, Operator: metav1.LabelSelectorOpIn, Values: taken}}}
}

// Scoped returns cfg with the objectSelector of every webhook of it named
// in webhooks set to Scope(names), and whether that changes it; cfg is
// not modified. It is an error when cfg has none of the webhooks: it is
// not the gate's configuration.
func Scoped(cfg *admissionregistrationv1.ValidatingWebhookConfiguration, webhooks, names []string) (*admissionregistrationv1.ValidatingWebhookConfiguration, bool, error) {
	out := cfg.DeepCopy()
	sel := Scope(names)
	found, changed := false, false
	for i := range out.Webhooks {
		w := &out.Webhooks[i]
		if !slices.Contains(webhooks, w.Name) {
			continue
		}
		found = true
		if !equality.Semantic.DeepEqual(w.ObjectSelector, sel) {
			w.ObjectSelector, changed = sel.DeepCopy(), true
		}
	}
	if !found {
		return cfg, false, fmt.Errorf("ValidatingWebhookConfiguration %s has none of the webhooks %q: want the work gate's", cfg.Name, webhooks)
	}
	return out, changed, nil
}
