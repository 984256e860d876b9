package e2e_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
)

// window is a valid window, for specs to spoil one field of.
func window() v1alpha1.RolloutWindow {
	return v1alpha1.RolloutWindow{Days: []string{"Mon-Fri"}, Start: "09:00", End: "17:00", TimeZone: "Europe/Berlin"}
}

// TestAdmissionSchema: with the shipped CRDs alone (no webhook), the API
// server refuses what the schema's rules can say, each refusal naming the
// field and what was wanted, and accepts every spelling the library
// takes; an approval's spec cannot be changed.
func TestAdmissionSchema(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	ctx := context.Background()
	hook := &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}
	prom := &v1alpha1.PrometheusCheck{Address: "http://prometheus.example:9090", Query: "up"}
	d := func(s string) *metav1.Duration {
		v, err := time.ParseDuration(s)
		require.NoError(t, err)
		return &metav1.Duration{Duration: v}
	}
	spoilt := func(edit func(*v1alpha1.RolloutWindow)) v1alpha1.AddOnRolloutSpec {
		w := window()
		edit(&w)
		return v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{w}}
	}
	checks := func(vs ...v1alpha1.Verification) v1alpha1.AddOnRolloutSpec {
		return v1alpha1.AddOnRolloutSpec{Verifications: vs}
	}
	credRef := &v1alpha1.SecretKeyRef{Namespace: "rolloutkit-system", Name: "verification", Key: "token"}
	tests := []struct {
		name string
		spec v1alpha1.AddOnRolloutSpec
		want []string // in the refusal; none: admitted
		doc  bool     // docs/errors.md quotes the refusal
	}{
		{"a day that is not one", spoilt(func(w *v1alpha1.RolloutWindow) { w.Days = []string{"Mon", "Fry"} }),
			[]string{`spec.windows[0].days[1]: Invalid value: "Fry": want days such as Mon, Sat,Sun or Mon-Fri`}, true},
		{"a time that is not HH:MM", spoilt(func(w *v1alpha1.RolloutWindow) { w.Start = "9am" }),
			[]string{`spec.windows[0].start: Invalid value: "9am": want HH:MM from 00:00 to 23:59, such as 09:00`}, false},
		{"an hour past 23", spoilt(func(w *v1alpha1.RolloutWindow) { w.End = "25:00" }),
			[]string{`spec.windows[0].end: Invalid value: "25:00": want HH:MM from 00:00 to 23:59, such as 09:00`}, true},
		{"an end at the start", spoilt(func(w *v1alpha1.RolloutWindow) { w.End = w.Start }),
			[]string{"spec.windows[0].end: Invalid value", "want an end other than the start 09:00"}, true},
		{"both webhook and prometheus", checks(v1alpha1.Verification{Name: "both", Webhook: hook, Prometheus: prom}),
			[]string{"spec.verifications[0]: Invalid value", "set exactly one of webhook and prometheus"}, true},
		{"neither", checks(v1alpha1.Verification{Name: "neither"}),
			[]string{"spec.verifications[0]: Invalid value", "set exactly one of webhook and prometheus"}, true},
		{"a zero interval", checks(v1alpha1.Verification{Name: "slo", Interval: d("0s"), Webhook: hook}),
			[]string{"spec.verifications[0].interval: Invalid value", "want a positive interval, e.g. 30s, not 0s"}, true},
		{"a negative interval", checks(v1alpha1.Verification{Name: "slo", Interval: d("-1s"), Webhook: hook}),
			[]string{"spec.verifications[0].interval: Invalid value", "want a positive interval, e.g. 30s, not -1s"}, false},
		{"a zero timeout", checks(v1alpha1.Verification{Name: "slo", Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "up", Timeout: d("0s")}}),
			[]string{"spec.verifications[0].prometheus.timeout: Invalid value", "want a positive timeout, e.g. 10s, not 0s"}, true},
		{"two checks of one name", checks(v1alpha1.Verification{Name: "slo", Webhook: hook}, v1alpha1.Verification{Name: "slo", Prometheus: prom}),
			[]string{"spec.verifications: Invalid value", "each verification needs a name of its own"}, true},
		{"a CA from both a ConfigMap and a Secret", checks(v1alpha1.Verification{Name: "slo", Webhook: &v1alpha1.WebhookCheck{URL: hook.URL,
			HTTPClientConfig: v1alpha1.HTTPClientConfig{TLS: &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{SecretKeyRef: credRef,
				ConfigMapKeyRef: &v1alpha1.ConfigMapKeyRef{Namespace: "rolloutkit-system", Name: "ca", Key: "ca.crt"}}}}}}),
			[]string{"spec.verifications[0].webhook.tls.ca: Invalid value", "set exactly one of configMapKeyRef and secretKeyRef"}, true},
		{"a header with neither value", checks(v1alpha1.Verification{Name: "slo", Webhook: &v1alpha1.WebhookCheck{URL: hook.URL,
			HTTPClientConfig: v1alpha1.HTTPClientConfig{Headers: []v1alpha1.HTTPHeader{{Name: "X-Scope-OrgID"}}}}}),
			[]string{"spec.verifications[0].webhook.headers[0]: Invalid value", "set exactly one of value and valueFrom"}, true},
		{"basic auth beside a token", checks(v1alpha1.Verification{Name: "slo", Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "up",
			BasicAuth: &v1alpha1.BasicAuth{Username: "rolloutkit", Password: *credRef}, HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: credRef}}}),
			[]string{"spec.verifications[0].prometheus.basicAuth: Invalid value", "set at most one of bearerToken and basicAuth"}, true},
		{"every credential field", checks(v1alpha1.Verification{Name: "slo", Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "up",
			BasicAuth: &v1alpha1.BasicAuth{Username: "rolloutkit", Password: *credRef}, HTTPClientConfig: v1alpha1.HTTPClientConfig{
				TLS:     &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{SecretKeyRef: credRef}, ServerName: "prometheus.example"},
				Headers: []v1alpha1.HTTPHeader{{Name: "X-Scope-OrgID", Value: ptr.To("fleet")}, {Name: "X-Api-Key", ValueFrom: credRef}}}}},
			v1alpha1.Verification{Name: "hook", Webhook: &v1alpha1.WebhookCheck{URL: hook.URL, HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: credRef}}}),
			nil, false},
		{"every spelling the library takes", v1alpha1.AddOnRolloutSpec{
			Windows: []v1alpha1.RolloutWindow{{Days: []string{"mon", "TUESDAY", "Wedn-Thurs", "Fri,sat", "Sun-Mon"}, Start: "9:05", End: "0:00"},
				{Days: []string{"Sunday,Monday,Tuesday,Wednesday,Thursday,Friday,Saturday"}, Start: "22:00", End: "04:00"}},
			Verifications: []v1alpha1.Verification{{Webhook: hook, Interval: d("1m30s")}, {Prometheus: prom}}}, nil, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%sschema-%d", e.prefix, i)}, Spec: tt.spec}
			err := e.c.Create(ctx, ar)
			if tt.want == nil {
				require.NoError(t, err)
				require.NoError(t, e.c.Delete(ctx, ar))
				return
			}
			require.Error(t, err)
			t.Logf("refused: %v", err)
			assert.True(t, apierrors.IsInvalid(err), "%v", err)
			assert.Contains(t, err.Error(), fmt.Sprintf(`AddOnRollout.rolloutkit.io %q is invalid: `, ar.Name))
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			if tt.doc {
				assert.Contains(t, errorsDoc(t), problems(t, err), "docs/errors.md does not give this example")
			}
		})
	}

	t.Run("checks named empty, as kubectl sends them", func(t *testing.T) {
		t.Parallel()
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rolloutkit.io/v1alpha1", "kind": "AddOnRollout",
			"metadata": map[string]any{"name": e.prefix + "schema-unnamed"},
			"spec": map[string]any{"verifications": []any{
				map[string]any{"name": "", "webhook": map[string]any{"url": hook.URL}},
				map[string]any{"name": "", "webhook": map[string]any{"url": hook.URL}}}}}}
		require.NoError(t, e.c.Create(ctx, u), "the library names them verifications[0] and verifications[1]")
		require.NoError(t, e.c.Delete(ctx, u))
	})

	t.Run("an interval that is not a duration", func(t *testing.T) {
		t.Parallel()
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rolloutkit.io/v1alpha1", "kind": "AddOnRollout",
			"metadata": map[string]any{"name": e.prefix + "schema-interval"},
			"spec":     map[string]any{"verifications": []any{map[string]any{"interval": "30 seconds", "webhook": map[string]any{"url": hook.URL}}}}}}
		err := e.c.Create(ctx, u)
		require.Error(t, err, "the controller could not even decode it")
		t.Logf("refused: %v", err)
		assert.Contains(t, err.Error(), "spec.verifications[0].interval: Invalid value: want a duration such as 30s or 1m30s, not 30 seconds")
		assert.NotContains(t, err.Error(), "evaluating rule")
		assert.Contains(t, errorsDoc(t), problems(t, err), "docs/errors.md does not give this example")
	})

	t.Run("an approval's spec", func(t *testing.T) {
		t.Parallel()
		a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: e.prefix + "schema-approval"},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: e.addonName, Placement: v1alpha1.PlacementRef{Namespace: e.namespace, Name: "p"}, Group: "prod", Revision: "r1"}}
		require.NoError(t, e.c.Create(ctx, a))
		t.Cleanup(func() { _ = e.c.Delete(context.Background(), a) })
		for what, edit := range map[string]func(*v1alpha1.RolloutApprovalSpec){
			"another revision": func(s *v1alpha1.RolloutApprovalSpec) { s.Revision = "r2" },
			"another approver": func(s *v1alpha1.RolloutApprovalSpec) { s.Username = "mallory" },
		} {
			// a fresh read at each try: a controller on the shared hub may
			// write the approval's status meanwhile (AddOnNotFound)
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				changed := &v1alpha1.RolloutApproval{}
				if err := e.c.Get(ctx, client.ObjectKeyFromObject(a), changed); err != nil {
					return err
				}
				edit(&changed.Spec)
				return e.c.Update(ctx, changed)
			})
			require.Error(t, err, what)
			t.Logf("refused: %v", err)
			assert.True(t, apierrors.IsInvalid(err), "%s: %v", what, err)
			assert.Contains(t, err.Error(), "a RolloutApproval's spec is immutable: create another one", what)
			assert.Contains(t, errorsDoc(t), problems(t, err), "docs/errors.md does not give this example")
		}
		assert.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			labelled := &v1alpha1.RolloutApproval{}
			if err := e.c.Get(ctx, client.ObjectKeyFromObject(a), labelled); err != nil {
				return err
			}
			labelled.Labels = map[string]string{"team": "platform"}
			return e.c.Update(ctx, labelled)
		}), "metadata may change")
	})
}

