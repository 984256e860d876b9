package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
)

// script is hack/test-hub.sh, which wraps this program.
var script = filepath.Join("..", "..", "..", "..", "hack", "test-hub.sh")

// runScript runs the script with args in dir, and returns its exit code
// and output.
func runScript(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	abs, err := filepath.Abs(script)
	require.NoError(t, err)
	cmd := exec.Command("bash", append([]string{abs}, args...)...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), errOut.String()
	}
	require.NoError(t, err)
	return 0, out.String(), errOut.String()
}

// TestHubScriptUsage: hack/test-hub.sh checks its arguments before it
// builds or starts anything: -h prints the usage and exits 0, a bad option
// exits 2, and neither writes a file.
func TestHubScriptUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		code    int
		out     string
		errOut  string
		noFiles bool
	}{
		{name: "-h", args: []string{"-h"}, out: "usage: hack/test-hub.sh KUBECONFIG-FILE [testhub flags]"},
		{name: "--help", args: []string{"--help"}, out: "usage: hack/test-hub.sh"},
		{name: "-h after the file", args: []string{"hub.kubeconfig", "-soak", "5m", "-h"}, out: "usage: hack/test-hub.sh"},
		{name: "no arguments", code: 2, errOut: "usage: hack/test-hub.sh"},
		{name: "an option first", args: []string{"-soak", "5m"}, code: 2, errOut: "-soak: the first argument is the kubeconfig file to write"},
		{name: "an unknown option", args: []string{"hub.kubeconfig", "-nope"}, code: 2, errOut: "unknown option -nope"},
		{name: "a value missing", args: []string{"hub.kubeconfig", "-deadline"}, code: 2, errOut: "-deadline needs a value"},
		{name: "an argument", args: []string{"hub.kubeconfig", "-seed", "false"}, code: 2, errOut: `unexpected argument "false"`},
		{name: "-set-agent-image", args: []string{"hub.kubeconfig", "-set-agent-image=x"}, code: 2,
			errOut: "-set-agent-image=x changes a running hub: go -C examples/controller run ./cmd/testhub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, out, errOut := runScript(t, dir, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			if tt.out != "" {
				assert.Contains(t, out, tt.out)
			}
			assert.Contains(t, errOut, tt.errOut)
			files, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, files, "nothing is written (there was a kubeconfig named -h)")
		})
	}
}

// TestHubScriptFlags: the flags hack/test-hub.sh lists and passes on are
// this program's, but for -kubeconfig (the script's first argument),
// -set-agent-image (which changes a running hub) and -version (which
// starts none).
func TestHubScriptFlags(t *testing.T) {
	t.Parallel()
	code, usage, errOut := runScript(t, t.TempDir(), "-h")
	require.Equal(t, 0, code, errOut)
	var help bytes.Buffer
	_, err := parse([]string{"-h"}, &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	flagName := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	names := func(s string) []string {
		var out []string
		for _, m := range flagName.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	own := slices.DeleteFunc(names(help.String()), func(n string) bool { return n == "kubeconfig" || n == "set-agent-image" || n == "version" })
	assert.Equal(t, own, names(usage))
	// -soak and -deadline say what they set on the hub, not "the seed's
	// rollout" (the script's help and the program's).
	for _, text := range []string{usage, help.String()} {
		assert.NotContains(t, text, "the seed's rollout")
		assert.Contains(t, text, "each group's soak")
		assert.Contains(t, text, "each cluster's deadline")
	}
}

// TestParseErrors: bad flags exit 2, -h 0.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"-h", []string{"-h"}, 0, "-set-agent-image"},
		{"no kubeconfig", nil, 2, "-kubeconfig is required"},
		{"an argument", []string{"-kubeconfig", "k", "x"}, 2, `unexpected arguments ["x"]`},
		{"a negative soak", []string{"-kubeconfig", "k", "-soak", "-1s"}, 2, "want a soak of 0 or more"},
		{"a gate over http", []string{"-kubeconfig", "k", "-work-gate", "http://127.0.0.1:9443"}, 2, "want the https:// base URL"},
		{"-gc on a running hub", []string{"-kubeconfig", "k", "-gc", "-set-agent-image", "x"}, 2, "-gc starts a hub's garbage collector"},
		{"admission over http", []string{"-kubeconfig", "k", "-admission", "http://127.0.0.1:9443"}, 2, `-admission "http://127.0.0.1:9443": want the https:// base URL`},
		{"two webhook servers", []string{"-kubeconfig", "k", "-admission", "https://127.0.0.1:9443", "-work-gate", "https://127.0.0.1:9444"}, 2,
			"want one base URL: one webhook server serves both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			assert.Equal(t, tt.code, run(context.Background(), tt.args, &out, &errOut))
			assert.Contains(t, errOut.String(), tt.want)
		})
	}
}

// TestSetAgentImage changes the image on a seeded hub and says what it
// changed; a second time it says nothing changed.
func TestSetAgentImage(t *testing.T) {
	t.Parallel()
	h, c := testhub.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, testhub.Seed(ctx, c, testhub.SeedOptions{}))
	kc, err := h.KubeConfig()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "hub.kubeconfig")
	require.NoError(t, os.WriteFile(file, kc, 0o600))
	const image = "quay.io/open-cluster-management/cluster-proxy:v0.9.1"
	args := []string{"-kubeconfig", file, "-set-agent-image", image}

	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(ctx, args, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), `ManagedProxyConfiguration "cluster-proxy": spec.proxyAgent.image `+testhub.Image+" -> "+image+"\n")
	assert.Contains(t, out.String(), "addon-cluster-proxy-deploy-0")

	out.Reset()
	require.Equal(t, 0, run(ctx, args, &out, &errOut), errOut.String())
	assert.Equal(t, `ManagedProxyConfiguration "cluster-proxy": spec.proxyAgent.image is already `+image+": nothing changed, nothing to roll out\n", out.String())
}

