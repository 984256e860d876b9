package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// workGateManifest is the ValidatingWebhookConfiguration the controller
// ships for the work gate.
const workGateManifest = "../config/webhook/manifests.yaml"

// gateProbeName names the namespace and the ManifestWork the harness
// creates (dry run) to learn that the API server calls the gate: labelled
// with the test's add-on, which the gate's scope selects, in a namespace
// that is no cluster's, so that nothing stored changes and the gate
// answers from what it reads of no add-on.
const gateProbeName = "rolloutkit-work-gate-probe"

// gated is a running controller that serves the work gate.
type gated struct {
	*running
	// URL is where the API server calls the gate.
	URL  string
	spec gateSpec
	// metrics are the registries of this controller's gate, then of those
	// it replaced (restartGated).
	metrics []*prometheus.Registry
}

// gateSpec is how a gated controller runs: kept to start it again.
type gateSpec struct {
	cfg     *rest.Config
	tune    func(*ctrl.Options)
	opts    hubctl.Options
	port    int
	certDir string
}

// url is where the API server calls the gate's webhook server.
func (s gateSpec) url() string {
	return fmt.Sprintf("https://127.0.0.1:%d", s.port)
}

// refusals returns the ManifestWork writes the gate refused so far, by
// add-on and reason ("cluster-proxy ConfigMovedOn"), counted by this
// controller and those it replaced.
func (g *gated) refusals(t testing.TB) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, reg := range g.metrics {
		families, err := reg.Gather()
		require.NoError(t, err)
		for _, f := range families {
			if f.GetName() != rolloutmetrics.MetricWorkGateRefusals {
				continue
			}
			for _, m := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				out[labels["addon"]+" "+labels["reason"]] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// total returns how many ManifestWork writes the gate refused so far, of
// every add-on and for every reason.
func (g *gated) total(t testing.TB) int {
	t.Helper()
	n := 0.0
	for _, v := range g.refusals(t) {
		n += v
	}
	return int(n)
}

// gatedController starts the controller as e.controller does (every
// reconciler, taking the add-ons annotated testhub.Lifecycle, as the hub's
// administrator) with the work gate on: see startGated.
func (e *env) gatedController(t testing.TB) *gated {
	t.Helper()
	return e.startGated(t, e.hub.Config, func(*ctrl.Options) {},
		hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{e.lifecycle}})
}

// startGated runs a manager as cfg's identity, its options changed by
// tune, with what opts registers and the work gate on, and installs the
// gate on the hub as the controller ships it. The gate is served over TLS
// by controller-runtime's webhook server on 127.0.0.1, at a free port, with
// a serving certificate made here; the hub gets the shipped
// ValidatingWebhookConfiguration with its clientConfig changed, to that
// URL and that certificate's CA, already scoped to the test's add-on (as
// the controller scopes it once it runs). opts.Metrics is replaced by a
// registry of the gate's own (gated.refusals reads it).
//
// It returns once the API server calls the gate and the gate answers: the
// configuration is installed first, and a dry-run create of a probe work
// fails to reach it; then the manager starts, and the same create is
// answered. Between the two, every create and content change of the
// add-on's works on the hub is refused (failurePolicy Fail): start it
// before anything writes works.
func (e *env) startGated(t testing.TB, cfg *rest.Config, tune func(*ctrl.Options), opts hubctl.Options) *gated {
	t.Helper()
	dir, ca := servingCert(t)
	s := gateSpec{cfg: cfg, tune: tune, opts: opts, port: freeLoopbackPort(t), certDir: dir}
	probe := e.gateProbe(t)
	e.installWorkGate(t, s.url(), ca)
	e.gateCalled(t, probe)
	return e.runGated(t, s, probe, nil)
}

// gateCalled waits until the API server calls the work gate, which does
// not answer yet, on a dry-run create of probe.
func (e *env) gateCalled(t testing.TB, probe *workv1.ManifestWork) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		err := e.probeGate(ct, probe)
		require.Error(ct, err, "the API server admitted the probe without the gate")
		assert.Contains(ct, err.Error(), fmt.Sprintf("failed calling webhook %q", gatehook.WorkGateWebhook))
	}, 30*time.Second, poll, "the API server calls the work gate")
}

// restartGated starts a controller in place of g, which must have
// stopped: as the same identity, with the same options, serving the gate
// at the same address with the same certificate, as a replica behind the
// Service would. It returns once the gate answers again.
func (e *env) restartGated(t testing.TB, g *gated) *gated {
	t.Helper()
	select {
	case <-g.done:
	default:
		t.Fatal("restartGated: the gated controller is still running: stop it first")
	}
	return e.runGated(t, g.spec, e.gateProbe(t), g.metrics)
}

// runGated starts the manager of s and waits until the gate answers a
// dry-run create of probe; earlier are the registries of the controllers
// it replaces.
func (e *env) runGated(t testing.TB, s gateSpec, probe *workv1.ManifestWork, earlier []*prometheus.Registry) *gated {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts := s.opts
	opts.WorkGate, opts.Metrics = true, reg
	r := e.startManager(t, s.cfg, func(o *ctrl.Options) {
		s.tune(o)
		o.WebhookServer = crwebhook.NewServer(crwebhook.Options{Host: "127.0.0.1", Port: s.port, CertDir: s.certDir})
	}, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, opts)
		return err
	})
	e.gateAnswers(t, probe)
	return &gated{running: r, URL: s.url(), spec: s, metrics: append([]*prometheus.Registry{reg}, earlier...)}
}

