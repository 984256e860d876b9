package servingcert_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	certutil "k8s.io/client-go/util/cert"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rolloutkit/rolloutkit/examples/controller/servingcert"
)

var (
	secretKey = types.NamespacedName{Namespace: "rolloutkit-system", Name: "rolloutkit-webhook-cert"}
	hosts     = []string{"rolloutkit-webhook.rolloutkit-system.svc", "rolloutkit-webhook.rolloutkit-system.svc.cluster.local", "127.0.0.1"}
	t0        = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

const configuration = "rolloutkit-work-gate"

// gate is a ValidatingWebhookConfiguration of two webhooks, without a CA.
func gate() *admissionregistrationv1.ValidatingWebhookConfiguration {
	hook := func(name string) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{Name: name, ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Namespace: "rolloutkit-system", Name: "rolloutkit-webhook"}}}
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: configuration},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{hook("a.gate.rolloutkit.io"), hook("b.gate.rolloutkit.io")}}
}

func options(dir string, clk *clocktesting.FakeClock) servingcert.Options {
	return servingcert.Options{Secret: secretKey, Hosts: hosts, CertDir: dir, Configurations: []string{configuration}, Clock: clk}
}

// newClient is a fake client holding objs, with funcs in front of it.
func newClient(funcs interceptor.Funcs, objs ...client.Object) client.WithWatch {
	return fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(objs...).WithInterceptorFuncs(funcs).Build()
}

func newRotator(t *testing.T, c client.Client, o servingcert.Options) *servingcert.Rotator {
	t.Helper()
	r, err := servingcert.New(c, c, o)
	require.NoError(t, err)
	return r
}

func secret(t *testing.T, c client.Reader) *corev1.Secret {
	t.Helper()
	var s corev1.Secret
	require.NoError(t, c.Get(context.Background(), secretKey, &s))
	return &s
}

// served checks what a client of the API server would: the files in dir
// are the Secret's pair, and verify for every host against the CA bundle
// of every webhook of the configuration.
func served(t *testing.T, c client.Reader, dir string, now time.Time) {
	t.Helper()
	s := secret(t, c)
	crt, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	require.NoError(t, err)
	key, err := os.ReadFile(filepath.Join(dir, "tls.key"))
	require.NoError(t, err)
	assert.Equal(t, s.Data["tls.crt"], crt)
	assert.Equal(t, s.Data["tls.key"], key)
	pair, err := tls.X509KeyPair(crt, key)
	require.NoError(t, err)
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: configuration}, &vwc))
	for _, w := range vwc.Webhooks {
		assert.Equal(t, s.Data["ca.crt"], w.ClientConfig.CABundle, w.Name)
		roots := x509.NewCertPool()
		require.True(t, roots.AppendCertsFromPEM(w.ClientConfig.CABundle), w.Name)
		for _, h := range hosts {
			_, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: h, CurrentTime: now})
			assert.NoError(t, err, "%s for %s", w.Name, h)
		}
	}
}

// TestNew: New lists every problem of its options, naming the field and
// the value.
func TestNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		edit func(*servingcert.Options)
		errs []string
	}{
		{"defaults", func(*servingcert.Options) {}, nil},
		{"no configuration", func(o *servingcert.Options) { o.Configurations = nil }, nil},
		{"everything wrong", func(o *servingcert.Options) {
			*o = servingcert.Options{Secret: types.NamespacedName{Namespace: "Team_A", Name: ""}, Hosts: []string{"ok.example", "not a host"}, Configurations: []string{"ok", "Gate!"}}
		}, []string{`secret.namespace: Invalid value: "Team_A": want a namespace name`, `secret.name: Invalid value: "": want a Secret name`,
			`hosts[1]: Invalid value: "not a host": want a DNS name or an IP address`, "certDir: Required value", `configurations[1]: Invalid value: "Gate!": want the name of a webhook configuration`}},
		{"no hosts", func(o *servingcert.Options) { o.Hosts = nil }, []string{"hosts: Required value: want at least one DNS name or IP address"}},
		{"renewal longer than validity", func(o *servingcert.Options) { o.Validity, o.RenewBefore = time.Hour, 2*time.Hour },
			[]string{`renewBefore: Invalid value: "2h0m0s": want less than validity (1h0m0s)`}},
		{"CA shorter than validity and renewal", func(o *servingcert.Options) { o.CAValidity = servingcert.DefaultValidity },
			[]string{`caValidity: Invalid value: "8760h0m0s": want more than validity + renewBefore (10920h0m0s)`}},
		{"negative check", func(o *servingcert.Options) { o.CheckEvery = -time.Second }, []string{`checkEvery: Invalid value: "-1s": want a positive duration`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := options(dir, nil)
			tc.edit(&o)
			_, err := servingcert.New(newClient(interceptor.Funcs{}), newClient(interceptor.Funcs{}), o)
			if tc.errs == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, e := range tc.errs {
				assert.Contains(t, err.Error(), e)
			}
		})
	}
}

