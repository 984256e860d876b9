package e2e_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/rolloutkit/rolloutkit/examples/controller/agent"
	shipped "github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/servingcert"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// How the controller keeps the gate's certificate in
// TestWorkGateAsServiceAccount. A serving certificate is renewed once less
// than keptRenewBefore of it remains: every keptValidity-keptRenewBefore,
// plus up to keptCheckEvery, which is shorter than a config change's
// rollout on the seed (three applies of 1s and two soaks of 2s), so that
// the certificate is renewed during the rollout whatever the timing.
// keptRenewBefore is longer than the 10s after which controller-runtime's
// certwatcher reads its files again though it missed their change, so
// that not even then is an expired certificate served. The CA outlives
// the test: only the serving certificate is renewed.
const (
	keptValidity    = 14 * time.Second
	keptRenewBefore = 11 * time.Second
	keptCAValidity  = time.Hour
	keptCheckEvery  = time.Second
	// keptSecret is the Secret config/manager/manager.yaml's
	// -webhook-cert-secret names in the controller's namespace, the one
	// name webhook_role.yaml lets the controller read and update.
	keptSecret = "rolloutkit-webhook-cert"
	// probeEvery is how often the test asks the API server to call the
	// gate, and looks at the certificate.
	probeEvery = 500 * time.Millisecond
)

// TestWorkGateAsServiceAccount runs the controller as the ServiceAccount
// config/default installs, bound by the shipped roles alone (the work
// gate's included), with the work gate on and its serving certificate
// kept by the controller as -webhook-cert-secret keeps it: a Rotator
// makes the Secret, puts its CA into the configuration the hub was given
// without one (config.WorkGateAt), writes the files the webhook server
// reads, and, with lifetimes of seconds, renews the certificate every few
// seconds while the seed installs and a config change rolls out. The
// simulated add-on manager renders by name, as cluster-proxy does, so
// that without the gate the new image would land in stg's and prod's
// works at once. It checks that:
//
//   - the change rolls out dev, stg, prod in order, each after the one
//     before soaked, and every version of every work carries the image of
//     the spec its annotation names, a spec its add-on was handed before:
//     prod's work gets the new image only after prod's add-on has its hash;
//   - the gate held prod's work: the add-on manager's writes of it were
//     refused, counted as ConfigMovedOn, shown on prod's add-on and in a
//     WorkHeld event the controller wrote;
//   - the certificate was renewed during the change's rollout (in the
//     Secret, in the files and in what the webhook server serves), and the
//     gate answered throughout: every 500ms, a dry-run create of a probe
//     work is answered (admitted, or held with the gate's message), and a
//     new TLS connection to the gate verifies
//     against the Secret's CA (the API server keeps its connections to
//     the gate open, so its calls alone would not show a certificate
//     served expired); no add-on's ManifestApplied says the API server
//     failed calling the gate, and no write of a work failed;
//   - the API server refused none of the controller's requests, reads and
//     watches included.
func TestWorkGateAsServiceAccount(t *testing.T) {
	t.Parallel()
	// A hub of its own: the work gate's configuration, which it installs,
	// holds every add-on's works on the hub; it installs cluster-wide RBAC
	// and elects a leader with the shipped Lease.
	e := newEnv(t)
	e.installRBAC(t)
	sa := e.serviceAccountConfig(t)
	o := seedHub(t, e, "30s")
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	seen := e.recordVersions(t, addonName)
	gate := e.startKeptGate(t, sa)
	watch := e.watchGate(t, gate)
	agents := e.start(t, func(mgr ctrl.Manager) error {
		return agent.Setup(mgr, agent.Options{AddonVersion: hubclient.V1alpha1, Delay: applyTime, RenderByName: true})
	})

	start := time.Now()
	e.installed(t, o, addonName, oldHash, 60*time.Second)
	ob := e.observe(t, o.Clusters(), addonName, newHash)
	changed := time.Now()
	require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, newImage))
	e.installed(t, o, addonName, newHash, 60*time.Second)
	done := time.Now()
	watch.stop()
	seen.stop()
	t.Logf("install %s, then the change rolled out in %s", changed.Sub(start).Round(time.Millisecond), done.Sub(changed).Round(time.Millisecond))

	e.requireStaged(t, ob, o, oldHash, newHash)
	seen.requireStaged(t, map[string]string{oldHash: testhub.Image, newHash: newImage})
	assert.Equal(t, []string{testhub.Image, newImage}, seen.images("prod-cluster"), "prod's work's images in order")
	e.requireKeptHeld(t, gate, agents, seen)
	watch.requireKept(t, changed, done)
	assert.Empty(t, agents.writes.failed("/manifestworks/"), "writes of works that failed on the API server")
	for _, a := range seen.addons {
		if c := a.manifestApplied; c != nil {
			assert.NotContains(t, c.Message, "failed calling webhook", "%s's add-on at resourceVersion %d", a.cluster, a.rv)
		}
	}
	assert.Empty(t, gate.requests.refused(), "the controller's requests refused")
	t.Logf("the controller sent %d requests, %d refused", gate.requests.total(), len(gate.requests.refused()))
}

