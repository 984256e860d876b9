package workgate

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Guards reports whether the webhook named webhook of the
// ValidatingWebhookConfiguration cfg (nil: the hub has none) sends the API
// server's creates and updates of add-on addOn's ManifestWorks to the
// gate, and fails them when the gate does not answer; when it does not,
// the message says why: the add-on's works can then change ahead of the
// rollout.
//
// It checks what can be checked from the configuration alone: a rule
// covering CREATE and UPDATE of work.open-cluster-management.io/v1
// manifestworks, failurePolicy Fail, and an objectSelector that selects a
// work labelled with the add-on's name (the controller keeps it to the
// add-ons it takes, Scope). A namespaceSelector and matchConditions are
// taken as given: the one selects by the namespaces' labels, which the
// configuration does not hold, and the shipped match conditions leave
// out only writes that change no work's content or owner. Whether the
// service it names answers is not checked here.
func Guards(cfg *admissionregistrationv1.ValidatingWebhookConfiguration, webhook, addOn string) (bool, string) {
	if cfg == nil {
		return false, "the hub has no ValidatingWebhookConfiguration of the work gate: the add-on's works can change ahead of the rollout"
	}
	i := slices.IndexFunc(cfg.Webhooks, func(w admissionregistrationv1.ValidatingWebhook) bool { return w.Name == webhook })
	if i < 0 {
		return false, fmt.Sprintf("ValidatingWebhookConfiguration %s has no webhook %s: the add-on's works can change ahead of the rollout", cfg.Name, webhook)
	}
	w := cfg.Webhooks[i]
	where := fmt.Sprintf("webhook %s of ValidatingWebhookConfiguration %s", webhook, cfg.Name)
	if w.FailurePolicy != nil && *w.FailurePolicy != admissionregistrationv1.Fail {
		return false, fmt.Sprintf("%s has failurePolicy %s: while the gate does not answer, the add-on's works can change ahead of the rollout; want Fail", where, *w.FailurePolicy)
	}
	for _, op := range []admissionregistrationv1.OperationType{admissionregistrationv1.Update, admissionregistrationv1.Create} {
		if !slices.ContainsFunc(w.Rules, func(r admissionregistrationv1.RuleWithOperations) bool { return coversWorks(r, op) }) {
			return false, fmt.Sprintf("%s has no rule for %s of %s/%s manifestworks: the add-on's works can change ahead of the rollout",
				where, op, workv1.GroupName, workv1.GroupVersion.Version)
		}
	}
	if w.ObjectSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(w.ObjectSelector)
		if err != nil {
			return false, fmt.Sprintf("%s: objectSelector does not parse: %v", where, err)
		}
		if !sel.Matches(labels.Set{addonv1beta1.AddonLabelKey: addOn}) {
			return false, fmt.Sprintf("%s: objectSelector %q does not select the works of add-on %s: they can change ahead of the rollout", where, sel.String(), addOn)
		}
	}
	return true, fmt.Sprintf("%s holds the add-on's ManifestWorks until the rollout reaches each cluster", where)
}

// coversWorks reports whether r sends the writes of ManifestWorks of
// operation op.
func coversWorks(r admissionregistrationv1.RuleWithOperations, op admissionregistrationv1.OperationType) bool {
	has := func(list []string, want string) bool {
		return slices.Contains(list, want) || slices.Contains(list, "*")
	}
	ops := make([]string, len(r.Operations))
	for i, op := range r.Operations {
		ops[i] = string(op)
	}
	return has(ops, string(op)) && has(r.APIGroups, workv1.GroupName) &&
		has(r.APIVersions, workv1.GroupVersion.Version) && has(r.Resources, "manifestworks")
}
