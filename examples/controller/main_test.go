package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
		{"fail without agents", []string{"-fail-clusters", "stg-cluster"}, 2, "-fail-clusters needs -simulate-agents"},
		{"negative delay", []string{"-simulate-agents", "-1s"}, 2, "-simulate-agents -1s: want a positive duration"},
		{"nothing to run", []string{"-placements=false", "-addons=false"}, 2, "nothing to run"},
		{"no kubeconfig", []string{"-kubeconfig", "/nonexistent/kubeconfig"}, 2, `-kubeconfig "/nonexistent/kubeconfig"`},
		{"empty lifecycle", []string{"-lifecycle", ""}, 2, `-lifecycle "": want comma-separated annotation values, none empty`},
		{"empty lifecycle in a list", []string{"-lifecycle", "rolloutkit,,addon-manager"}, 2, `-lifecycle "rolloutkit,,addon-manager": want comma-separated annotation values, none empty`},
		{"lease shorter than renewal", []string{"-leader-elect-lease-duration", "5s", "-leader-elect-renew-deadline", "10s"}, 2,
			"-leader-elect-lease-duration 5s, -leader-elect-renew-deadline 10s, -leader-elect-retry-period 2s: want lease duration > renew deadline > 1.2 x retry period > 0"},
		{"no retry period", []string{"-leader-elect-retry-period", "0s"}, 2, "-leader-elect-retry-period 0s: want lease duration > renew deadline"},
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
// (it prints examples/plan's text and writes nothing), then the controller
// with simulated agents and leader election until dev-cluster has its
// add-on applied, holding the Lease, its readiness probe answering; then an
// interrupt stops it cleanly.
func TestRun(t *testing.T) {
	t.Parallel()
	kubeconfig, c := hubFor(t)
	ctx := context.Background()

	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"-kubeconfig", kubeconfig, "-dry-run"}, &out, &errOut), errOut.String())
	text := out.String()
	assert.Contains(t, text, `add-on "cluster-proxy" at `)
	assert.Contains(t, text, `placement "open-cluster-management/cluster-proxy-placement", ProgressivePerGroup, groups from scheduled from the Placement and 3 ManagedClusters`)
	assert.Contains(t, text, `clusters to start now: "dev-cluster"`)
	var mcas addonv1alpha1.ManagedClusterAddOnList
	require.NoError(t, c.List(ctx, &mcas))
	assert.Empty(t, mcas.Items, "-dry-run wrote add-ons")

	probe := freeAddr(t)
	runCtx, cancel := context.WithCancel(ctx)
	code := make(chan int, 1)
	var logs syncBuffer // the controllers log from several goroutines
	go func() {
		code <- run(runCtx, []string{"-kubeconfig", kubeconfig, "-simulate-agents", "500ms", "-health-probe-bind-address", probe, "-leader-elect"}, &out, &logs)
	}()
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
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return fmt.Sprintf("127.0.0.1:%d", l.Addr().(*net.TCPAddr).Port)
}

// syncBuffer is a bytes.Buffer that several goroutines may write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
