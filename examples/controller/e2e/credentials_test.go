package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testprom"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
)

// The credentials of TestVerificationCredentials: long enough to be found
// anywhere they leak to, and nowhere else.
const (
	credToken    = "t0ken-0f-the-auth-proxy-7f3a9c"
	credWrong    = "wr0ng-t0ken-e1d2c3b4"
	credPassword = "pr0metheus-passw0rd-5b6c7d"
	credAPIKey   = "ap1-key-0f-the-webhook-8e9f0a"
	credUser     = "rolloutkit"
)

// TestVerificationCredentials: stg is verified by three checks that
// authenticate: a real Prometheus served over TLS with basic auth (its
// own --web.config.file), the same Prometheus behind an auth proxy that
// takes a bearer token, over TLS, and a webhook over TLS with a token, a
// CA and headers, static and from a Secret. Their credentials and CAs
// are read from Secrets and a ConfigMap of an allowed namespace.
//
//   - A wrong token is a failed check, "401 Unauthorized", and stg holds;
//   - a missing Secret is a failed check whose message names it;
//   - the right ones pass, and prod starts;
//   - no credential is in the AddOnRollout, any event, or the
//     controller's logs.
func TestVerificationCredentials(t *testing.T) {
	t.Parallel()
	prom := credentialedPrometheus(t)
	proxy := authProxy(t, prom)
	hook := credentialedWebhook(t)
	logs := &hubtest.SyncBuffer{}
	// The credentials are in the test's namespace, the one allowed.
	c := newControlledWith(t, func(e *env, mgr ctrl.Manager) verify.Verifier {
		return verify.Verifier{Credentials: verify.Credentials{Reader: mgr.GetAPIReader(), Namespaces: []string{e.namespace}}}
	}, func(o *ctrl.Options) {
		tl := newTestLog(t, "the controller")
		t.Cleanup(tl.flush) // after the manager's own cleanup has stopped it
		o.Logger = zap.New(zap.WriteTo(io.MultiWriter(tl, logs)), zap.UseDevMode(true))
	})
	ns := c.namespace
	ctx := context.Background()
	label := map[string]string{verify.CredentialLabel: "true"}
	require.NoError(t, c.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "verification", Labels: label},
		StringData: map[string]string{"token": credToken, "wrong": credWrong, "password": credPassword, "api-key": credAPIKey,
			"proxy-ca.crt": certPEM(proxy), "hook-ca.crt": certPEM(hook)}}))
	require.NoError(t, c.c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prometheus-ca"},
		Data: map[string]string{"ca.crt": string(prom.ca)}}))
	ref := func(key string) *v1alpha1.SecretKeyRef {
		return &v1alpha1.SecretKeyRef{Namespace: ns, Name: "verification", Key: key}
	}
	secretCA := func(key string) *v1alpha1.TLSConfig {
		return &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{SecretKeyRef: ref(key)}}
	}
	query, second := `max(addon_error_ratio{group="stg"}) < 0.01`, &metav1.Duration{Duration: time.Second}
	checks := func(proxyToken *v1alpha1.SecretKeyRef) []v1alpha1.Verification {
		return []v1alpha1.Verification{
			{Name: "prometheus-tls", Groups: []string{"stg"}, Interval: second, Prometheus: &v1alpha1.PrometheusCheck{Address: prom.URL, Query: query,
				BasicAuth: &v1alpha1.BasicAuth{Username: credUser, Password: *ref("password")},
				HTTPClientConfig: v1alpha1.HTTPClientConfig{TLS: &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{
					ConfigMapKeyRef: &v1alpha1.ConfigMapKeyRef{Namespace: ns, Name: "prometheus-ca", Key: "ca.crt"}}}}}},
			{Name: "prometheus-proxy", Groups: []string{"stg"}, Interval: second, Prometheus: &v1alpha1.PrometheusCheck{Address: proxy.URL, Query: query,
				HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: proxyToken, TLS: secretCA("proxy-ca.crt")}}},
			{Name: "hook", Groups: []string{"stg"}, Interval: second, Webhook: &v1alpha1.WebhookCheck{URL: hook.URL + "/verify",
				HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: ref("token"), TLS: secretCA("hook-ca.crt"),
					Headers: []v1alpha1.HTTPHeader{{Name: "X-Scope-OrgID", Value: ptr.To("fleet")}, {Name: "X-Api-Key", ValueFrom: ref("api-key")}}}}},
		}
	}

	c.govern(t, v1alpha1.AddOnRolloutSpec{Verifications: checks(ref("wrong"))})
	c.setAgentImage(t, newImage)
	c.waitCheck(t, "prometheus-proxy", "401 Unauthorized")
	c.waitCheck(t, "prometheus-tls", "1 series")
	c.waitCheck(t, "hook", "204 No Content")
	c.holds(t, 2*soak, "the auth proxy refused the token")
	c.event(t, addons.EventVerificationFailed, "401 Unauthorized")
	c.noCredentials(t, logs.String(), "401 Unauthorized")

	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) {
		s.Verifications = checks(&v1alpha1.SecretKeyRef{Namespace: ns, Name: "missing", Key: "token"})
	})
	c.waitCheck(t, "prometheus-proxy", fmt.Sprintf("bearerToken: secret %s/missing not found", ns))
	c.holds(t, soak, "the token's Secret is missing")

	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) { s.Verifications = checks(ref("token")) })
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
	c.event(t, addons.EventVerificationPassed, "1 series")
	c.noCredentials(t, logs.String(), "204 No Content")
}