// keptGate is a controller serving the work gate with a certificate it
// keeps itself.
type keptGate struct {
	*gated
	addr     string // host:port of the webhook server
	certDir  string
	probe    *workv1.ManifestWork
	requests *requests // of the controller's clients and cache
}

// startKeptGate runs the controller as cfg's identity as
// config/manager/manager.yaml runs it: electing a leader with the shipped
// Lease, every reconciler, and the work gate on (at a free loopback port),
// its certificate kept in Secret keptSecret by a Rotator that
// keepGateCert builds as main.go's keepServingCert does, its cache holding
// the gate's configuration alone. The hub gets the shipped configuration
// calling the gate, without a CA, before the controller starts: the
// controller must put its CA in. It returns once the gate answers.
func (e *env) startKeptGate(t testing.TB, cfg *rest.Config) *keptGate {
	t.Helper()
	ctx := context.Background()
	port := freeLoopbackPort(t)
	k := &keptGate{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), certDir: t.TempDir(), requests: &requests{}}
	vwc, err := shipped.WorkGateAt("https://" + k.addr)
	require.NoError(t, err)
	// scoped as the controller scopes it, so that the probe is asked about
	// before the controller runs
	vwc, _, err = workgate.Scoped(vwc, gateWebhooks, []string{e.addonName})
	require.NoError(t, err)
	require.NoError(t, e.c.Create(ctx, vwc))
	k.probe = e.gateProbe(t)
	e.gateCalled(t, k.probe)

	reg := prometheus.NewRegistry()
	r := e.startManager(t, k.requests.config(t, cfg), func(o *ctrl.Options) {
		o.LeaderElection, o.LeaderElectionID, o.LeaderElectionNamespace = true, leaseName, controllerNamespace
		o.LeaderElectionReleaseOnCancel = true
		o.Cache = cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
		o.WebhookServer = crwebhook.NewServer(crwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: k.certDir})
	}, func(mgr ctrl.Manager) error {
		if err := keepGateCert(ctx, mgr, k.certDir); err != nil {
			return err
		}
		_, err := hubctl.Setup(ctx, mgr, hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{testhub.Lifecycle},
			WorkGate: true, Metrics: reg})
		return err
	})
	e.gateAnswers(t, k.probe)
	k.gated = &gated{running: r, URL: "https://" + k.addr, metrics: []*prometheus.Registry{reg}}
	return k
}

// keepGateCert makes the gate's certificate once, before the manager
// starts, so that the webhook server finds its files, then has a Rotator
// keep it fresh: main.go's keepServingCert, with the test's lifetimes.
func keepGateCert(ctx context.Context, mgr ctrl.Manager, dir string) error {
	rot, err := servingcert.New(mgr.GetAPIReader(), mgr.GetClient(), servingcert.Options{
		Secret: types.NamespacedName{Namespace: controllerNamespace, Name: keptSecret}, Hosts: []string{"127.0.0.1"}, CertDir: dir,
		Configurations: []string{gatehook.WorkGateConfiguration}, Validity: keptValidity, RenewBefore: keptRenewBefore, CAValidity: keptCAValidity,
		CheckEvery: keptCheckEvery, Logger: mgr.GetLogger().WithName("servingcert")})
	if err != nil {
		return err
	}
	res, err := rot.Ensure(ctx)
	if err != nil {
		return fmt.Errorf("the work gate's serving certificate: %w", err)
	}
	if res.Change != servingcert.Created || !res.Injected || !res.WroteFiles {
		return fmt.Errorf("the first check of the serving certificate: %+v: want the Secret created, the CA injected and the files written", res)
	}
	cs, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	if err := rot.Watch(cs); err != nil {
		return err
	}
	return mgr.Add(rot)
}