// TestAdmissionWebhooks runs admission as the controller serves it (its
// webhook server, over TLS) on a hub of its own, with the shipped webhook
// configurations pointed at it: what the schema cannot say is refused
// with the field named (a check's credentials in a namespace the
// controller does not read them from too), a valid AddOnRollout is admitted, an object
// written before the webhook existed can still be labelled, and an
// approval records the user who created it, not the one its spec names.
func TestAdmissionWebhooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	// Written before the webhook existed: the schema admits it.
	old := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "written-before"},
		Spec: v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Mars/Olympus"}}}}
	require.NoError(t, e.c.Create(ctx, old))
	e.startAdmission(t)

	prom := func(address, query string) []v1alpha1.Verification {
		return []v1alpha1.Verification{{Name: "slo", Prometheus: &v1alpha1.PrometheusCheck{Address: address, Query: query}}}
	}
	zone := window()
	zone.TimeZone = "Europe/Berln"
	for _, tt := range []struct {
		name string
		spec v1alpha1.AddOnRolloutSpec
		want []string // in the refusal; none: admitted
	}{
		{"a time zone that is not one", v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{zone}},
			[]string{`spec.windows[0].timeZone: Invalid value: "Europe/Berln": want an IANA name such as Europe/Berlin or UTC`}},
		{"a query that does not parse", v1alpha1.AddOnRolloutSpec{Verifications: prom("http://prometheus.example:9090", "sum(rate(x[5m]) < 1")},
			[]string{`spec.verifications[0].prometheus.query: Invalid value: "sum(rate(x[5m]) < 1": `, "unclosed left parenthesis"}},
		{"an address that is not a URL", v1alpha1.AddOnRolloutSpec{Verifications: prom("prometheus.monitoring:9090", "up")},
			[]string{`spec.verifications[0].prometheus.address: Invalid value: "prometheus.monitoring:9090": want an absolute http or https URL`}},
		{"a webhook URL that is not absolute", v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{Webhook: &v1alpha1.WebhookCheck{URL: "/verify"}}}},
			[]string{`spec.verifications[0].webhook.url: Invalid value: "/verify": want an absolute http or https URL`}},
		{"a Secret of a namespace not allowed", v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{Prometheus: &v1alpha1.PrometheusCheck{
			Address: "https://prometheus.monitoring:9091", Query: "up",
			HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: &v1alpha1.SecretKeyRef{Namespace: "monitoring", Name: "prometheus-token", Key: "token"}}}}}},
			[]string{`spec.verifications[0].prometheus.bearerToken.namespace: Invalid value: "monitoring": want a namespace the controller reads credentials from (-verification-secret-namespaces: rolloutkit-system)`}},
		{"a valid one, of a group yet to come", v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"canary"}, Windows: []v1alpha1.RolloutWindow{window()},
			Verifications: prom("http://prometheus.monitoring:9090", "max(addon_error_ratio) < 0.01")}, nil},
	} {
		ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}, Spec: tt.spec}
		err := e.c.Create(ctx, ar)
		if tt.want == nil {
			require.NoError(t, err, tt.name)
			continue
		}
		require.Error(t, err, tt.name)
		t.Logf("%s: refused: %v", tt.name, err)
		assert.True(t, apierrors.IsInvalid(err), "%s: %v", tt.name, err)
		assert.Contains(t, err.Error(), fmt.Sprintf(`admission webhook %q denied the request: AddOnRollout.rolloutkit.io "cluster-proxy" is invalid: `, rollouthook.RolloutValidationWebhook), tt.name)
		for _, w := range tt.want {
			assert.Contains(t, err.Error(), w, tt.name)
		}
		assert.Contains(t, errorsDoc(t), tt.want[0], "%s: docs/errors.md does not give this example", tt.name)
	}
	whole := e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "zone"}, Spec: v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{zone}}})
	require.Error(t, whole)
	assert.Contains(t, errorsDoc(t), strings.Replace(whole.Error(), `"zone"`, `"cluster-proxy"`, 1), "docs/errors.md quotes the whole answer")

	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"team": "platform"}
	require.NoError(t, e.c.Update(ctx, labelled), "an update that keeps the spec")
	labelled.Spec.Windows[0].TimeZone = "Mars/Phobos"
	err := e.c.Update(ctx, labelled)
	require.Error(t, err, "an update to another invalid spec")
	assert.Contains(t, err.Error(), `spec.windows[0].timeZone: Invalid value: "Mars/Phobos"`)

	e.approverRecorded(t)
}

