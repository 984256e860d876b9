package testhub

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Option changes how Start starts a hub.
type Option func(*Hub) error

// configure gives the hub a directory of its own and applies opts. The
// API server keeps its certificates there rather than in a directory envtest
// makes and deletes when it stops: a restarted API server then serves the
// same certificate, trusts the same client CA and listens on the same
// address, so that every client's config still works (RestartAPIServer).
func (h *Hub) configure(opts []Option) error {
	dir, err := os.MkdirTemp("", "rolloutkit-testhub-")
	if err != nil {
		return err
	}
	h.files = dir
	certs := filepath.Join(dir, "apiserver")
	if err := os.Mkdir(certs, 0o700); err != nil {
		return err
	}
	h.env.ControlPlane.GetAPIServer().CertDir = certs
	// Stopped, the API server waits for its open watches to end, up to its
	// request timeout (60s), unless it first refuses new requests (429,
	// Retry-After) and then gives the watches 2s: the graceful stop that
	// StopAPIServer needs to take seconds, not a minute.
	h.env.ControlPlane.GetAPIServer().Configure().Set("shutdown-send-retry-after", "true")
	for _, o := range opts {
		if err := o(h); err != nil {
			return err
		}
	}
	return nil
}

// StopAPIServer stops kube-apiserver and leaves etcd running: the hub's
// data stays, and nothing answers on the API server's address until
// StartAPIServer.
func (h *Hub) StopAPIServer() error {
	if err := h.env.ControlPlane.APIServer.Stop(); err != nil {
		return fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	return nil
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the
// same address with the same certificates and flags, and returns once it
// reports healthy.
func (h *Hub) StartAPIServer() error {
	if err := h.env.ControlPlane.APIServer.Start(); err != nil {
		return fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	return nil
}

// RestartAPIServer stops kube-apiserver, waits downFor, and starts it
// again (StopAPIServer, StartAPIServer).
func (h *Hub) RestartAPIServer(downFor time.Duration) error {
	if err := h.StopAPIServer(); err != nil {
		return err
	}
	time.Sleep(downFor)
	return h.StartAPIServer()
}

// compactionKey is the etcd key CompactEtcd writes to move the revision on.
const compactionKey = "/rolloutkit-testhub/compaction"

// CompactEtcd compacts etcd's history up to a revision newer than any
// resourceVersion the API server has handed out so far, and returns it: a
// watch that resumes from one of those resourceVersions against etcd is
// refused as too old (410 Gone), as on a hub where kube-apiserver's own
// compaction (every five minutes by default) has passed it. It writes a
// key of its own twice first, so that even the newest resourceVersion is
// strictly older than the compacted revision's predecessor.
//
// It speaks etcd's JSON gateway (/v3/kv/...), which etcd serves on its
// client URL, so that the test needs no etcd client module.
func (h *Hub) CompactEtcd(ctx context.Context) (int64, error) {
	var rev int64
	for range 2 {
		var put struct {
			Header struct {
				Revision string `json:"revision"`
			} `json:"header"`
		}
		err := h.etcd(ctx, "/v3/kv/put", map[string]string{
			"key":   base64.StdEncoding.EncodeToString([]byte(compactionKey)),
			"value": base64.StdEncoding.EncodeToString([]byte(time.Now().UTC().Format(time.RFC3339Nano))),
		}, &put)
		if err != nil {
			return 0, err
		}
		if rev, err = strconv.ParseInt(put.Header.Revision, 10, 64); err != nil {
			return 0, fmt.Errorf("etcd put: revision %q: want an integer", put.Header.Revision)
		}
	}
	if err := h.etcd(ctx, "/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}, nil); err != nil {
		return 0, err
	}
	return rev, nil
}

// etcd posts req to etcd's JSON gateway at path and decodes the answer
// into resp (nil: drop it).
func (h *Hub) etcd(ctx context.Context, path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	u := h.env.ControlPlane.Etcd.URL.JoinPath(path)
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", path, res.Status, b)
	}
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(b, resp); err != nil {
		return fmt.Errorf("etcd %s: %w: %s", path, err, b)
	}
	return nil
}

// KubeConfigAs returns a kubeconfig of the hub for user, a member of
// groups, authenticated by a client certificate of its own: the API
// server's audit log names each such client apart. It may be called while
// the API server restarts: it reads nothing that a restart writes.
func (h *Hub) KubeConfigAs(user string, groups ...string) ([]byte, error) {
	cfg, err := h.env.ControlPlane.APIServer.SecureServing.Authn.AddUser(envtest.User{Name: user, Groups: groups}, h.Config)
	if err != nil {
		return nil, err
	}
	return clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"hub": {Server: cfg.Host, CertificateAuthorityData: cfg.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{user: {ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}},
		Contexts:       map[string]*clientcmdapi.Context{"hub": {Cluster: "hub", AuthInfo: user}},
		CurrentContext: "hub",
	})
}
