package testhub

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// convertPath is where the conversion webhook is served, as OCM serves it.
const convertPath = "/convert"

// maxReviewBytes bounds a ConversionReview read: the API server converts
// a list in pages of objects well under this.
const maxReviewBytes = 64 << 20

// conversionWebhook serves the conversion of ClusterManagementAddOns and
// ManagedClusterAddOns between v1alpha1 and v1beta1 on 127.0.0.1, over
// HTTPS with a CA of its own, as OCM's add-on manager serves it on a real
// hub; the add-on CRDs are installed to call it (webhookCRD).
type conversionWebhook struct {
	url    string // https://127.0.0.1:PORT/convert
	caPEM  []byte // the CA of its certificate
	server *http.Server
	served chan error // the server's end, once stopped
}

// startConversionWebhook starts the webhook on a free port of 127.0.0.1.
func startConversionWebhook() (*conversionWebhook, error) {
	ip := net.IPv4(127, 0, 0, 1)
	caPEM, cert, err := servingCert(ip)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		return nil, fmt.Errorf("conversion webhook: %w", err)
	}
	w := &conversionWebhook{
		url:    "https://" + ln.Addr().String() + convertPath,
		caPEM:  caPEM,
		served: make(chan error, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+convertPath, serveConversion)
	w.server = &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { w.served <- w.server.ServeTLS(ln, "", "") }()
	return w, nil
}

// stop stops the webhook, letting requests in flight finish for up to 5
// seconds.
func (w *conversionWebhook) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := w.server.Shutdown(ctx)
	if served := <-w.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	if err != nil {
		return fmt.Errorf("stopping the conversion webhook: %w", err)
	}
	return nil
}

// serveConversion answers one ConversionReview (apiextensions.k8s.io/v1).
func serveConversion(rw http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(rw, fmt.Sprintf("want a ConversionReview with a request: %v", err), http.StatusBadRequest)
		return
	}
	review.Response = convertReview(review.Request)
	review.Request = nil
	rw.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(rw).Encode(&review); err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
	}
}

// crds returns the add-on CRDs among files, read and set to convert
// through w, and the other files.
func (w *conversionWebhook) crds(files []string) ([]*apiextensionsv1.CustomResourceDefinition, []string, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	var rest []string
	for _, f := range files {
		if !isAddonCRD(f) {
			rest = append(rest, f)
			continue
		}
		crd, err := w.webhookCRD(f)
		if err != nil {
			return nil, nil, err
		}
		crds = append(crds, crd)
	}
	if len(crds) != 2 {
		return nil, nil, fmt.Errorf("found %d of the add-on CRDs %s and %s in %q: want both", len(crds), cmaCRDFile, mcaCRDFile, files)
	}
	return crds, rest, nil
}

func isAddonCRD(file string) bool {
	f := filepath.ToSlash(file)
	return strings.HasSuffix(f, cmaCRDFile) || strings.HasSuffix(f, mcaCRDFile)
}

// webhookCRD reads the CustomResourceDefinition in file (OCM's YAML) and
// has it convert between its versions by calling w, as OCM's
// cluster-manager installs it, instead of by changing apiVersion alone
// (strategy None, which drops every field the other version lacks).
func (w *conversionWebhook) webhookCRD(file string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	url := w.url
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: w.caPEM},
			ConversionReviewVersions: []string{"v1"},
		},
	}
	return crd, nil
}
