package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// TestMetricsSecure runs the compiled controller as the ServiceAccount
// config/default installs, with the metrics endpoint as the Deployment
// serves it (-metrics-bind-address alone: secure by default), on a hub
// whose AddOnRollout pauses the seed's add-on. The endpoint answers only
// what the hub's API server authenticates and authorizes:
//
//   - plain HTTP gets a 400 and no metric;
//   - HTTPS without a token: 401;
//   - a ServiceAccount's token, without the metrics-reader role: 403;
//   - once the shipped role is bound to it: 200, with the rollout's
//     metrics, why its groups wait (Paused) and the add-on's Valid and
//     Paused among them.
//
// The ServiceAccount, its binding and the scrape are the README's ("Scrape
// its metrics"), run as written.
//
// And the controller logs JSON by default: every line of its log is a
// JSON object at info level or above.
func TestMetricsSecure(t *testing.T) {
	t.Parallel()
	// A hub of its own: the shipped RBAC is cluster-wide, under its own
	// names.
	e := newEnv(t)
	ctx := context.Background()
	e.installRBAC(t)
	kubeconfig := writeKubeconfig(t, e.serviceAccountConfig(t))
	kc, err := e.hub.KubeConfig()
	require.NoError(t, err)
	admin := filepath.Join(t.TempDir(), "admin.kubeconfig")
	require.NoError(t, os.WriteFile(admin, kc, 0o600))
	seedHub(t, e, "30s")
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}))

	addr := hubtest.FreeAddr(t)
	logs := filepath.Join(t.TempDir(), "controller.log")
	ctl := startControllerBinary(t, logs, "-kubeconfig", kubeconfig, "-placements", "-lifecycle", testhub.Lifecycle, "-metrics-bind-address", addr,
		"-health-probe-bind-address", "0", "-webhook-bind-address", "0")
	url := "https://" + addr + "/metrics"
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		code, _, err := scrapeWith(url, "")
		require.NoError(ct, err)
		assert.Equal(ct, http.StatusUnauthorized, code)
	}, 30*time.Second, poll, "the metrics endpoint serves HTTPS")

	t.Run("plain HTTP", func(t *testing.T) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return // the connection closed: nothing served either
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", body)
		assert.NotContains(t, string(body), "rolloutkit_")
	})

	// The README's walk-through, on this hub and this endpoint.
	readme := func(prefix string) string {
		line := readmeLine(t, "#### Scrape its metrics", prefix)
		return strings.ReplaceAll(strings.ReplaceAll(line, "/tmp/hub.kubeconfig", admin), "127.0.0.1:8443", addr)
	}
	runREADME(t, admin, readme("kubectl --kubeconfig /tmp/hub.kubeconfig apply -f examples/controller/config/rbac/metrics_reader_role.yaml"))
	runREADME(t, admin, readme("kubectl --kubeconfig /tmp/hub.kubeconfig create serviceaccount "))
	scraper := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "metrics-scraper"}}
	code, body, err := scrapeWith(url, e.token(t, scraper))
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, code, body)
	assert.NotContains(t, body, "rolloutkit_")
	assert.Contains(t, body, "system:serviceaccount:default:metrics-scraper")

	runREADME(t, admin, readme("kubectl --kubeconfig /tmp/hub.kubeconfig create clusterrolebinding "))
	// A new token: the endpoint caches a denial for 30 s, by user and
	// token (its credential ID).
	token := e.token(t, scraper)
	const placement = `placement="open-cluster-management/cluster-proxy-placement"`
	want := []string{
		`rolloutkit_group_phase{addon="cluster-proxy",group="dev",phase="Blocked",` + placement + `} 1`,
		`rolloutkit_group_waiting{addon="cluster-proxy",group="dev",` + placement + `,waits_for="Paused"} 1`,
		`rolloutkit_group_waiting{addon="cluster-proxy",group="prod",` + placement + `,waits_for="Paused"} 1`,
		`rolloutkit_paused{addon="cluster-proxy"} 1`,
		`rolloutkit_valid{addon="cluster-proxy"} 1`,
	}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		code, body, err := scrapeWith(url, token)
		require.NoError(ct, err)
		require.Equal(ct, http.StatusOK, code, body)
		var ours []string
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, "rolloutkit_") {
				ours = append(ours, line)
			}
		}
		for _, w := range want {
			assert.Contains(ct, ours, w)
		}
	}, 60*time.Second, poll, "the metrics, to the metrics reader")
	out := runREADME(t, admin, readme("TOKEN=")+"\n"+readme("curl "))
	for _, w := range want {
		assert.Contains(t, out, w, "the README's scrape")
	}

	ctl.stop(t)
	jsonLogs(t, logs)
}

// token returns a new token of sa, from the TokenRequest API.
func (e *env) token(t *testing.T, sa *corev1.ServiceAccount) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(e.hub.Config)
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(context.Background(), sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return tr.Status.Token
}

// scrapeWith gets url over HTTPS with token as the bearer token ("":
// none), as curl -k does: the certificate is the controller's self-signed
// one.
func scrapeWith(url, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the controller's self-signed certificate
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// writeKubeconfig writes a kubeconfig of cfg's server, CA and bearer token,
// and returns its path.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["hub"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["hub"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["hub"] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: "hub"}
	kc.CurrentContext = "hub"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// process is a running controller binary.
type process struct {
	cmd  *exec.Cmd
	done chan error
}

// startControllerBinary runs the compiled controller with args, its output
// in the file logs; a failed test logs its end.
func startControllerBinary(t *testing.T, logs string, args ...string) *process {
	t.Helper()
	return startBinary(t, shared.controller.get(t), logs, args...)
}

// stop interrupts the controller and checks it stops cleanly.
func (p *process) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	select {
	case err := <-p.done:
		require.NoError(t, err, "the controller's exit")
		p.done <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("the controller did not stop within 30s of the interrupt")
	}
}

// jsonLogs checks that every line of the log file is a JSON object at
// info level or above, and that the controller logged its start.
func jsonLogs(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	var msgs []string
	for sc.Scan() {
		var entry struct{ Level, Msg string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &entry), "a log line that is not JSON: %s", sc.Text())
		assert.Contains(t, []string{"info", "error"}, entry.Level, sc.Text())
		msgs = append(msgs, entry.Msg)
	}
	require.NoError(t, sc.Err())
	assert.Contains(t, msgs, "starting")
}