// TestEnsure: from each state of the hub, one Ensure leaves the Secret,
// the files and the configuration serving a certificate the API server
// trusts, and a second one changes nothing.
func TestEnsure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		objs           func(t *testing.T) []client.Object
		configurations []string
		want           servingcert.Result
		noCheckServing bool
	}{
		{"a new hub", func(*testing.T) []client.Object { return []client.Object{gate()} }, []string{configuration},
			servingcert.Result{Change: servingcert.Created, Why: "no Secret", Injected: true, WroteFiles: true}, false},
		{"no configuration yet", func(*testing.T) []client.Object { return nil }, []string{configuration},
			servingcert.Result{Change: servingcert.Created, Why: "no Secret", Missing: []string{configuration}, WroteFiles: true}, true},
		{"no configuration wanted", func(*testing.T) []client.Object { return []client.Object{gate()} }, nil,
			servingcert.Result{Change: servingcert.Created, Why: "no Secret", WroteFiles: true}, true},
		{"an empty Secret made by hand", func(*testing.T) []client.Object {
			return []client.Object{gate(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretKey.Namespace, Name: secretKey.Name}, Type: corev1.SecretTypeOpaque}}
		}, []string{configuration}, servingcert.Result{Change: servingcert.NewCA, Why: "no CA", Injected: true, WroteFiles: true}, false},
		{"another replica's Secret", func(t *testing.T) []client.Object {
			c := newClient(interceptor.Funcs{}, gate())
			_, err := newRotator(t, c, options(t.TempDir(), clocktesting.NewFakeClock(t0))).Ensure(context.Background())
			require.NoError(t, err)
			var vwc admissionregistrationv1.ValidatingWebhookConfiguration
			require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: configuration}, &vwc))
			vwc.ResourceVersion = ""
			s := secret(t, c)
			s.ResourceVersion = ""
			return []client.Object{&vwc, s}
		}, []string{configuration}, servingcert.Result{Change: servingcert.Unchanged, WroteFiles: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, dir := newClient(interceptor.Funcs{}, tc.objs(t)...), t.TempDir()
			o := options(dir, clocktesting.NewFakeClock(t0))
			o.Configurations = tc.configurations
			r := newRotator(t, c, o)
			got, err := r.Ensure(context.Background())
			require.NoError(t, err)
			assert.Equal(t, t0.Add(servingcert.DefaultValidity), got.NotAfter)
			got.NotAfter = time.Time{}
			assert.Equal(t, tc.want, got)
			if tc.want.Change == servingcert.NewCA {
				assert.Equal(t, corev1.SecretTypeOpaque, secret(t, c).Type, "a Secret's type cannot change")
			} else {
				assert.Equal(t, corev1.SecretTypeTLS, secret(t, c).Type)
			}
			if !tc.noCheckServing {
				served(t, c, dir, t0)
			}
			again, err := r.Ensure(context.Background())
			require.NoError(t, err)
			again.NotAfter = time.Time{}
			assert.Equal(t, servingcert.Result{Change: servingcert.Unchanged, Missing: tc.want.Missing}, again, "a second check")
		})
	}
}

// TestEnsureBothKinds: every name gets the CA in its validating and its
// mutating configuration, those that exist; a name of neither is Missing.
func TestEnsureBothKinds(t *testing.T) {
	t.Parallel()
	service := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "rolloutkit-system", Name: "rolloutkit-webhook"}}
	const admission = "rolloutkit-admission"
	c := newClient(interceptor.Funcs{}, gate(),
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: admission},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "addonrollouts.rolloutkit.io", ClientConfig: service}}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: admission},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "rolloutapprovals.rolloutkit.io", ClientConfig: service}}})
	dir := t.TempDir()
	o := options(dir, clocktesting.NewFakeClock(t0))
	o.Configurations = []string{configuration, admission, "not-installed"}
	res, err := newRotator(t, c, o).Ensure(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Injected)
	assert.Equal(t, []string{"not-installed"}, res.Missing)
	served(t, c, dir, t0)
	ca := secret(t, c).Data["ca.crt"]
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: admission}, &v))
	assert.Equal(t, ca, v.Webhooks[0].ClientConfig.CABundle, "the validating configuration")
	var m admissionregistrationv1.MutatingWebhookConfiguration
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: admission}, &m))
	assert.Equal(t, ca, m.Webhooks[0].ClientConfig.CABundle, "the mutating configuration")
}

