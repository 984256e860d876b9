package sidebyside

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/hubplan"
)

// The work gate on a test hub: our controller serves it on 127.0.0.1 with
// a certificate it makes and keeps itself (-webhook-cert-secret), and the
// hub calls it through the shipped ValidatingWebhookConfiguration, whose
// webhooks' clientConfig name that address instead of the in-cluster
// Service. The controller puts its CA into every webhook and keeps their
// objectSelector to the add-ons it takes (workgate.Scope).
const (
	// gateManifests is the shipped configuration, from this package's
	// directory.
	gateManifests = "../../examples/controller/config/webhook/manifests.yaml"
	// gateNamespace and gateSecret name the Secret of the self-managed
	// certificate, in the namespace the shipped configuration's Service
	// is in.
	gateNamespace = "rolloutkit-system"
	gateSecret    = "rolloutkit-webhook-cert"
)

// gateServer is where our controller serves the work gate, and the
// configuration that sends the hub's calls there.
type gateServer struct {
	addr    string // host:port the hub calls the gate at
	serve   string // host:port of the controller's webhook server: addr, or the witness's target
	certDir string // where the controller writes the serving certificate
	metrics string // the controller's metrics endpoint, which counts refusals
	// config, webhooks and path name the installed configuration, its
	// webhooks (the one judging creates and updates first) and the path
	// that one is served at, as the shipped file has them.
	config   string
	webhooks []string
	path     string
	// client calls the gate as the API server does, trusting the CA the
	// controller injected; set by waitServing.
	client *http.Client
	// witness, when there is one, stands between the hub and the
	// controller and keeps what the gate was asked (witnessed).
	witness *witness
}

// newGateServer chooses the gate's addresses for a controller whose files
// go under dir: the hub calls the controller directly.
func newGateServer(tb testing.TB, dir string) *gateServer {
	tb.Helper()
	addr := freeAddr(tb)
	return &gateServer{addr: addr, serve: addr, metrics: freeAddr(tb), certDir: filepath.Join(dir, "webhook-certs")}
}

// witnessed puts a witness between the hub and the controller: the hub
// calls it at g.addr, and the controller serves at an address of its
// own. Call it before the controller starts.
func (g *gateServer) witnessed(tb testing.TB) {
	tb.Helper()
	g.serve = freeAddr(tb)
	g.witness = startWitness(tb, g.addr, g.serve, g.certDir)
}

// flags are our controller's flags that make it serve the gate at g.serve
// with a certificate of its own for 127.0.0.1, and inject its CA into the
// configuration install installed (call install first).
func (g *gateServer) flags() []string {
	return []string{"-webhook-bind-address", g.serve, "-webhook-cert-dir", g.certDir,
		"-webhook-cert-secret", gateNamespace + "/" + gateSecret, "-webhook-cert-hosts", "127.0.0.1",
		"-webhook-configuration", g.config}
}

// install creates the namespace of the certificate's Secret and the
// shipped ValidatingWebhookConfiguration, every webhook's clientConfig
// turned into https://g.addr with its shipped path, and no caBundle: the
// controller puts its CA there. The objectSelectors stay as shipped
// (selecting no work): the controller scopes them itself.
func (g *gateServer) install(ctx context.Context, h *hub) error {
	cfg, err := shippedGateConfiguration()
	if err != nil {
		return err
	}
	g.config, g.webhooks, g.path = cfg.Name, nil, *cfg.Webhooks[0].ClientConfig.Service.Path
	for i := range cfg.Webhooks {
		wh := &cfg.Webhooks[i]
		g.webhooks = append(g.webhooks, wh.Name)
		url := "https://" + g.addr + *wh.ClientConfig.Service.Path
		wh.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gateNamespace}}
	if _, err := h.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", gateNamespace, err)
	}
	if _, err := h.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("installing the work gate's configuration %s: %w", cfg.Name, err)
	}
	return nil
}

