package workgate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rolloutkit/rolloutkit/workgate"
)

func TestScope(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		names    []string
		selects  []string // add-on labels the selector must select
		leaves   []string // and leave out
		selector string
	}{
		{name: "none taken: no work", selects: nil, leaves: []string{"cluster-proxy", ""},
			selector: workgate.NoAddOnLabel},
		{name: "only an empty name: no work", names: []string{""}, leaves: []string{"cluster-proxy", ""},
			selector: workgate.NoAddOnLabel},
		{name: "one", names: []string{"cluster-proxy"}, selects: []string{"cluster-proxy"}, leaves: []string{"managed-serviceaccount", ""},
			selector: "open-cluster-management.io/addon-name in (cluster-proxy)"},
		{name: "several, unsorted, repeated", names: []string{"b", "a", "b", ""}, selects: []string{"a", "b"}, leaves: []string{"c"},
			selector: "open-cluster-management.io/addon-name in (a,b)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := append([]string(nil), tt.names...)
			sel, err := metav1.LabelSelectorAsSelector(workgate.Scope(tt.names))
			require.NoError(t, err)
			assert.Equal(t, tt.selector, sel.String())
			for _, n := range tt.selects {
				assert.True(t, sel.Matches(labels.Set{"open-cluster-management.io/addon-name": n}), "selects %q", n)
			}
			for _, n := range tt.leaves {
				assert.False(t, sel.Matches(labels.Set{"open-cluster-management.io/addon-name": n}), "leaves out %q", n)
			}
			assert.False(t, sel.Matches(labels.Set{}), "a work of no add-on")
			assert.Equal(t, before, tt.names, "names not modified")
		})
	}
}

// gateConfig is a configuration of the work gate, as shipped: the gate's
// webhook and the webhook of deletions, both selecting no work yet, and
// another webhook.
func gateConfig() *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{"work.open-cluster-management.io"}, APIVersions: []string{"v1"}, Resources: []string{"manifestworks"}}}}
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "rolloutkit-work-gate"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{Name: "manifestworks.gate.rolloutkit.io", FailurePolicy: &fail, ObjectSelector: workgate.Scope(nil),
				Rules: rule(admissionregistrationv1.Create, admissionregistrationv1.Update)},
			{Name: "manifestwork-deletions.gate.rolloutkit.io", FailurePolicy: &ignore, ObjectSelector: workgate.Scope(nil),
				Rules: rule(admissionregistrationv1.Delete)},
			{Name: "other.example.io", FailurePolicy: &fail},
		},
	}
}

var gateWebhooks = []string{"manifestworks.gate.rolloutkit.io", "manifestwork-deletions.gate.rolloutkit.io"}

func TestScoped(t *testing.T) {
	t.Parallel()
	cfg := gateConfig()
	before := cfg.DeepCopy()
	scoped, changed, err := workgate.Scoped(cfg, gateWebhooks, []string{"cluster-proxy"})
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, before, cfg, "the configuration given is not modified")
	for i, w := range scoped.Webhooks {
		if i < 2 {
			assert.Equal(t, workgate.Scope([]string{"cluster-proxy"}), w.ObjectSelector, w.Name)
			continue
		}
		assert.Nil(t, w.ObjectSelector, "another webhook is left as it is")
	}
	guarded, msg := workgate.Guards(scoped, "manifestworks.gate.rolloutkit.io", "cluster-proxy")
	assert.True(t, guarded, msg)

	again, changed, err := workgate.Scoped(scoped, gateWebhooks, []string{"cluster-proxy", "cluster-proxy"})
	require.NoError(t, err)
	assert.False(t, changed, "the same add-ons: nothing to write")
	assert.Equal(t, scoped, again)

	_, _, err = workgate.Scoped(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, gateWebhooks, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ValidatingWebhookConfiguration x has none of the webhooks")
}