// TestEnsureRotates: as time passes, the serving certificate is renewed
// from the same CA (the configuration is left alone), then the CA is
// renewed with the old one kept in the bundle, and the API server is told
// the new bundle before the files change.
func TestEnsureRotates(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(t0)
	dir := t.TempDir()
	var patches int
	var filesAtPatch []byte // tls.crt when the CA bundle was last patched
	c := newClient(interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
		patches++
		filesAtPatch, _ = os.ReadFile(filepath.Join(dir, "tls.crt")) // none at the first
		return c.Patch(ctx, obj, patch, opts...)
	}}, gate())
	r := newRotator(t, c, options(dir, clk))
	ctx := context.Background()
	_, err := r.Ensure(ctx)
	require.NoError(t, err)
	first := secret(t, c)

	clk.SetTime(t0.Add(servingcert.DefaultValidity - servingcert.DefaultRenewBefore + time.Hour))
	res, err := r.Ensure(ctx)
	require.NoError(t, err)
	assert.Equal(t, servingcert.Renewed, res.Change)
	assert.Contains(t, res.Why, "the serving certificate expires at 2027-03-01T12:00:00Z")
	assert.False(t, res.Injected, "the same CA: nothing to tell the API server")
	assert.True(t, res.WroteFiles)
	renewed := secret(t, c)
	assert.Equal(t, first.Data["ca.crt"], renewed.Data["ca.crt"])
	assert.NotEqual(t, first.Data["tls.crt"], renewed.Data["tls.crt"])
	assert.Equal(t, 1, patches)

	// Nine years on, the certificate of the old CA is renewed once more,
	// then the CA is due.
	caDue := t0.Add(servingcert.DefaultCAValidity - servingcert.DefaultValidity - servingcert.DefaultRenewBefore)
	clk.SetTime(caDue.Add(-time.Hour))
	res, err = r.Ensure(ctx)
	require.NoError(t, err)
	assert.Equal(t, servingcert.Renewed, res.Change)
	lastOfOldCA := secret(t, c)
	clk.SetTime(caDue.Add(time.Hour))
	res, err = r.Ensure(ctx)
	require.NoError(t, err)
	assert.Equal(t, servingcert.NewCA, res.Change)
	assert.True(t, res.Injected)
	assert.Equal(t, 2, patches)
	assert.Equal(t, lastOfOldCA.Data["tls.crt"], filesAtPatch, "the bundle patched before the files changed")
	rotated := secret(t, c)
	assert.Equal(t, rotated.Data["tls.crt"], mustRead(t, dir, "tls.crt"))
	bundle, err := certutil.ParseCertsPEM(rotated.Data["ca.crt"])
	require.NoError(t, err)
	require.Len(t, bundle, 2, "the new CA, then the old one")
	old, err := certutil.EncodeCertificates(bundle[1])
	require.NoError(t, err)
	assert.Equal(t, first.Data["ca.crt"], old)
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: configuration}, &vwc))
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(vwc.Webhooks[0].ClientConfig.CABundle))
	for _, s := range []*corev1.Secret{lastOfOldCA, rotated} {
		pair, err := tls.X509KeyPair(s.Data["tls.crt"], s.Data["tls.key"])
		require.NoError(t, err)
		_, err = pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: hosts[0], CurrentTime: clk.Now()})
		assert.NoError(t, err, "a replica that still serves the old CA's certificate is trusted")
	}
}

func mustRead(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return data
}