// shippedGateConfiguration reads the shipped configuration: webhooks each
// calling a Service at a path, the first of them the one that judges
// creates and updates (hubplan.WorkGateWebhook, the name the API
// server gives in a refusal), the others (deletes) after it.
func shippedGateConfiguration() (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	raw, err := os.ReadFile(gateManifests)
	if err != nil {
		return nil, err
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict(raw, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", gateManifests, err)
	}
	if cfg.Kind != "ValidatingWebhookConfiguration" || len(cfg.Webhooks) == 0 {
		return nil, fmt.Errorf("%s: found a %s with %d webhooks, want a ValidatingWebhookConfiguration with one or more", gateManifests, cfg.Kind, len(cfg.Webhooks))
	}
	var errs []error
	if cfg.Webhooks[0].Name != hubplan.WorkGateWebhook {
		errs = append(errs, fmt.Errorf("%s: the first webhook is %s, want %s", gateManifests, cfg.Webhooks[0].Name, hubplan.WorkGateWebhook))
	}
	for _, wh := range cfg.Webhooks {
		if s := wh.ClientConfig.Service; s == nil || s.Path == nil {
			errs = append(errs, fmt.Errorf("%s: webhook %s calls no Service path, want clientConfig.service.path", gateManifests, wh.Name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cfg, nil
}

// waitServing waits until the controller has put a CA into the
// configuration and the gate answers a review over TLS verified with that
// CA; exited names the programs that have exited, for a failure message.
func (g *gateServer) waitServing(ctx context.Context, tb testing.TB, h *hub, exited func() string) {
	tb.Helper()
	probe := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: gateNamespace, Name: "probe"}}
	require.EventuallyWithT(tb, func(c *assert.CollectT) {
		cfg, err := h.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, g.config, metav1.GetOptions{})
		if !assert.NoError(c, err) {
			return
		}
		for _, wh := range cfg.Webhooks {
			if !assert.NotEmpty(c, wh.ClientConfig.CABundle, "no caBundle injected into webhook %s yet%s", wh.Name, exited()) {
				return
			}
		}
		pool := x509.NewCertPool()
		if !assert.True(c, pool.AppendCertsFromPEM(cfg.Webhooks[0].ClientConfig.CABundle), "the injected caBundle holds no PEM certificate") {
			return
		}
		g.client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
		resp, err := g.review(ctx, probe, probe)
		assert.NoError(c, err, "the gate does not answer yet%s", exited())
		assert.True(c, err != nil || resp.Allowed, "the gate refused an unchanged work: %+v", resp)
	}, time.Minute, 200*time.Millisecond, "the work gate serving at %s", g.addr)
}

// scoped tells how the objectSelectors of the gate's webhooks, as the
// controller keeps them (workgate.Scope), treat two works by their
// labels: "" when every webhook selects the work labelled in and none
// selects the work labelled out (nil: no such work), else why not.
func (g *gateServer) scoped(ctx context.Context, h *hub, in, out labels.Set) (string, error) {
	cfg, err := h.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, g.config, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var why []string
	for _, wh := range cfg.Webhooks {
		sel, err := metav1.LabelSelectorAsSelector(wh.ObjectSelector)
		if err != nil {
			return "", fmt.Errorf("webhook %s: objectSelector: %w", wh.Name, err)
		}
		if !sel.Matches(in) {
			why = append(why, fmt.Sprintf("webhook %s's objectSelector %q does not select a work labelled %v", wh.Name, sel, in))
		}
		if out != nil && sel.Matches(out) {
			why = append(why, fmt.Sprintf("webhook %s's objectSelector %q selects a work labelled %v", wh.Name, sel, out))
		}
	}
	return strings.Join(why, "; "), nil
}

// review asks the gate about an update of a ManifestWork from old to new,
// as the API server asks it, at the address the hub calls, and returns its
// answer.
func (g *gateServer) review(ctx context.Context, old, new *workv1.ManifestWork) (*admissionv1.AdmissionResponse, error) {
	if g.client == nil {
		return nil, errors.New("the gate's CA is not known yet")
	}
	oldRaw, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	newRaw, err := json.Marshal(new)
	if err != nil {
		return nil, err
	}
	gvk := metav1.GroupVersionKind{Group: workv1.GroupName, Version: "v1", Kind: "ManifestWork"}
	gvr := metav1.GroupVersionResource{Group: workv1.GroupName, Version: "v1", Resource: "manifestworks"}
	req := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID(fmt.Sprintf("%s%d", reviewUIDPrefix, time.Now().UnixNano())), Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
			Namespace: new.Namespace, Name: new.Name, Operation: admissionv1.Update,
			Object: runtime.RawExtension{Raw: newRaw}, OldObject: runtime.RawExtension{Raw: oldRaw},
		},
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+g.addr+g.path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := g.client.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the gate answered %s", resp.Status)
	}
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decoding the gate's answer: %w", err)
	}
	if out.Response == nil {
		return nil, errors.New("the gate answered a review without a response")
	}
	return out.Response, nil
}