// approverRecorded has alice, a release manager, create an approval that
// names bob as its approver, and checks that the hub recorded alice.
func (e *env) approverRecorded(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, e.c.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "approve"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{v1alpha1.Group}, Resources: []string{"rolloutapprovals"}, Verbs: []string{"create"}},
			{APIGroups: []string{v1alpha1.Group}, Resources: []string{"decisiongroups"}, Verbs: []string{"approve"}}}}))
	require.NoError(t, e.c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "approve"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "approve"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "release-managers"}}}))
	cfg := rest.CopyConfig(e.hub.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "alice", UID: "alice-uid", Groups: []string{"release-managers"}}
	alice, err := testhub.NewClient(cfg)
	require.NoError(t, err)
	a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod"}, Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy",
		Placement: v1alpha1.PlacementRef{Namespace: "open-cluster-management", Name: "global"}, Group: "prod", Revision: "r1",
		Username: "bob", UID: "bob-uid", Groups: []string{"system:masters"}}}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.NoError(ct, alice.Create(ctx, a.DeepCopy()))
	}, 10*time.Second, poll, "alice approves")
	var got v1alpha1.RolloutApproval
	require.NoError(t, e.c.Get(ctx, client.ObjectKeyFromObject(a), &got))
	assert.Equal(t, "alice", got.Spec.Username)
	assert.Equal(t, "alice-uid", got.Spec.UID)
	assert.Equal(t, []string{"release-managers", "system:authenticated"}, got.Spec.Groups)
	assert.Equal(t, "prod", got.Spec.Group, "the rest of the spec as alice wrote it")
}