// waitCheck waits until the last result of stg's check name has a
// message that contains want.
func (c *controlled) waitCheck(t *testing.T, name, want string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var seen []string
		for _, ps := range c.rollout(ct).Status.Placements {
			for _, v := range ps.Verifications {
				if v.Name == name && v.Group == "stg" {
					seen = append(seen, v.Message)
					assert.Contains(ct, v.Message, want)
				}
			}
		}
		assert.NotEmpty(ct, seen, "no result of %s", name)
	}, 60*time.Second, poll, "check %s: %s", name, want)
}

// noCredentials fails the test if a credential is in the AddOnRollout
// (whose status has the message want), an event, or logs.
func (c *controlled) noCredentials(t *testing.T, logs, want string) {
	t.Helper()
	status, err := json.Marshal(c.rollout(t))
	require.NoError(t, err)
	var evs eventsv1.EventList
	require.NoError(t, c.c.List(context.Background(), &evs))
	events, err := json.Marshal(evs.Items)
	require.NoError(t, err)
	require.Contains(t, string(status), want, "the status is not what the test looks in")
	require.Contains(t, logs, "Reconcil", "the logs are not what the test looks in")
	for _, secret := range []string{credToken, credWrong, credPassword, credAPIKey} {
		for where, text := range map[string]string{"the AddOnRollout": string(status), "an event": string(events), "the controller's logs": logs} {
			assert.False(t, strings.Contains(text, secret), "%s holds the credential %q", where, secret)
		}
	}
}

// credentialedPrometheus is a real Prometheus serving its API over TLS,
// with basic auth (credUser, credPassword), that scrapes stg's error
// ratio of 0.001 from an endpoint of the test; its CA is in Web.
func credentialedPrometheus(t *testing.T) *promServer {
	t.Helper()
	reg := prometheus.NewRegistry()
	ratio := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "addon_error_ratio", Help: "errors of the add-on's agents"}, []string{"group"})
	require.NoError(t, reg.Register(ratio))
	ratio.WithLabelValues("stg").Set(0.001)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	target := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = target.Serve(ln) }() // returns when closed
	t.Cleanup(func() { _ = target.Close() })

	dir, ca := servingCert(t)
	hash, err := bcrypt.GenerateFromPassword([]byte(credPassword), bcrypt.MinCost)
	require.NoError(t, err)
	web := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  %s: %s\n",
		filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"), credUser, hash)
	hc, err := config.NewClientFromConfig(config.HTTPClientConfig{TLSConfig: config.TLSConfig{CA: string(ca)},
		BasicAuth: &config.BasicAuth{Username: credUser, Password: config.Secret(credPassword)}}, "testprom")
	require.NoError(t, err)
	s := testprom.ForTestWeb(t, []string{ln.Addr().String()}, 500*time.Millisecond, testprom.Web{Config: []byte(web), TLS: true, Client: hc})

	// Served as configured: TLS with this CA, and nothing without the password.
	anon, err := config.NewClientFromConfig(config.HTTPClientConfig{TLSConfig: config.TLSConfig{CA: string(ca)}}, "anonymous")
	require.NoError(t, err)
	resp, err := anon.Get(s.URL + "/api/v1/query?query=up")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "Prometheus answers without a password")
	return &promServer{Server: s, ca: ca}
}

// promServer is a Prometheus of the test and its CA.
type promServer struct {
	*testprom.Server
	ca []byte
}

// authProxy is "Prometheus behind an auth proxy": a TLS server of its own
// certificate that takes "Authorization: Bearer credToken" and passes
// the request on to prom with prom's basic auth; anything else is 401.
func authProxy(t *testing.T, prom *promServer) *httptest.Server {
	t.Helper()
	target, err := url.Parse(prom.URL)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(prom.ca))
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.SetBasicAuth(credUser, credPassword)
		},
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+credToken {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// credentialedWebhook is a webhook check's endpoint over TLS that passes
// a request with the bearer token credToken, X-Scope-OrgID: fleet and
// X-Api-Key: credAPIKey, and refuses the rest.
func credentialedWebhook(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req v1alpha1.VerificationRequest
		switch {
		case r.Header.Get("Authorization") != "Bearer "+credToken:
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case r.Header.Get("X-Scope-OrgID") != "fleet" || r.Header.Get("X-Api-Key") != credAPIKey:
			http.Error(w, "Forbidden", http.StatusForbidden)
		case json.NewDecoder(r.Body).Decode(&req) != nil || req.Group != "stg":
			http.Error(w, "not a verification of stg", http.StatusBadRequest)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// certPEM is the PEM of srv's certificate, its own CA.
func certPEM(srv *httptest.Server) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}