func TestGuards(t *testing.T) {
	t.Parallel()
	scoped := func(edit func(w *admissionregistrationv1.ValidatingWebhook)) *admissionregistrationv1.ValidatingWebhookConfiguration {
		cfg, _, err := workgate.Scoped(gateConfig(), gateWebhooks, []string{"cluster-proxy"})
		require.NoError(t, err)
		if edit != nil {
			edit(&cfg.Webhooks[0])
		}
		return cfg
	}
	ignore := admissionregistrationv1.Ignore
	for _, tt := range []struct {
		name    string
		cfg     *admissionregistrationv1.ValidatingWebhookConfiguration
		addOn   string
		guarded bool
		says    string
	}{
		{name: "scoped to the add-on", cfg: scoped(nil), addOn: "cluster-proxy", guarded: true,
			says: "webhook manifestworks.gate.rolloutkit.io of ValidatingWebhookConfiguration rolloutkit-work-gate holds the add-on's ManifestWorks"},
		{name: "no configuration", addOn: "cluster-proxy", says: "the hub has no ValidatingWebhookConfiguration of the work gate"},
		{name: "not scoped to the add-on", cfg: scoped(nil), addOn: "managed-serviceaccount",
			says: `objectSelector "open-cluster-management.io/addon-name in (cluster-proxy)" does not select the works of add-on managed-serviceaccount`},
		{name: "as shipped, before the controller scopes it", cfg: gateConfig(), addOn: "cluster-proxy",
			says: "does not select the works of add-on cluster-proxy"},
		{name: "failurePolicy Ignore", cfg: scoped(func(w *admissionregistrationv1.ValidatingWebhook) { w.FailurePolicy = &ignore }), addOn: "cluster-proxy",
			says: "has failurePolicy Ignore"},
		{name: "no rule for creates", cfg: scoped(func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
		}), addOn: "cluster-proxy", says: "has no rule for CREATE of work.open-cluster-management.io/v1 manifestworks"},
		{name: "no rule for updates", cfg: scoped(func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
		}), addOn: "cluster-proxy", says: "has no rule for UPDATE of work.open-cluster-management.io/v1 manifestworks"},
		{name: "every operation", cfg: scoped(func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
		}), addOn: "cluster-proxy", guarded: true},
		{name: "no such webhook", cfg: scoped(func(w *admissionregistrationv1.ValidatingWebhook) { w.Name = "renamed" }), addOn: "cluster-proxy",
			says: "has no webhook manifestworks.gate.rolloutkit.io"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			guarded, msg := workgate.Guards(tt.cfg, "manifestworks.gate.rolloutkit.io", tt.addOn)
			assert.Equal(t, tt.guarded, guarded, msg)
			assert.Contains(t, msg, tt.says)
		})
	}
}

func TestRecreated(t *testing.T) {
	t.Parallel()
	deleted := work(imageV1, hashes(at(hashA)))
	for _, tt := range []struct {
		name    string
		cluster workgate.Cluster
		want    workgate.Reason
	}{
		{name: "configs current: a work in its place lands", cluster: prodEU1(at(hashA), at(hashA)), want: workgate.Created},
		{name: "during a halt: held until prod's turn", cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ConfigMovedOn},
		{name: "a rendering rolling out not yet at prod", cluster: prodEU1(at(hashA), at(hashA), pending), want: workgate.RenderingPending},
		{name: "released", cluster: prodEU1(at(hashA), at(hashA), released(deleted)), want: workgate.RenderingReleased},
		{name: "not taken", cluster: prodEU1(at(hashA), at(hashB), notTaken), want: workgate.NotTaken},
		{name: "no configs handed", cluster: prodEU1(nil, nil), want: workgate.Created},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := deleted.DeepCopy()
			d := workgate.Recreated(deleted, tt.cluster)
			assert.Equal(t, tt.want, d.Reason, d.Message)
			assert.Equal(t, before, deleted, "the work given is not modified")
			if !d.Allowed() {
				assert.Contains(t, d.Message, "the new work addon-cluster-proxy-deploy-0")
			}
		})
	}
	assert.Equal(t, workgate.Exempt, workgate.Recreated(nil, prodEU1(nil, nil)).Reason)
}
