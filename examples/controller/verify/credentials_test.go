package verify

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestVerifierCredentials: a webhook check over TLS with a bearer token,
// a CA and headers read from a Secret and a ConfigMap. The right ones
// pass; every wrong or missing one fails with a message that names the
// reference or quotes the answer, and never the token, even when the
// server echoes it back.
func TestVerifierCredentials(t *testing.T) {
	t.Parallel()
	const token, apiKey = "s3cr3t-t0ken-value", "k3y-value-from-secret"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, "bad credentials: "+got) // as a careless server might
			return
		}
		if r.Header.Get("X-Scope-OrgID") != "fleet" || r.Header.Get("X-Api-Key") != apiKey {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	const ns = "rolloutkit-system"
	label := map[string]string{CredentialLabel: "true"}
	reader := fake.NewClientBuilder().WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "verifier", Labels: label},
			Data: map[string][]byte{"token": []byte(token), "wrong": []byte("wr0ng-t0ken-value"), "api-key": []byte(apiKey)}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unlabelled"}, Data: map[string][]byte{"token": []byte(token)}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "elsewhere", Name: "verifier", Labels: label}, Data: map[string][]byte{"token": []byte(token)}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "verifier-ca"}, Data: map[string]string{"ca.crt": caPEM}},
	).Build()
	ref := func(name, key string) *v1alpha1.SecretKeyRef {
		return &v1alpha1.SecretKeyRef{Namespace: ns, Name: name, Key: key}
	}
	ca := &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{ConfigMapKeyRef: &v1alpha1.ConfigMapKeyRef{Namespace: ns, Name: "verifier-ca", Key: "ca.crt"}}}
	headers := []v1alpha1.HTTPHeader{{Name: "X-Scope-OrgID", Value: ptr.To("fleet")}, {Name: "X-Api-Key", ValueFrom: ref("verifier", "api-key")}}
	for _, tc := range []struct {
		name   string
		cfg    v1alpha1.HTTPClientConfig
		passed bool
		msg    string
	}{
		{"the right token, CA and headers", v1alpha1.HTTPClientConfig{BearerToken: ref("verifier", "token"), TLS: ca, Headers: headers}, true, "204 No Content"},
		{"a wrong token", v1alpha1.HTTPClientConfig{BearerToken: ref("verifier", "wrong"), TLS: ca, Headers: headers}, false,
			"401 Unauthorized: bad credentials: Bearer <redacted>"},
		{"no header from the Secret", v1alpha1.HTTPClientConfig{BearerToken: ref("verifier", "token"), TLS: ca}, false, "403 Forbidden"},
		{"no CA", v1alpha1.HTTPClientConfig{BearerToken: ref("verifier", "token"), Headers: headers}, false, "certificate signed by unknown authority"},
		{"a missing Secret", v1alpha1.HTTPClientConfig{BearerToken: ref("missing", "token"), TLS: ca}, false,
			"bearerToken: secret rolloutkit-system/missing not found"},
		{"a missing key", v1alpha1.HTTPClientConfig{BearerToken: ref("verifier", "tokn"), TLS: ca}, false,
			`bearerToken: secret rolloutkit-system/verifier has no key "tokn"`},
		{"a Secret without the label", v1alpha1.HTTPClientConfig{BearerToken: ref("unlabelled", "token"), TLS: ca}, false,
			"bearerToken: secret rolloutkit-system/unlabelled: want the label rolloutkit.io/verification-credential=true on it"},
		{"a namespace not allowed", v1alpha1.HTTPClientConfig{BearerToken: &v1alpha1.SecretKeyRef{Namespace: "elsewhere", Name: "verifier", Key: "token"}}, false,
			`bearerToken: secret elsewhere/verifier: namespace "elsewhere" is not one the controller reads credentials from (-verification-secret-namespaces: rolloutkit-system)`},
		{"a header's missing Secret", v1alpha1.HTTPClientConfig{Headers: []v1alpha1.HTTPHeader{{Name: "X-Api-Key", ValueFrom: ref("gone", "k")}}}, false,
			"headers[0].valueFrom: secret rolloutkit-system/gone not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := Verifier{Credentials: Credentials{Reader: reader, Namespaces: []string{ns}}}
			c := hubplan.Check{Verification: v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: srv.URL,
				Timeout: &metav1.Duration{Duration: 5 * time.Second}, HTTPClientConfig: tc.cfg}}}
			res := v.Run(context.Background(), []hubplan.Check{c})
			require.Len(t, res, 1)
			assert.Equal(t, tc.passed, res[0].Passed, res[0].Message)
			assert.Contains(t, res[0].Message, "webhook "+srv.URL+": ")
			assert.Contains(t, res[0].Message, tc.msg)
			assert.NotContains(t, res[0].Message, token)
			assert.NotContains(t, res[0].Message, "wr0ng-t0ken-value")
			assert.NotContains(t, res[0].Message, apiKey)
		})
	}
}