// problems is what an Invalid error of the API server says after naming
// the object.
func problems(t *testing.T, err error) string {
	t.Helper()
	_, said, ok := strings.Cut(err.Error(), " is invalid: ")
	require.True(t, ok, "not an Invalid error: %v", err)
	return said
}

// errorsDoc is docs/errors.md, which quotes the refusals.
func errorsDoc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../../docs/errors.md")
	require.NoError(t, err)
	return string(doc)
}

// startAdmission serves admission as the controller does, on
// controller-runtime's webhook server at a free port on 127.0.0.1 with a
// certificate made here, and installs the shipped webhook configurations
// pointed at it. It returns once the API server calls both webhooks and
// they answer.
func (e *env) startAdmission(t *testing.T) {
	t.Helper()
	dir, ca := servingCert(t)
	port := freeLoopbackPort(t)
	e.startManager(t, e.hub.Config, func(o *ctrl.Options) {
		o.WebhookServer = crwebhook.NewServer(crwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	}, func(mgr ctrl.Manager) error {
		sars, err := authorizationclient.NewForConfig(mgr.GetConfig())
		if err != nil {
			return err
		}
		rollouthook.Register(mgr.GetWebhookServer(), mgr.GetScheme(), []string{controllerNamespace},
			rollouthook.SubjectAccessReviews{Client: sars.SubjectAccessReviews()})
		return nil
	})
	vwc, mwc, err := config.AdmissionAt(fmt.Sprintf("https://127.0.0.1:%d", port))
	require.NoError(t, err)
	for i := range vwc.Webhooks {
		vwc.Webhooks[i].ClientConfig.CABundle = ca
	}
	for i := range mwc.Webhooks {
		mwc.Webhooks[i].ClientConfig.CABundle = ca
	}
	ctx := context.Background()
	require.NoError(t, e.c.Create(ctx, vwc))
	require.NoError(t, e.c.Create(ctx, mwc))
	probe := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "probe"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: "probe", Group: "probe", Revision: "probe"}}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "probe"},
			Spec: v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Nowhere/Probe"}}}}
		err := e.c.Create(ctx, ar, client.DryRunAll)
		if assert.Error(ct, err) {
			assert.Contains(ct, err.Error(), "denied the request", "the AddOnRollouts' webhook answers")
		}
		p := probe.DeepCopy()
		if assert.NoError(ct, e.c.Create(ctx, p, client.DryRunAll)) {
			assert.NotEmpty(ct, p.Spec.Username, "the approvals' webhook answers")
		}
	}, 60*time.Second, poll, "admission answers")
}