// TestServe starts hubs as hack/test-hub.sh does, and checks what the
// options add. With -gc the hub runs kube-controller-manager's garbage
// collector and says so: a ManagedClusterAddOn owned by the seed's
// ClusterManagementAddOn goes with it, as on a real hub; without, it says
// it has none. With -admission the hub has admission's two webhook
// configurations, calling the URL given, and the controller command it
// suggests serves them.
func TestServe(t *testing.T) {
	t.Parallel()
	if _, err := testhub.Assets(); err != nil {
		if os.Getenv(testhub.EnvRequire) != "" {
			t.Fatalf("no test API server: %v", err)
		}
		t.Skipf("SKIP (no test API server): %v", err)
	}
	const base = "https://127.0.0.1:9443"
	for _, tt := range []struct {
		name  string
		args  []string
		says  []string
		check func(t *testing.T, ctx context.Context, c client.Client)
	}{
		{"-gc", []string{"-gc"}, []string{"garbage collector: kube-controller-manager's, alone"}, collects},
		{"no -gc", nil, []string{"garbage collector: none (start the hub with -gc for one)"}, nil},
		{"-admission", []string{"-admission", base}, []string{"admission installed: ValidatingWebhookConfiguration and MutatingWebhookConfiguration rolloutkit-admission call " + base,
			"-webhook-bind-address 127.0.0.1:9443 -webhook-cert-secret default/rolloutkit-webhook-cert"}, func(t *testing.T, ctx context.Context, c client.Client) {
			vwc, mwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}, &admissionregistrationv1.MutatingWebhookConfiguration{}
			require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "rolloutkit-admission"}, vwc))
			require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "rolloutkit-admission"}, mwc))
			assert.Equal(t, base+rollouthook.RolloutValidationPath, ptr.Deref(vwc.Webhooks[0].ClientConfig.URL, ""))
			assert.Equal(t, base+rollouthook.ApprovalMutationPath, ptr.Deref(mwc.Webhooks[0].ClientConfig.URL, ""))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "hub.kubeconfig")
			ctx, cancel := context.WithCancel(context.Background())
			out := &hubtest.SyncBuffer{}
			done := make(chan int, 1)
			go func() { done <- run(ctx, append([]string{"-kubeconfig", file, "-soak", "5s"}, tt.args...), out, out) }()
			t.Cleanup(func() { cancel(); <-done })
			require.EventuallyWithT(t, func(ct *assert.CollectT) {
				assert.Contains(ct, out.String(), "Ctrl-C stops the hub")
			}, 2*time.Minute, 200*time.Millisecond, "the hub did not start")
			for _, s := range tt.says {
				assert.Contains(t, out.String(), s)
			}
			if tt.check != nil {
				c, err := newClient(file)
				require.NoError(t, err)
				tt.check(t, ctx, c)
			}
		})
	}
}

// collects checks that the hub's garbage collector deletes an add-on
// owned by the seed's ClusterManagementAddOn once that is deleted.
func collects(t *testing.T, ctx context.Context, c client.Client) {
	t.Helper()
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "cluster-proxy"}, cma))
	mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "addon.open-cluster-management.io/v1alpha1", Kind: "ClusterManagementAddOn",
			Name: cma.Name, UID: cma.UID}}}}
	require.NoError(t, c.Create(ctx, mca))
	require.NoError(t, c.Delete(ctx, cma))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		err := c.Get(ctx, client.ObjectKeyFromObject(mca), &addonv1alpha1.ManagedClusterAddOn{})
		assert.True(ct, apierrors.IsNotFound(err), "the add-on is still there: %v", err)
	}, time.Minute, 200*time.Millisecond, "the garbage collector did not delete the add-on")
}

// TestAgentsFlags: testhub agents checks its flags before it reaches a
// hub, and reports every problem at once.
func TestAgentsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"help", []string{"agents", "-h"}, 0, "usage: testhub agents -kubeconfig FILE"},
		{"no kubeconfig", []string{"agents"}, 2, "-kubeconfig is required"},
		{"argument", []string{"agents", "-kubeconfig", "k", "now"}, 2, `unexpected arguments ["now"]`},
		{"every problem at once", []string{"agents", "-apply", "0s", "-addon-version", "v2", "-kube-api-qps", "0"}, 2,
			"-kubeconfig is required: the hub to play the agents of\n-apply 0s: want a positive duration such as 2s\n" +
				`-addon-version "v2": want v1alpha1 or v1beta1` + "\n-kube-api-qps 0, -kube-api-burst 20000: want positive numbers"},
		{"no hub", []string{"agents", "-kubeconfig", "/nonexistent/kubeconfig"}, 1, `-kubeconfig "/nonexistent/kubeconfig"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			assert.Equal(t, tc.code, run(context.Background(), tc.args, &out, &errOut), errOut.String())
			assert.Contains(t, errOut.String(), tc.err)
		})
	}
}

// TestAgentsFailClusters: -fail-clusters is read as a comma-separated
// list, blanks and spaces dropped.
func TestAgentsFailClusters(t *testing.T) {
	t.Parallel()
	o, err := parseAgents([]string{"-kubeconfig", "k", "-fail-clusters", "stg-1, prod-2,,"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"stg-1": true, "prod-2": true}, o.fail)
	assert.False(t, o.placements, "no Placement scheduling unless asked")
}
