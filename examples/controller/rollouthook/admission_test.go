package rollouthook_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
)

// admissionRequest is the request the API server sends for op on obj
// (old: the object before an update), by alice.
func admissionRequest(t *testing.T, op admissionv1.Operation, obj, old runtime.Object) admission.Request {
	t.Helper()
	raw := func(o runtime.Object) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(o)
		require.NoError(t, err)
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "1", Operation: op, Object: raw(obj), OldObject: raw(old),
		UserInfo: authenticationv1.UserInfo{Username: "alice", UID: "alice-uid", Groups: []string{"release-managers", "system:authenticated"}}}}
}

func rolloutOf(spec v1alpha1.AddOnRolloutSpec) *v1alpha1.AddOnRollout {
	return &v1alpha1.AddOnRollout{TypeMeta: metav1.TypeMeta{APIVersion: "rolloutkit.io/v1alpha1", Kind: "AddOnRollout"},
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}, Spec: spec}
}

// TestRolloutValidator: the AddOnRollouts' webhook, as the controller
// registers it, on crafted requests: it refuses a create or a change of
// spec that ValidateSpec refuses, with a 422 Invalid status that names
// every field, and admits the rest.
func TestRolloutValidator(t *testing.T) {
	t.Parallel()
	scheme, err := hubclient.NewScheme()
	require.NoError(t, err)
	wh := admission.WithValidator[*v1alpha1.AddOnRollout](scheme, rollouthook.Validator{ValidateQuery: verify.PromQL()})
	valid := rolloutOf(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"a-group-yet-to-come"},
		Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon-Fri"}, Start: "9:00", End: "17:00", TimeZone: "Europe/Berlin"}},
		Verifications: []v1alpha1.Verification{{Name: "slo",
			Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.monitoring:9090", Query: "max(addon_error_ratio) < 0.01"}}}})
	invalid := rolloutOf(v1alpha1.AddOnRolloutSpec{
		Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon-Fri"}, Start: "09:00", End: "17:00", TimeZone: "Europe/Berln"}},
		Verifications: []v1alpha1.Verification{
			{Name: "slo", Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.monitoring:9090", Query: "sum(rate(x[5m]) < 1"}},
			{Name: "hook", Webhook: &v1alpha1.WebhookCheck{URL: "verifier/verify"}}}})
	relabelled := invalid.DeepCopy()
	relabelled.Labels = map[string]string{"team": "platform"}
	wantCauses := []string{"spec.windows[0].timeZone", "spec.verifications[0].prometheus.query", "spec.verifications[1].webhook.url"}
	tests := []struct {
		name     string
		req      admission.Request
		refused  bool
		messages []string // in the refusal's message
	}{
		{"a valid create", admissionRequest(t, admissionv1.Create, valid, nil), false, nil},
		{"an invalid create", admissionRequest(t, admissionv1.Create, invalid, nil), true, []string{
			`AddOnRollout.rolloutkit.io "cluster-proxy" is invalid: [`,
			`spec.windows[0].timeZone: Invalid value: "Europe/Berln": want an IANA name such as Europe/Berlin or UTC`,
			`spec.verifications[0].prometheus.query: Invalid value: "sum(rate(x[5m]) < 1": 1:20: parse error: unclosed left parenthesis`,
			`spec.verifications[1].webhook.url: Invalid value: "verifier/verify": want an absolute http or https URL`}},
		{"an update to an invalid spec", admissionRequest(t, admissionv1.Update, invalid, valid), true, []string{`spec.windows[0].timeZone`}},
		{"an update of an invalid object that keeps its spec", admissionRequest(t, admissionv1.Update, relabelled, invalid), false, nil},
		{"a delete of an invalid object", admissionRequest(t, admissionv1.Delete, nil, invalid), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := wh.Handle(context.Background(), tt.req)
			require.Equal(t, !tt.refused, resp.Allowed, "%+v", resp.Result)
			if !tt.refused {
				return
			}
			require.NotNil(t, resp.Result)
			assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
			assert.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
			for _, m := range tt.messages {
				assert.Contains(t, resp.Result.Message, m)
			}
			if tt.req.Operation == admissionv1.Create {
				var fields []string
				for _, c := range resp.Result.Details.Causes {
					fields = append(fields, c.Field)
				}
				assert.Equal(t, wantCauses, fields, "one cause per problem")
			}
		})
	}
}

// TestApproverRecorder: the RolloutApprovals' webhook records on a create
// the user the API server authenticated, over whatever the request said,
// and leaves other operations alone.
func TestApproverRecorder(t *testing.T) {
	t.Parallel()
	scheme, err := hubclient.NewScheme()
	require.NoError(t, err)
	wh := admission.WithDefaulter[*v1alpha1.RolloutApproval](scheme, rollouthook.ApproverRecorder{Authorizer: grants{"alice": {"cluster-proxy/prod"}}})
	approval := func(username string, groups ...string) *v1alpha1.RolloutApproval {
		return &v1alpha1.RolloutApproval{TypeMeta: metav1.TypeMeta{APIVersion: "rolloutkit.io/v1alpha1", Kind: "RolloutApproval"},
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod"},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy", Group: "prod", Revision: "abc123",
				Placement: v1alpha1.PlacementRef{Namespace: "default", Name: "global"}, Username: username, Groups: groups}}
	}
	recorded := []jsonpatch.Operation{
		{Operation: "add", Path: "/spec/groups", Value: []any{"release-managers", "system:authenticated"}},
		{Operation: "add", Path: "/spec/uid", Value: "alice-uid"},
		{Operation: "add", Path: "/spec/username", Value: "alice"},
	}
	tests := []struct {
		name string
		req  admission.Request
		want []jsonpatch.Operation
	}{
		{"a create that says nothing", admissionRequest(t, admissionv1.Create, approval(""), nil), recorded},
		{"a create that forges the approver", admissionRequest(t, admissionv1.Create, approval("bob", "admins"), nil), []jsonpatch.Operation{
			{Operation: "replace", Path: "/spec/groups/0", Value: "release-managers"},
			{Operation: "add", Path: "/spec/groups/1", Value: "system:authenticated"},
			{Operation: "add", Path: "/spec/uid", Value: "alice-uid"},
			{Operation: "replace", Path: "/spec/username", Value: "alice"},
		}},
		{"an update", admissionRequest(t, admissionv1.Update, approval("bob"), approval("bob")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := wh.Handle(context.Background(), tt.req)
			require.True(t, resp.Allowed, "%+v", resp.Result)
			assert.ElementsMatch(t, tt.want, resp.Patches)
		})
	}
}

// TestRolloutValidatorCredentialNamespaces: a check's reference to a
// Secret or a ConfigMap is admitted only in a namespace the controller
// reads credentials from; a refusal names each reference's field, its
// namespace and the namespaces allowed.
func TestRolloutValidatorCredentialNamespaces(t *testing.T) {
	t.Parallel()
	scheme, err := hubclient.NewScheme()
	require.NoError(t, err)
	secret := func(ns string) *v1alpha1.SecretKeyRef {
		return &v1alpha1.SecretKeyRef{Namespace: ns, Name: "prometheus-credentials", Key: "token"}
	}
	spec := func(ns string) v1alpha1.AddOnRolloutSpec {
		return v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
			{Name: "hook", Webhook: &v1alpha1.WebhookCheck{URL: "https://verifier.example/verify", HTTPClientConfig: v1alpha1.HTTPClientConfig{
				BearerToken: secret(ns), Headers: []v1alpha1.HTTPHeader{{Name: "X-Api-Key", ValueFrom: secret(ns)}},
				TLS: &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{ConfigMapKeyRef: &v1alpha1.ConfigMapKeyRef{Namespace: ns, Name: "ca", Key: "ca.crt"}}}}}},
			{Name: "slo", Prometheus: &v1alpha1.PrometheusCheck{Address: "https://prometheus.example", Query: "up",
				BasicAuth:        &v1alpha1.BasicAuth{Username: "rolloutkit", Password: *secret(ns)},
				HTTPClientConfig: v1alpha1.HTTPClientConfig{TLS: &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{SecretKeyRef: secret(ns)}}}}}}}
	}
	everyRef := []string{"spec.verifications[0].webhook.bearerToken.namespace", "spec.verifications[0].webhook.tls.ca.configMapKeyRef.namespace",
		"spec.verifications[0].webhook.headers[0].valueFrom.namespace", "spec.verifications[1].prometheus.tls.ca.secretKeyRef.namespace",
		"spec.verifications[1].prometheus.basicAuth.password.namespace"}
	tests := []struct {
		name    string
		allowed []string
		ns      string
		refused []string // the refusal's causes' fields
		message string
	}{
		{"an allowed namespace", []string{"monitoring", "rolloutkit-system"}, "rolloutkit-system", nil, ""},
		{"another namespace", []string{"rolloutkit-system"}, "kube-system", everyRef,
			`spec.verifications[0].webhook.bearerToken.namespace: Invalid value: "kube-system": want a namespace the controller reads credentials from (-verification-secret-namespaces: rolloutkit-system)`},
		{"no namespace allowed", nil, "rolloutkit-system", everyRef,
			`spec.verifications[1].prometheus.basicAuth.password.namespace: Invalid value: "rolloutkit-system": want a namespace the controller reads credentials from (-verification-secret-namespaces: none)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wh := admission.WithValidator[*v1alpha1.AddOnRollout](scheme, rollouthook.Validator{ValidateQuery: verify.PromQL(), CredentialNamespaces: tt.allowed})
			resp := wh.Handle(context.Background(), admissionRequest(t, admissionv1.Create, rolloutOf(spec(tt.ns)), nil))
			require.Equal(t, tt.refused == nil, resp.Allowed, "%+v", resp.Result)
			if tt.refused == nil {
				return
			}
			assert.Contains(t, resp.Result.Message, tt.message)
			var fields []string
			for _, c := range resp.Result.Details.Causes {
				fields = append(fields, c.Field)
			}
			assert.Equal(t, tt.refused, fields)
		})
	}
}
