package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// tap stands between one replica and the API server, as a plain-HTTP
// proxy on 127.0.0.1 that sends every request on with the replica's own
// client certificate (the audit log still names the replica). Armed, it
// makes the replica's next status write to an add-on meet a conflict for
// certain: it has a competing write made to that add-on first, so that
// the replica's patch, locked on the resourceVersion it read, is refused.
type tap struct {
	srv   *httptest.Server
	inner http.RoundTripper

	mu    sync.Mutex
	armed func(namespace, name string) error // the competing write; nil: not armed
	// refused receives the add-on (namespace/name) of the write refused
	// after the competing write, once the answer is on its way to the
	// replica.
	refused chan string
}

// newTap starts a tap that reaches the API server with cfg.
func newTap(cfg *rest.Config) (*tap, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	inner, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	t := &tap{inner: inner, refused: make(chan string, 1)}
	p := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     t,
		FlushInterval: -1, // watches stream
	}
	t.srv = httptest.NewServer(p)
	return t, nil
}

// kubeconfig returns a kubeconfig that reaches the API server through t,
// with no credentials of its own.
func (t *tap) kubeconfig() ([]byte, error) {
	return clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"hub": {Server: t.srv.URL}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"tap": {}},
		Contexts:       map[string]*clientcmdapi.Context{"hub": {Cluster: "hub", AuthInfo: "tap"}},
		CurrentContext: "hub",
	})
}

// arm makes the next status patch of an add-on through t meet compete
// first.
func (t *tap) arm(compete func(namespace, name string) error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.armed = compete
}

// RoundTrip sends r on; an armed tap first has the competing write made
// when r is a status patch of an add-on, and reports its refusal.
func (t *tap) RoundTrip(r *http.Request) (*http.Response, error) {
	ns, name, ok := addonStatusPatch(r)
	var compete func(string, string) error
	if ok {
		t.mu.Lock()
		compete, t.armed = t.armed, nil
		t.mu.Unlock()
	}
	if compete == nil {
		return t.inner.RoundTrip(r)
	}
	if err := compete(ns, name); err != nil {
		return nil, fmt.Errorf("tap: the competing write to %s/%s: %w", ns, name, err)
	}
	resp, err := t.inner.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusConflict {
		t.refused <- ns + "/" + name
	}
	return resp, err
}

// addonStatusPatch tells whether r patches the status of an add-on, and
// which: /apis/addon.open-cluster-management.io/VERSION/namespaces/NS/managedclusteraddons/NAME/status.
func addonStatusPatch(r *http.Request) (namespace, name string, ok bool) {
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method != http.MethodPatch || len(p) != 8 || p[1] != "addon.open-cluster-management.io" || p[3] != "namespaces" ||
		p[5] != "managedclusteraddons" || p[7] != "status" {
		return "", "", false
	}
	return p[4], p[6], true
}

// close stops the tap.
func (t *tap) close() { t.srv.Close() }
