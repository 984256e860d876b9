package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"help", []string{"-h"}, 0, "usage: controller -kubeconfig FILE"},
		{"unknown flag", []string{"-bogus"}, 2, "flag provided but not defined: -bogus"},
		{"argument", []string{"now"}, 2, `unexpected arguments ["now"]`},
		{"version", []string{"-addon-version", "v2"}, 2, `-addon-version "v2": want v1alpha1 or v1beta1`},
		{"simulated agents are testhub's", []string{"-simulate-agents", "2s"}, 2, "flag provided but not defined: -simulate-agents"},
		{"bad OCM placement lease", []string{"-placements", "-ocm-placement-lease", "placement-lock"}, 2,
			`-ocm-placement-lease "placement-lock": want NAMESPACE/NAME of a Lease, such as open-cluster-management-hub/placement-lock`},
		{"negative approval retention", []string{"-approval-retention", "-1h"}, 2, "-approval-retention -1h0m0s: want a duration of 0"},
		{"nothing to run", []string{"-addons=false"}, 2, "-addons=false without -placements: nothing to run"},
		{"no kubeconfig", []string{"-kubeconfig", "/nonexistent/kubeconfig"}, 2, `-kubeconfig "/nonexistent/kubeconfig"`},
		{"empty lifecycle", []string{"-lifecycle", ""}, 2, `-lifecycle "": want comma-separated annotation values, none empty`},
		{"empty lifecycle in a list", []string{"-lifecycle", "rolloutkit,,addon-manager"}, 2, `-lifecycle "rolloutkit,,addon-manager": want comma-separated annotation values, none empty`},
		{"lease shorter than renewal", []string{"-leader-elect-lease-duration", "5s", "-leader-elect-renew-deadline", "10s"}, 2,
			"-leader-elect-lease-duration 5s, -leader-elect-renew-deadline 10s, -leader-elect-retry-period 2s: want lease duration > renew deadline > 1.2 x retry period > 0"},
		{"no retry period", []string{"-leader-elect-retry-period", "0s"}, 2, "-leader-elect-retry-period 0s: want lease duration > renew deadline"},
		{"webhook port alone", []string{"-webhook-bind-address", "9443"}, 2, `-webhook-bind-address "9443": want host:port with a port from 1 to 65535, such as :9443, or "0" to turn the webhook server off`},
		{"webhook port out of range", []string{"-webhook-bind-address", ":70000"}, 2, `-webhook-bind-address ":70000": want host:port`},
		{"webhook port zero", []string{"-webhook-bind-address", "127.0.0.1:0"}, 2, `-webhook-bind-address "127.0.0.1:0": want host:port`},
		{"secret without namespace", []string{"-webhook-cert-secret", "rolloutkit-webhook-cert"}, 2, `-webhook-cert-secret "rolloutkit-webhook-cert": want NAMESPACE/NAME of a Secret`},
		{"hosts without secret", []string{"-webhook-cert-hosts", "127.0.0.1"}, 2, "-webhook-cert-hosts needs -webhook-cert-secret"},
		{"configuration without secret", []string{"-webhook-configuration", "gate"}, 2, "-webhook-configuration needs -webhook-cert-secret"},
		{"bad host", []string{"-webhook-cert-secret", "ns/cert", "-webhook-cert-hosts", "127.0.0.1,not a host"}, 2,
			`-webhook-cert-hosts "127.0.0.1,not a host": "not a host" is neither a DNS name nor an IP address`},
		{"every gate problem at once", []string{"-webhook-bind-address", "x", "-webhook-cert-secret", "ns/Cert", "-webhook-configuration", "Gate!"}, 2,
			`-webhook-bind-address "x": want host:port with a port from 1 to 65535, such as :9443, or "0" to turn the webhook server off` + "\n" +
				`-webhook-cert-secret "ns/Cert": want NAMESPACE/NAME of a Secret` + "\n" + `-webhook-configuration "Gate!": "Gate!" is not the name of a webhook configuration`},
		{"cert dir without certificate", []string{"-webhook-cert-dir", "/nonexistent/certs"}, 2,
			`-webhook-cert-dir "/nonexistent/certs": no tls.crt and tls.key there: want the directory of the webhook server's certificate, or -webhook-cert-secret NAMESPACE/NAME`},
		{"bind address without certificate", []string{"-webhook-bind-address", ":9443", "-webhook-cert-dir", "/nonexistent/certs"}, 2, `-webhook-cert-dir "/nonexistent/certs": no tls.crt and tls.key there`},
		{"every problem at once", []string{"-addon-version", "v2", "-kube-api-qps", "0", "-lifecycle", ","}, 2,
			`-lifecycle ",": want comma-separated annotation values, none empty (an add-on without the annotation is OCM's add-on manager's: take it with addon-manager)` + "\n" +
				`-kube-api-qps 0, -kube-api-burst 1000: want positive numbers` + "\n" + `-addon-version "v2": want v1alpha1 or v1beta1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut)
			assert.Equal(t, tc.code, code, errOut.String())
			assert.Contains(t, errOut.String(), tc.err)
		})
	}
}

// TestPlacementsOffByDefault: with no flags the controller leaves
// Placements alone, as on a production OCM hub, where OCM's placement
// controller schedules them; -placements turns the reconciler on, beside
// the Lease it checks first.
func TestPlacementsOffByDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		on    bool
		lease types.NamespacedName
	}{
		{"no flags", nil, false, types.NamespacedName{Namespace: "open-cluster-management-hub", Name: "placement-lock"}},
		{"-placements", []string{"-placements"}, true, types.NamespacedName{Namespace: "open-cluster-management-hub", Name: "placement-lock"}},
		{"another lease", []string{"-placements", "-ocm-placement-lease", "ocm-hub/placement-lock"}, true, types.NamespacedName{Namespace: "ocm-hub", Name: "placement-lock"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseFlags(tc.args, io.Discard)
			require.NoError(t, err)
			assert.Equal(t, tc.on, o.placements, "-placements")
			assert.Equal(t, tc.lease, o.ocmPlacement)
			assert.True(t, o.addons, "the add-on rollouts stay the controller's job")
		})
	}
}

// TestRestConfig: the hub is the one -kubeconfig names, else the one
// $KUBECONFIG names, as client-go's loading rules (kubectl's) have it.
// Not parallel: it sets $KUBECONFIG.
func TestRestConfig(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := func(name, server string) string {
		path := filepath.Join(dir, name)
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: name}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
		cfg.CurrentContext = name
		require.NoError(t, clientcmd.WriteToFile(*cfg, path))
		return path
	}
	flagHub, envHub := kubeconfig("flag", "https://flag.example:6443"), kubeconfig("env", "https://env.example:6443")
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, envHub)
	for _, tc := range []struct {
		name, kubeconfig, host string
	}{
		{"-kubeconfig", flagHub, "https://flag.example:6443"},
		{"$KUBECONFIG", "", "https://env.example:6443"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := restConfig(tc.kubeconfig)
			require.NoError(t, err)
			assert.Equal(t, tc.host, cfg.Host)
		})
	}
}

// TestLifecycleFlag: -lifecycle is read as a comma-separated list, and
// its default is the controller's own value.
func TestLifecycleFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"rolloutkit"}},
		{[]string{"-lifecycle", "addon-manager"}, []string{"addon-manager"}},
		{[]string{"-lifecycle", " rolloutkit , addon-manager "}, []string{"rolloutkit", "addon-manager"}},
	} {
		o, err := parseFlags(tc.args, io.Discard)
		require.NoError(t, err)
		assert.Equal(t, tc.want, o.lifecycles, "%q", tc.args)
	}
}

// TestVerificationSecretNamespacesFlag: -verification-secret-namespaces,
// parsed; unset, the controller's own namespace (none in a test, outside
// a pod); a name that is not a namespace's is refused, naming it.
func TestVerificationSecretNamespacesFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
		err  string
	}{
		{nil, nil, ""},
		{[]string{"-verification-secret-namespaces", "rolloutkit-system"}, []string{"rolloutkit-system"}, ""},
		{[]string{"-verification-secret-namespaces", " monitoring , rolloutkit-system "}, []string{"monitoring", "rolloutkit-system"}, ""},
		{[]string{"-verification-secret-namespaces", "monitoring,Kube_System"}, nil,
			`-verification-secret-namespaces "monitoring,Kube_System": want comma-separated namespace names: "Kube_System": a lowercase RFC 1123 label`},
		{[]string{"-verification-secret-namespaces", ""}, nil, `-verification-secret-namespaces "": want comma-separated namespace names: "": `},
	} {
		o, err := parseFlags(tc.args, io.Discard)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%q", tc.args)
			continue
		}
		require.NoError(t, err)
		if tc.args == nil {
			tc.want = nil
			if ns := ownNamespace(); ns != "" {
				tc.want = []string{ns}
			}
		}
		assert.Equal(t, tc.want, o.credentialNS, "%q", tc.args)
	}
}

// TestGateFlags: the work gate's flags, parsed, and their defaults.
func TestGateFlags(t *testing.T) {
	t.Parallel()
	defaultDir := filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
	shipped := []string{"rolloutkit-work-gate", "rolloutkit-admission"}
	for _, tc := range []struct {
		name string
		args []string
		want gate
	}{
		{"defaults", nil, gate{port: 9443, certDir: defaultDir, configurations: shipped}},
		{"off", []string{"-webhook-bind-address=0"}, gate{certDir: defaultDir, explicit: true, configurations: shipped}},
		{"off, the certificate flags ignored", []string{"-webhook-bind-address=0", "-webhook-cert-secret", "junk", "-webhook-cert-hosts", "not a host"},
			gate{certDir: defaultDir, explicit: true, configurations: shipped}},
		{"a host and a dir", []string{"-webhook-bind-address", "127.0.0.1:10443", "-webhook-cert-dir", "/certs"},
			gate{host: "127.0.0.1", port: 10443, certDir: "/certs", explicit: true, configurations: shipped}},
		{"self-managed, in-cluster", []string{"-webhook-bind-address=:9443", "-webhook-cert-dir=/certs", "-webhook-cert-secret=team-a/rolloutkit-webhook-cert"},
			gate{port: 9443, certDir: "/certs", explicit: true, secret: types.NamespacedName{Namespace: "team-a", Name: "rolloutkit-webhook-cert"},
				hosts: []string{"rolloutkit-webhook.team-a.svc", "rolloutkit-webhook.team-a.svc.cluster.local"}, configurations: shipped}},
		{"self-managed, on a laptop", []string{"-webhook-cert-secret=default/gate-cert", "-webhook-cert-hosts", "localhost, 127.0.0.1", "-webhook-configuration", ""},
			gate{port: 9443, certDir: defaultDir, secret: types.NamespacedName{Namespace: "default", Name: "gate-cert"}, hosts: []string{"localhost", "127.0.0.1"}}},
		{"a list of configurations", []string{"-webhook-cert-secret=default/gate-cert", "-webhook-configuration", "gate, admission"},
			gate{port: 9443, certDir: defaultDir, secret: types.NamespacedName{Namespace: "default", Name: "gate-cert"},
				hosts: []string{"rolloutkit-webhook.default.svc", "rolloutkit-webhook.default.svc.cluster.local"}, configurations: []string{"gate", "admission"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseFlags(tc.args, io.Discard)
			require.NoError(t, err)
			assert.Equal(t, tc.want, o.gate)
		})
	}
}

// TestMetricsFlags: the metrics endpoint's flags, parsed, their defaults
// (off; secure once on), and every problem with them at once.
func TestMetricsFlags(t *testing.T) {
	t.Parallel()
	withCert, empty := t.TempDir(), t.TempDir()
	for _, name := range []string{"tls.crt", "tls.key"} {
		require.NoError(t, os.WriteFile(filepath.Join(withCert, name), []byte("pem"), 0o600))
	}
	for _, tc := range []struct {
		name string
		args []string
		want metricsEndpoint
		err  string
	}{
		{name: "defaults", want: metricsEndpoint{addr: "0", secure: true}},
		{name: "the Deployment's", args: []string{"-metrics-bind-address=:8443"}, want: metricsEndpoint{addr: ":8443", secure: true}},
		{name: "a certificate", args: []string{"-metrics-bind-address=:8443", "-metrics-cert-dir", withCert},
			want: metricsEndpoint{addr: ":8443", secure: true, certDir: withCert}},
		{name: "plain HTTP", args: []string{"-metrics-bind-address=127.0.0.1:8080", "-metrics-secure=false"}, want: metricsEndpoint{addr: "127.0.0.1:8080"}},
		{name: "off, the other flags ignored", args: []string{"-metrics-bind-address=0", "-metrics-secure=false", "-metrics-cert-dir", empty},
			want: metricsEndpoint{addr: "0", certDir: empty}},
		{name: "no port", args: []string{"-metrics-bind-address", "8443"},
			err: `-metrics-bind-address "8443": want host:port with a port from 1 to 65535, such as :8443, or "0" to turn the metrics off`},
		{name: "port zero", args: []string{"-metrics-bind-address", ":0"}, err: `-metrics-bind-address ":0": want host:port`},
		{name: "no certificate in the dir", args: []string{"-metrics-bind-address=:8443", "-metrics-cert-dir", empty},
			err: "-metrics-cert-dir " + fmt.Sprintf("%q", empty) + ": no tls.crt and tls.key there: want the directory of the metrics endpoint's serving certificate"},
		{name: "every problem at once", args: []string{"-metrics-bind-address", "x", "-metrics-secure=false", "-metrics-cert-dir", withCert},
			err: `-metrics-bind-address "x": want host:port with a port from 1 to 65535, such as :8443, or "0" to turn the metrics off` + "\n" +
				"-metrics-cert-dir " + fmt.Sprintf("%q", withCert) + " needs -metrics-secure: plain HTTP serves no certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseFlags(tc.args, io.Discard)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				var out, errOut bytes.Buffer
				assert.Equal(t, 2, run(context.Background(), tc.args, &out, &errOut), "the exit code of bad flags")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, o.metrics)
		})
	}
}

// TestMetricsServerOptions: secure metrics are served over HTTPS behind
// the hub's authentication and authorization, as kubebuilder's scaffold
// serves them, with HTTP/1.1 only; plain ones are not.
func TestMetricsServerOptions(t *testing.T) {
	t.Parallel()
	secure := metricsEndpoint{addr: ":8443", secure: true, certDir: "/certs"}.serverOptions()
	assert.True(t, secure.SecureServing)
	assert.Equal(t, ":8443", secure.BindAddress)
	assert.Equal(t, "/certs", secure.CertDir)
	assert.NotNil(t, secure.FilterProvider, "no authentication and authorization")
	var tlsConfig tls.Config
	for _, opt := range secure.TLSOpts {
		opt(&tlsConfig)
	}
	assert.Equal(t, []string{"http/1.1"}, tlsConfig.NextProtos)

	plain := metricsEndpoint{addr: "127.0.0.1:8080"}.serverOptions()
	assert.False(t, plain.SecureServing)
	assert.Nil(t, plain.FilterProvider)
	assert.Equal(t, "127.0.0.1:8080", plain.BindAddress)
}

// TestLogs: by default the controller logs JSON at info level, as a log
// pipeline reads it; -zap-devel logs console text at debug level.
func TestLogs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		json  bool
		debug bool
	}{
		{"default: production", nil, true, false},
		{"-zap-devel", []string{"-zap-devel"}, false, true},
		{"-zap-log-level=debug", []string{"-zap-log-level=debug"}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseFlags(tc.args, io.Discard)
			require.NoError(t, err)
			var buf bytes.Buffer
			logger, _ := newLogger(&o.zap, &buf)
			logger.Info("starting", "addons", true)
			logger.V(1).Info("a debug line")
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			require.NotEmpty(t, lines)
			var entry map[string]any
			assert.Equal(t, tc.json, json.Unmarshal([]byte(lines[0]), &entry) == nil, "JSON: %s", lines[0])
			if tc.json {
				assert.Equal(t, "info", entry["level"])
				assert.Equal(t, "starting", entry["msg"])
				assert.Equal(t, true, entry["addons"])
			}
			assert.Equal(t, tc.debug, strings.Contains(buf.String(), "a debug line"), buf.String())
		})
	}
}

// TestGateServes: the webhook server (the work gate's and admission's)
// serves where it has a certificate, with or without -addons; left at its
// defaults without one (a developer's machine) it is off and says why;
// asked for without one, it is an error.
func TestGateServes(t *testing.T) {
	t.Parallel()
	const noAdmission = "; no webhook server: no admission of AddOnRollouts and RolloutApprovals either"
	withCert, empty := t.TempDir(), t.TempDir()
	for _, name := range []string{"tls.crt", "tls.key"} {
		require.NoError(t, os.WriteFile(filepath.Join(withCert, name), []byte("pem"), 0o600))
	}
	secret := types.NamespacedName{Namespace: "rolloutkit-system", Name: "rolloutkit-webhook-cert"}
	for _, tc := range []struct {
		name string
		g    gate
		on   bool
		why  string
		err  string
	}{
		{"off", gate{certDir: withCert}, false, "-webhook-bind-address=0" + noAdmission, ""},
		{"self-managed", gate{port: 9443, certDir: empty, secret: secret}, true, "", ""},
		{"a certificate in the dir", gate{port: 9443, certDir: withCert}, true, "", ""},
		{"defaults, no certificate", gate{port: 9443, certDir: empty}, false, "no certificate: no tls.crt and tls.key in " + empty + ", and no -webhook-cert-secret" + noAdmission, ""},
		{"asked for, no certificate", gate{port: 9443, certDir: empty, explicit: true}, false, "", "-webhook-cert-dir " + fmt.Sprintf("%q", empty) + ": no tls.crt and tls.key there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			on, why, err := tc.g.serves()
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.on, on)
			assert.Equal(t, tc.why, why)
		})
	}
}

// hubFor starts a test hub with the seed loaded and writes its kubeconfig,
// or skips without the test API server (fails, under CI).
func hubFor(t *testing.T) (string, client.Client) {
	t.Helper()
	h, c := testhub.ForTest(t)
	kc, err := h.KubeConfig()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, kc, 0o600))
	require.NoError(t, testhub.Seed(context.Background(), c, testhub.SeedOptions{Strategy: testhub.Strategy("1s", "1m", 0), Lifecycle: testhub.Lifecycle}))
	return path, c
}

// TestRun runs the command as a person does against a hub: -dry-run first
// (it prints examples/plan's text and writes nothing; no decisions yet, so
// no group), then the controller
// with -placements, simulated agents beside it and leader election until dev-cluster has its
// add-on applied, holding the Lease, its readiness probe answering; then an
// interrupt stops it cleanly, and -dry-run shows the groups of the
// decisions it wrote.
func TestRun(t *testing.T) {
	t.Parallel()
	kubeconfig, c := hubFor(t)
	ctx := context.Background()

	var out bytes.Buffer
	var errOut hubtest.SyncBuffer
	require.Equal(t, 0, run(ctx, []string{"-kubeconfig", kubeconfig, "-dry-run"}, &out, &errOut), errOut.String())
	text := out.String()
	assert.Contains(t, text, `add-on "cluster-proxy" at `)
	// no PlacementDecisions yet: no group, as for the controller, which
	// takes groups from them only
	assert.Contains(t, text, `placement "open-cluster-management/cluster-proxy-placement", ProgressivePerGroup, groups from no PlacementDecisions`)
	assert.Contains(t, text, `the Placement selects 3 clusters but the input has no PlacementDecisions of it`)
	assert.Contains(t, text, `clusters to start now: (none)`)
	var mcas addonv1alpha1.ManagedClusterAddOnList
	require.NoError(t, c.List(ctx, &mcas))
	assert.Empty(t, mcas.Items, "-dry-run wrote add-ons")

	probe := hubtest.FreeAddr(t)
	runCtx, cancel := context.WithCancel(ctx)
	code := make(chan int, 1)
	var logs hubtest.SyncBuffer // the controllers log from several goroutines
	go func() {
		code <- run(runCtx, []string{"-kubeconfig", kubeconfig, "-placements", "-health-probe-bind-address", probe, "-leader-elect"}, &out, &logs)
	}()
	startAgents(t, runCtx, kubeconfig, c)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var mca addonv1alpha1.ManagedClusterAddOn
		err := c.Get(ctx, types.NamespacedName{Namespace: "dev-cluster", Name: "cluster-proxy"}, &mca)
		if err == nil && len(mca.Status.ConfigReferences) == 1 && mca.Status.ConfigReferences[0].LastAppliedConfig != nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "dev-cluster's add-on not applied within 60s")
		time.Sleep(200 * time.Millisecond)
	}
	var lease coordinationv1.Lease
	require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: "kube-system", Name: "rolloutkit-controller"}, &lease))
	require.NotNil(t, lease.Spec.HolderIdentity, "-leader-elect took no Lease")
	assert.NotEmpty(t, *lease.Spec.HolderIdentity)
	resp, err := http.Get("http://" + probe + "/readyz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	cancel()
	select {
	case c := <-code:
		assert.Equal(t, 0, c, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the controller did not stop within 30s of the interrupt")
	}
	assert.True(t, strings.Contains(logs.String(), "group phase changed"), "no phase-change log line")

	out.Reset()
	require.Equal(t, 0, run(ctx, []string{"-kubeconfig", kubeconfig, "-dry-run"}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), `groups from 3 PlacementDecisions`, "the dry run once the controller wrote the decisions")
}

// startAgents runs the simulated add-on manager and work agents on the hub
// until ctx ends, applying in 500 ms, as testhub agents does.
func startAgents(t *testing.T, ctx context.Context, kubeconfig string, c client.Client) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	scheme, err := hubclient.NewScheme()
	require.NoError(t, err)
	// A logger that drops everything: logr.Discard() has no sink, and a
	// manager given no sink logs to the process's (ctrl.Log).
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}}, Logger: logr.New(crlog.NullLogSink{})})
	require.NoError(t, err)
	version, err := hubclient.StorageVersion(ctx, c)
	require.NoError(t, err)
	require.NoError(t, agent.Setup(mgr, agent.Options{AddonVersion: version, Delay: 500 * time.Millisecond}))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() { require.NoError(t, <-done) })
}

// envRun, in the environment of this test binary, makes it the
// controller: TestMain runs run with the arguments it holds (JSON), so
// that a test can run a controller in a process of its own. Two managers
// cannot run hubctl's controllers in one process (controller-runtime
// wants each controller name once per process), and TestRun runs one.
const envRun = "ROLLOUTKIT_TEST_RUN_CONTROLLER"

func TestMain(m *testing.M) {
	if args := os.Getenv(envRun); args != "" {
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", envRun, err)
			os.Exit(2)
		}
		runAsMain(argv)
	}
	// The process's logger (ctrl.Log) is set once per process, and run
	// leaves it to runProcess. Here it drops what no manager's logger takes,
	// rather than warn that it was never set.
	ctrl.SetLogger(logr.New(crlog.NullLogSink{}))
	os.Exit(m.Run())
}

// runAsMain is main with args, in the test binary.
func runAsMain(args []string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runProcess(ctx, args, os.Stdout, os.Stderr))
}

// startController runs the controller with args in a process of its own,
// its output in the returned buffer; stop interrupts it and returns its
// exit code.
func startController(t *testing.T, args ...string) (logs *hubtest.SyncBuffer, stop func() int) {
	t.Helper()
	argv, err := json.Marshal(args)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRun+"="+string(argv))
	logs = &hubtest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	require.NoError(t, cmd.Start())
	stopped := false
	stop = func() int {
		if stopped {
			return cmd.ProcessState.ExitCode()
		}
		stopped = true
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("the controller did not stop within 30s of the interrupt: %s", logs.String())
		}
		return cmd.ProcessState.ExitCode()
	}
	t.Cleanup(func() { stop() })
	return logs, stop
}

// TestRunWorkGate runs the controller with a certificate it keeps itself,
// as the shipped Deployment does, on a hub where the gate's
// ValidatingWebhookConfiguration is installed: once ready, it serves TLS
// that the configuration's caBundle trusts for 127.0.0.1, the
// certificate's Secret is there for the other replicas, and a
// configuration replaced without its caBundle (a delete and a create) gets
// it back within seconds, not at the next hourly check.
func TestRunWorkGate(t *testing.T) {
	t.Parallel()
	kubeconfig, c := hubFor(t)
	ctx := context.Background()
	addr, probe := hubtest.FreeAddr(t), hubtest.FreeAddr(t)
	// A webhook that no ManifestWork matches: this test is about the
	// certificate, not about the gate's answers.
	configuration := func() *admissionregistrationv1.ValidatingWebhookConfiguration {
		url := "https://" + addr + gatehook.WorkGatePath
		none, ignore := admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Ignore
		return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: gatehook.WorkGateConfiguration},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: gatehook.WorkGateWebhook, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
				SideEffects: &none, FailurePolicy: &ignore, AdmissionReviewVersions: []string{"v1"},
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"rolloutkit.io/test": "never"}}}}}
	}
	require.NoError(t, c.Create(ctx, configuration()))

	logs, stop := startController(t, "-kubeconfig", kubeconfig, "-health-probe-bind-address", probe, "-webhook-bind-address", addr,
		"-webhook-cert-dir", filepath.Join(t.TempDir(), "certs"), "-webhook-cert-secret", "default/rolloutkit-webhook-cert",
		"-webhook-cert-hosts", "127.0.0.1")
	caBundle := func() []byte {
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		if err := c.Get(ctx, types.NamespacedName{Name: gatehook.WorkGateConfiguration}, &vwc); err != nil {
			return nil
		}
		return vwc.Webhooks[0].ClientConfig.CABundle
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 60*time.Second, 200*time.Millisecond, "not ready within 60s: %s", logs.String())

	var s corev1.Secret
	require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "rolloutkit-webhook-cert"}, &s))
	assert.Equal(t, s.Data["ca.crt"], caBundle())
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(caBundle()))
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	require.NoError(t, err, "the webhook server's certificate, against the configuration's caBundle")
	require.NoError(t, conn.Close())

	require.NoError(t, c.Delete(ctx, configuration()))
	require.NoError(t, c.Create(ctx, configuration()))
	require.Eventually(t, func() bool { return bytes.Equal(caBundle(), s.Data["ca.crt"]) }, 20*time.Second, 100*time.Millisecond,
		"the CA not put back in the replaced configuration: %s", logs.String())

	assert.Equal(t, 0, stop(), logs.String())
	assert.Contains(t, logs.String(), `"workGate":true`, "the start, logged as JSON")
}

// TestRunRefusesHeldPlacementLease: with -placements, a hub whose
// placement-lock Lease is held and renewed stops the controller before it
// starts, with exit code 1 and the Lease and its holder named.
func TestRunRefusesHeldPlacementLease(t *testing.T) {
	t.Parallel()
	kubeconfig, c := hubFor(t)
	ctx := context.Background()
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "open-cluster-management-hub"}}))
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management-hub", Name: "placement-lock"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("placement-0"), LeaseDurationSeconds: ptr.To[int32](137),
			RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	require.NoError(t, c.Create(ctx, lease))
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, run(ctx, []string{"-kubeconfig", kubeconfig, "-placements", "-health-probe-bind-address", "0"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "-placements: OCM's placement controller holds lease open-cluster-management-hub/placement-lock (holder placement-0, renewed ")
}