// requireKeptHeld checks that the gate held prod's work: the agents'
// writes of it were refused, the gate counted refusals of a config that
// had moved on (and none it could not judge), prod's add-on showed the
// refusal in its ManifestApplied condition, and the controller sent a
// WorkHeld event about it.
func (e *env) requireKeptHeld(t testing.TB, gate *keptGate, agents *running, seen *versions) {
	t.Helper()
	refusals := gate.refusals(t)
	var prod []string
	for _, w := range agents.writes.refused() {
		if strings.Contains(w, "/namespaces/prod-cluster/manifestworks/") {
			prod = append(prod, w)
		}
	}
	t.Logf("the gate's refusals by add-on and reason: %v; of prod's work: %d", refusals, len(prod))
	assert.NotEmpty(t, prod, "the add-on manager's writes of prod's work were never refused")
	assert.Positive(t, refusals[addonName+" "+workgate.ConfigMovedOn.String()], "refusals %v", refusals)
	assert.Zero(t, refusals[addonName+" "+workgate.Unreadable.String()], "the gate could not read the hub: refusals %v", refusals)
	held := seen.heldMessage("prod-cluster")
	assert.Contains(t, held, workgate.Marker, "prod's add-on never showed its held work")
	t.Logf("prod-cluster's %s event: %s", gatehook.ReasonWorkHeld, e.heldEvent(t, "prod-cluster"))
}

// requests records the answers to every request of one identity's
// clients, reads and watches included.
type requests struct {
	mu      sync.Mutex
	n       int
	refuses []string // method and URI of each request answered 403
	inner   http.RoundTripper
}

// config returns a config of cfg's identity whose every request q
// records: cfg's transport (its TLS and its credentials) wrapped, so that
// whatever a manager builds from the config, its client, cache, API
// reader, event recorder and leader election, and whatever wraps it
// further (startManager's writes), goes through q.
func (q *requests) config(t testing.TB, cfg *rest.Config) *rest.Config {
	t.Helper()
	rt, err := rest.TransportFor(cfg)
	require.NoError(t, err)
	q.inner = rt
	out := rest.AnonymousClientConfig(cfg)
	out.TLSClientConfig = rest.TLSClientConfig{} // in rt; a config with a Transport may have none
	out.Transport = q
	return out
}

func (q *requests) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := q.inner.RoundTrip(r)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.n++
	if resp != nil && resp.StatusCode == http.StatusForbidden {
		q.refuses = append(q.refuses, r.Method+" "+r.URL.RequestURI())
	}
	return resp, err
}

// refused returns the requests the API server refused as forbidden.
func (q *requests) refused() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.refuses...)
}

// total returns how many requests were sent.
func (q *requests) total() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// failed returns the writes whose path contains part that the API server
// answered with an error of its own (5xx): a webhook it failed to call,
// with failurePolicy Fail, is one.
func (w *writes) failed(part string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, x := range w.all {
		if x.code >= 500 && strings.Contains(x.path, part) {
			out = append(out, fmt.Sprintf("%s %s: %d", x.method, x.path, x.code))
		}
	}
	return out
}

// gateWatch asks the API server to call the gate every probeEvery (a
// dry-run create of the probe work, which the gate answers), and follows
// the serving certificate: in the Secret, in the file the webhook server
// reads, and as the webhook server serves it. The last is a TLS handshake
// of its own, trusting the Secret's CA as the API server does: the API
// server's calls go over connections it keeps open, which a certificate
// that expired since their handshake does not break, while a new
// connection (another API server, or this one restarted) would fail.
type gateWatch struct {
	mu       sync.Mutex
	probes   int
	failures []string // probes not admitted, handshakes failed
	// Each distinct certificate, in the order seen.
	secret, file, served []seenCert
	stopc, done          chan struct{}
}

// seenCert is a serving certificate (its SHA-256) and when it was first
// seen.
type seenCert struct {
	sum string
	at  time.Time
}