// servingCert makes a self-signed serving certificate for 127.0.0.1 and
// writes it where controller-runtime's webhook server reads it (tls.crt,
// tls.key in the returned directory); ca is the PEM of the CA that signed
// it, for a caBundle.
func servingCert(t testing.TB) (dir string, ca []byte) {
	t.Helper()
	crt, key, err := cert.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	require.NoError(t, err)
	chain, err := cert.ParseCertsPEM(crt) // the serving certificate, then its CA
	require.NoError(t, err)
	require.Len(t, chain, 2, "GenerateSelfSignedCertKey's bundle")
	ca, err = cert.EncodeCertificates(chain[len(chain)-1])
	require.NoError(t, err)
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), crt, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), key, 0o600))
	return dir, ca
}

// freeLoopbackPort returns a TCP port free on 127.0.0.1 a moment ago.
func freeLoopbackPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// shippedWorkGate reads the work gate's ValidatingWebhookConfiguration
// from the controller's manifests: the one document of that kind.
func shippedWorkGate(t testing.TB) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	data, err := os.ReadFile(workGateManifest)
	require.NoError(t, err)
	var found []*admissionregistrationv1.ValidatingWebhookConfiguration
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		var meta metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal(doc, &meta))
		if meta.Kind != "ValidatingWebhookConfiguration" {
			continue
		}
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		require.NoError(t, yaml.UnmarshalStrict(doc, vwc), "%s", workGateManifest)
		found = append(found, vwc)
	}
	require.Len(t, found, 1, "ValidatingWebhookConfigurations in %s", workGateManifest)
	return found[0]
}

// gateWebhooks are the webhooks of the shipped configuration: the gate's,
// and the one of deletes.
var gateWebhooks = []string{gatehook.WorkGateWebhook, gatehook.WorkGateDeletionWebhook}

// installWorkGate creates on the hub the shipped configuration, each of
// its webhooks calling url (plus the path of its service) and trusting ca
// instead of calling the in-cluster Service, scoped to the test's add-on
// as the controller scopes it.
func (e *env) installWorkGate(t testing.TB, url string, ca []byte) {
	t.Helper()
	vwc := shippedWorkGate(t)
	require.Equal(t, gatehook.WorkGateConfiguration, vwc.Name, "%s", workGateManifest)
	require.Len(t, vwc.Webhooks, len(gateWebhooks), "%s", workGateManifest)
	for i := range vwc.Webhooks {
		wh := &vwc.Webhooks[i]
		require.Equal(t, gateWebhooks[i], wh.Name, "%s", workGateManifest)
		require.NotNil(t, wh.ClientConfig.Service, "%s: the webhook calls no service", workGateManifest)
		path := ptr.Deref(wh.ClientConfig.Service.Path, "")
		require.Equal(t, gatehook.WorkGatePath, path, "%s: the service's path", workGateManifest)
		wh.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + path), CABundle: ca}
	}
	scoped, _, err := workgate.Scoped(vwc, gateWebhooks, []string{e.addonName})
	require.NoError(t, err)
	require.NoError(t, e.c.Create(context.Background(), scoped))
}

// gateProbe is the probe work, not stored: in a namespace of its own (made
// at the first call), labelled with the test's add-on.
func (e *env) gateProbe(t testing.TB) *workv1.ManifestWork {
	t.Helper()
	err := e.c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gateProbeName}})
	require.NoError(t, client.IgnoreAlreadyExists(err))
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Namespace: gateProbeName, Name: gateProbeName,
			Labels: map[string]string{addonv1alpha1.AddonLabelKey: e.addonName}},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{probeManifest(t, "0")}}},
	}
}

// gateAnswers waits until the work gate answers a dry-run create of
// probe: it admits it, or holds it with its own message (while a
// rendering rollout is under way, say).
func (e *env) gateAnswers(t testing.TB, probe *workv1.ManifestWork) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		if err := e.probeGate(ct, probe); err != nil {
			assert.Contains(ct, err.Error(), workgate.Marker, "the gate does not answer")
		}
	}, 60*time.Second, poll, "the work gate answers")
}

// probeGate sends a dry-run create of the probe work, which the API server
// checks with the gate.
func (e *env) probeGate(t tb, w *workv1.ManifestWork) error {
	next := w.DeepCopy()
	next.Spec.Workload.Manifests = []workv1.Manifest{probeManifest(t, time.Now().Format(time.RFC3339Nano))}
	return e.c.Create(context.Background(), next, client.DryRunAll)
}

// probeManifest is a ConfigMap whose data says at.
func probeManifest(t tb, at string) workv1.Manifest {
	t.Helper()
	raw, err := json.Marshal(&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: gateProbeName}, Data: map[string]string{"at": at}})
	require.NoError(t, err)
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
}
