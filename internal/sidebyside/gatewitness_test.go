package sidebyside

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// A witness stands between the hub and the gate: the API server calls it
// at the address the configuration names, it passes each request on to
// our controller's webhook server unchanged and the answer back, and it
// keeps what it was asked and what the gate answered. So a test can say
// which works the gate was asked about, not only how many calls the API
// server made. It serves the controller's own certificate (the pair the
// controller writes into its -webhook-cert-dir), which the CA the
// controller injects verifies.

// reviewUIDPrefix starts the UID of every review the test itself sends
// the gate (gateServer.review); the witness keeps only the API server's.
const reviewUIDPrefix = "sidebyside-"

// gateCall is one request the API server sent the gate, and its answer.
type gateCall struct {
	at              time.Time
	operation       string // CREATE, UPDATE, DELETE
	namespace, name string
	addons          []string // the addon-name labels of the work and the stored work, each once
	allowed         bool
	message         string // the gate's message, for a refusal
}

func (c gateCall) String() string {
	verdict := "admitted"
	if !c.allowed {
		verdict = "refused: " + c.message
	}
	return fmt.Sprintf("%s %s/%s (add-ons %v) %s", c.operation, c.namespace, c.name, c.addons, verdict)
}

// witness is the server the hub calls the gate through.
type witness struct {
	certDir string // where the controller writes its serving pair
	target  string // https://host:port of the controller's webhook server
	server  *http.Server
	client  *http.Client

	mu    sync.Mutex
	calls []gateCall
}

// startWitness serves on addr, passing every request on to the webhook
// server at target (host:port) that serves the pair in certDir; it stops
// with tb.
func startWitness(tb testing.TB, addr, target, certDir string) *witness {
	tb.Helper()
	w := &witness{certDir: certDir, target: "https://" + target}
	w.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The controller's certificate is pinned: the one in certDir.
		InsecureSkipVerify: true, //nolint:gosec // verified by VerifyConnection
		VerifyConnection:   w.pinned,
	}}}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("the gate's witness: %v", err)
	}
	w.server = &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: w.certificate}}
	go func() { _ = w.server.ServeTLS(l, "", "") }()
	tb.Cleanup(func() {
		_ = w.server.Close()
		w.client.CloseIdleConnections()
	})
	return w
}

// certificate reads the controller's serving pair at every handshake:
// it is there only once the controller has started, and the controller
// renews it.
func (w *witness) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(filepath.Join(w.certDir, "tls.crt"), filepath.Join(w.certDir, "tls.key"))
	if err != nil {
		return nil, fmt.Errorf("the controller's serving pair in %s: %w", w.certDir, err)
	}
	return &c, nil
}

// pinned verifies that the webhook server the witness calls serves the
// certificate the controller wrote.
func (w *witness) pinned(cs tls.ConnectionState) error {
	raw, err := os.ReadFile(filepath.Join(w.certDir, "tls.crt"))
	if err != nil {
		return err
	}
	block, _ := pem.Decode(raw) // the leaf comes first
	if block == nil || len(cs.PeerCertificates) == 0 || !bytes.Equal(cs.PeerCertificates[0].Raw, block.Bytes) {
		return errors.New("the webhook server does not serve the certificate the controller wrote")
	}
	return nil
}

// ServeHTTP passes a review on to the gate and its answer back, and keeps
// both.
func (w *witness) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	fwd, err := http.NewRequestWithContext(req.Context(), req.Method, w.target+req.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadGateway)
		return
	}
	fwd.Header.Set("Content-Type", req.Header.Get("Content-Type"))
	resp, err := w.client.Do(fwd)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadGateway)
		return
	}
	if resp.StatusCode == http.StatusOK {
		w.keep(body, answer)
	}
	rw.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	rw.WriteHeader(resp.StatusCode)
	_, _ = rw.Write(answer)
}

// keep records one exchange of the API server's with the gate; what does
// not decode as a review, and the test's own reviews, are not kept.
func (w *witness) keep(request, answer []byte) {
	var in, out admissionv1.AdmissionReview
	if json.Unmarshal(request, &in) != nil || json.Unmarshal(answer, &out) != nil || in.Request == nil || out.Response == nil {
		return
	}
	if strings.HasPrefix(string(in.Request.UID), reviewUIDPrefix) {
		return
	}
	c := gateCall{at: time.Now(), operation: string(in.Request.Operation), namespace: in.Request.Namespace, name: in.Request.Name,
		allowed: out.Response.Allowed}
	for _, raw := range [][]byte{in.Request.Object.Raw, in.Request.OldObject.Raw} {
		if a := addonLabel(raw); a != "" && !slices.Contains(c.addons, a) {
			c.addons = append(c.addons, a)
		}
	}
	if out.Response.Result != nil {
		c.message = out.Response.Result.Message
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, c)
}

// addonLabel is the addon-name label of a work's JSON; "" without one.
func addonLabel(raw []byte) string {
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	return obj.Metadata.Labels[addonv1alpha1.AddonLabelKey]
}

// seen returns a copy of the calls kept so far.
func (w *witness) seen() []gateCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.calls)
}

// about returns the calls about a work of the named add-on.
func about(calls []gateCall, addon string) []gateCall {
	var out []gateCall
	for _, c := range calls {
		if slices.Contains(c.addons, addon) {
			out = append(out, c)
		}
	}
	return out
}