// watchGate starts a gateWatch of the gate k; stop ends it.
func (e *env) watchGate(t testing.TB, k *keptGate) *gateWatch {
	t.Helper()
	w := &gateWatch{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(probeEvery)
		defer tick.Stop()
		for {
			w.pass(t, e, k)
			select {
			case <-w.stopc:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(w.stop)
	return w
}

// pass probes the gate once and reads the certificate where it is kept.
func (w *gateWatch) pass(t testing.TB, e *env, k *keptGate) {
	probeErr := e.probeGate(t, k.probe)
	now := time.Now()
	var s corev1.Secret
	secretErr := e.c.Get(context.Background(), types.NamespacedName{Namespace: controllerNamespace, Name: keptSecret}, &s)
	file, fileErr := os.ReadFile(filepath.Join(k.certDir, corev1.TLSCertKey))
	var served string
	var handshakeErr error
	if secretErr == nil {
		served, handshakeErr = servedCert(k.addr, s.Data["ca.crt"])
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.probes++
	if probeErr != nil && !strings.Contains(probeErr.Error(), workgate.Marker) { // held by the gate: it answered
		w.failures = append(w.failures, fmt.Sprintf("%s probe: %v", now.Format("15:04:05.000"), probeErr))
	}
	if handshakeErr != nil {
		w.failures = append(w.failures, fmt.Sprintf("%s handshake: %v", now.Format("15:04:05.000"), handshakeErr))
	}
	if secretErr == nil {
		w.secret = noteCert(w.secret, certSum(s.Data[corev1.TLSCertKey]), now)
	}
	if fileErr == nil {
		w.file = noteCert(w.file, certSum(file), now)
	}
	w.served = noteCert(w.served, served, now)
}

// stop ends the watch and waits for its last pass.
func (w *gateWatch) stop() {
	select {
	case <-w.stopc:
	default:
		close(w.stopc)
	}
	<-w.done
}

// requireKept checks that the gate answered every probe and handshake,
// and that the serving certificate was renewed between from and to: in
// the Secret, then in the file, then in what the webhook server serves,
// every certificate served being one of the Secret's.
func (w *gateWatch) requireKept(t testing.TB, from, to time.Time) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	during := 0
	kept := map[string]bool{}
	for i, c := range w.secret {
		kept[c.sum] = true
		if i > 0 && !c.at.Before(from) && !c.at.After(to) {
			during++
		}
	}
	t.Logf("%d probes of the gate, %d failed; serving certificates: %d in the Secret (%d renewals, %d during the change's rollout), %d in the file, %d served",
		w.probes, len(w.failures), len(w.secret), len(w.secret)-1, during, len(w.file), len(w.served))
	assert.Empty(t, w.failures, "the gate did not answer")
	assert.Positive(t, during, "no renewal of the serving certificate during the change's rollout")
	assert.Greater(t, len(w.file), 1, "the files were never renewed")
	assert.Greater(t, len(w.served), 1, "the webhook server never served a renewed certificate")
	for _, c := range w.served {
		assert.True(t, kept[c.sum], "served a certificate the Secret never held (first served at %s)", c.at.Format("15:04:05.000"))
	}
	assert.Greater(t, w.probes, int(to.Sub(from)/probeEvery)/2, "too few probes for the time the rollout took")
}

// noteCert appends sum to seen unless it is empty or the last seen.
func noteCert(seen []seenCert, sum string, at time.Time) []seenCert {
	if sum == "" || len(seen) > 0 && seen[len(seen)-1].sum == sum {
		return seen
	}
	return append(seen, seenCert{sum: sum, at: at})
}

// certSum returns the SHA-256 of the first certificate of pemData, ""
// when there is none.
func certSum(pemData []byte) string {
	certs, err := cert.ParseCertsPEM(pemData)
	if err != nil || len(certs) == 0 {
		return ""
	}
	return derSum(certs[0])
}

func derSum(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	return hex.EncodeToString(sum[:8])
}

// servedCert returns the SHA-256 of the certificate the server at addr
// serves, which must verify against the CA bundle ca for 127.0.0.1, as the
// API server verifies it.
func servedCert(addr string, ca []byte) (string, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return "", fmt.Errorf("the Secret's ca.crt holds no certificate")
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr,
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return derSum(conn.ConnectionState().PeerCertificates[0]), nil
}