// TestEnsureRaces: two replicas that find the Secret missing, or due,
// at once: the one that loses (AlreadyExists, Conflict) serves the
// winner's certificate.
func TestEnsureRaces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// due moves the loser's clock to where the Secret is due.
		due  time.Duration
		race func(funcs *interceptor.Funcs, winner func(ctx context.Context) error)
	}{
		{"both create", 0, func(f *interceptor.Funcs, winner func(context.Context) error) {
			f.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if err := winner(ctx); err != nil {
					return err
				}
				return c.Create(ctx, obj, opts...)
			}
		}},
		{"both renew", servingcert.DefaultValidity - servingcert.DefaultRenewBefore + time.Hour, func(f *interceptor.Funcs, winner func(context.Context) error) {
			f.Update = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if err := winner(ctx); err != nil {
					return err
				}
				return c.Update(ctx, obj, opts...)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var funcs interceptor.Funcs
			shared := newClient(interceptor.Funcs{}, gate())
			ctx := context.Background()
			clk := clocktesting.NewFakeClock(t0)
			if tc.due > 0 {
				_, err := newRotator(t, shared, options(t.TempDir(), clk)).Ensure(ctx)
				require.NoError(t, err)
				clk.SetTime(t0.Add(tc.due))
			}
			won := false
			tc.race(&funcs, func(ctx context.Context) error {
				if won {
					return nil
				}
				won = true
				_, err := newRotator(t, shared, options(t.TempDir(), clk)).Ensure(ctx)
				return err
			})
			raced := interceptor.NewClient(shared, funcs)
			dir := t.TempDir()
			var writes int
			counted := interceptor.NewClient(raced, interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					writes++
					return c.Create(ctx, obj, opts...)
				},
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					writes++
					return c.Update(ctx, obj, opts...)
				},
			})
			res, err := newRotator(t, counted, options(dir, clk)).Ensure(ctx)
			require.NoError(t, err)
			assert.True(t, won)
			assert.Equal(t, servingcert.Unchanged, res.Change, "the winner's Secret was good")
			assert.Equal(t, 1, writes, "one refused write, then the winner's Secret")
			served(t, shared, dir, clk.Now())
		})
	}
}

// TestEnsureInjectFails: when the API server refuses the CA bundle, the
// files are left alone (the new certificate would not be trusted) and
// the error names the configuration.
func TestEnsureInjectFails(t *testing.T) {
	t.Parallel()
	c := newClient(interceptor.Funcs{Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
		return apierrors.NewForbidden(admissionregistrationv1.Resource("validatingwebhookconfigurations"), configuration, errors.New("RBAC"))
	}}, gate())
	dir := t.TempDir()
	_, err := newRotator(t, c, options(dir, clocktesting.NewFakeClock(t0))).Ensure(context.Background())
	require.ErrorContains(t, err, "validatingwebhookconfiguration rolloutkit-work-gate: ")
	assert.True(t, apierrors.IsForbidden(err))
	_, statErr := os.Stat(filepath.Join(dir, "tls.crt"))
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

// TestStart: Start checks at once, then when the configuration changes
// (Watch), and every CheckEvery; it renews when due, runs on every
// replica, and returns nil when stopped.
func TestStart(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(t0)
	c := newClient(interceptor.Funcs{})
	dir := t.TempDir()
	r := newRotator(t, c, options(dir, clk))
	assert.False(t, r.NeedLeaderElection())
	cs := k8sfake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, r.Watch(cs))
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		require.Eventually(t, ok, 10*time.Second, 10*time.Millisecond, what)
	}
	waitFor("the files, at once", func() bool { _, err := os.Stat(filepath.Join(dir, "tls.crt")); return err == nil })

	// The configuration is made after the start: Watch sees it.
	vwc := gate()
	require.NoError(t, c.Create(ctx, vwc))
	waitFor("Start waiting", clk.HasWaiters)
	_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, gate(), metav1.CreateOptions{})
	require.NoError(t, err)
	waitFor("the CA in the configuration", func() bool {
		var got admissionregistrationv1.ValidatingWebhookConfiguration
		return c.Get(ctx, client.ObjectKeyFromObject(vwc), &got) == nil && len(got.Webhooks[1].ClientConfig.CABundle) > 0
	})
	served(t, c, dir, t0)

	// Months later, the hourly check renews.
	before := secret(t, c).Data["tls.crt"]
	waitFor("Start waiting", clk.HasWaiters)
	clk.Step(servingcert.DefaultValidity - servingcert.DefaultRenewBefore + time.Hour)
	waitFor("a renewed certificate in the files", func() bool {
		crt, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
		return err == nil && string(crt) != string(before)
	})

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Start did not return after its context was done")
	}
}