// refusals reads the controller's count of the writes the gate refused,
// by add-on and reason ("addon/reason").
func (g *gateServer) refusals(tb testing.TB) map[string]float64 {
	tb.Helper()
	resp, err := http.Get("http://" + g.metrics + "/metrics")
	require.NoError(tb, err)
	defer resp.Body.Close()
	out := map[string]float64{}
	err = eachSample(resp.Body, func(name string, labels map[string]string, v float64) {
		if name == metricGateRefusals {
			out[labels["addon"]+"/"+labels["reason"]] += v
		}
	})
	require.NoError(tb, err)
	return out
}

// metricGateRefusals is the controller's count of the writes the gate
// refused.
const metricGateRefusals = "rolloutkit_work_gate_refusals_total"

// webhookCalls are the API server's calls of validating webhooks, from
// its apiserver_admission_webhook_admission_duration_seconds histogram.
type webhookCalls struct {
	admitted, rejected float64
	seconds            float64 // their total duration, as the API server timed them
}

func (w webhookCalls) String() string {
	return fmt.Sprintf("%.0f times (%.0f admitted, %.0f rejected), %.1f ms a call", w.admitted+w.rejected, w.admitted, w.rejected, w.meanMillis())
}

// meanMillis is the mean duration of a call, in milliseconds; 0 without
// calls.
func (w webhookCalls) meanMillis() float64 {
	if n := w.admitted + w.rejected; n > 0 {
		return 1000 * w.seconds / n
	}
	return 0
}

// minus is the calls made since before.
func (w webhookCalls) minus(before webhookCalls) webhookCalls {
	return webhookCalls{admitted: w.admitted - before.admitted, rejected: w.rejected - before.rejected, seconds: w.seconds - before.seconds}
}

// addWebhookSample adds one sample of the API server's metrics to w, when
// it is one of the calls of the webhooks named (none: every validating
// webhook's).
func (w *webhookCalls) addWebhookSample(webhooks []string, name string, labels map[string]string, v float64) {
	if labels["type"] != "validating" || (len(webhooks) > 0 && !slices.Contains(webhooks, labels["name"])) {
		return
	}
	switch name {
	case "apiserver_admission_webhook_admission_duration_seconds_count":
		if labels["rejected"] == "true" {
			w.rejected += v
		} else {
			w.admitted += v
		}
	case "apiserver_admission_webhook_admission_duration_seconds_sum":
		w.seconds += v
	}
}

// gateCalls reads the API server's calls of the gate's webhooks.
func (g *gateServer) gateCalls(ctx context.Context, tb testing.TB, h *hub) webhookCalls {
	tb.Helper()
	raw, err := h.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	require.NoError(tb, err)
	var w webhookCalls
	require.NoError(tb, eachSample(bytes.NewReader(raw), func(name string, labels map[string]string, v float64) {
		w.addWebhookSample(g.webhooks, name, labels, v)
	}))
	return w
}

// withImage returns a copy of w whose Deployments run image, as a
// renderer that read a config's other spec would write it.
func withImage(tb testing.TB, w *workv1.ManifestWork, image string) *workv1.ManifestWork {
	tb.Helper()
	out := w.DeepCopy()
	for i, m := range out.Spec.Workload.Manifests {
		var obj map[string]any
		require.NoError(tb, json.Unmarshal(m.Raw, &obj))
		if obj["kind"] != "Deployment" {
			continue
		}
		containers, _ := nestedSlice(obj, "spec", "template", "spec", "containers")
		for _, c := range containers {
			if cm, ok := c.(map[string]any); ok {
				cm["image"] = image
			}
		}
		raw, err := json.Marshal(obj)
		require.NoError(tb, err)
		out.Spec.Workload.Manifests[i].Raw = raw
	}
	require.Equal(tb, image, workImage(out), "the work %s/%s carries no Deployment to change", w.Namespace, w.Name)
	return out
}

// nestedSlice reads a list at a path of JSON objects.
func nestedSlice(obj map[string]any, path ...string) ([]any, bool) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur = m[p]
	}
	s, ok := cur.([]any)
	return s, ok
}
