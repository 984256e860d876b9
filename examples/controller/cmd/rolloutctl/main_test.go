package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// twoContexts is a kubeconfig of two contexts, neither of whose servers
// is called by the tests that use it.
const twoContexts = `apiVersion: v1
kind: Config
clusters:
- name: hub
  cluster: {server: "https://127.0.0.1:1"}
- name: spare
  cluster: {server: "https://127.0.0.1:2"}
users:
- name: admin
  user: {token: secret}
contexts:
- name: hub
  context: {cluster: hub, user: admin}
- name: spare-hub
  context: {cluster: spare, user: admin}
current-context: hub
`

// writeKubeconfig writes text to a kubeconfig file of the test's own and
// returns its path.
func writeKubeconfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// TestUsage: help exits 0 and is written to stdout; bad usage exits 2
// without reaching the hub, saying on stderr what is wrong and where the
// help is.
func TestUsage(t *testing.T) {
	t.Parallel()
	kubeconfig := writeKubeconfig(t, twoContexts)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
		real   bool // connect with the program's own connect, which loads the kubeconfig
	}{
		{name: "help", args: []string{"-h"}, stdout: "rolloutctl [command]"},
		{name: "help lists the subcommands", args: []string{"--help"}, stdout: "  approve     Create the RolloutApproval"},
		{name: "help lists kubectl's flags", args: []string{"-h"}, stdout: "--context string"},
		{name: "help, the subcommand", args: []string{"help", "status"}, stdout: "rolloutctl status [ADDON] [flags]"},
		{name: "help of a subcommand", args: []string{"approve", "-h"}, stdout: "rolloutctl approve ADDON GROUP [flags]"},
		{name: "help of a subcommand lists its flags", args: []string{"status", "-h"}, stdout: "-o, --output string"},
		{name: "help of a subcommand lists kubectl's flags", args: []string{"status", "-h"}, stdout: "--kubeconfig string"},
		{name: "no subcommand", code: 2, stderr: "rolloutctl: no subcommand: want one of status, pause, resume, approve, history, undo, version\nSee 'rolloutctl --help'."},
		{name: "unknown subcommand", args: []string{"rollback", "x"}, code: 2, stderr: `unknown subcommand "rollback": want one of status, pause, resume, approve, history, undo, version`},
		{name: "unknown global flag", args: []string{"-v", "status", "x"}, code: 2, stderr: "unknown shorthand flag: 'v' in -v"},
		{name: "unknown flag", args: []string{"pause", "x", "--force"}, code: 2, stderr: "unknown flag: --force\nSee 'rolloutctl pause --help'."},
		{name: "a long flag with one dash", args: []string{"approve", "x", "prod", "-placement", "a/b"}, code: 2, stderr: "(long flags take two dashes: --placement)"},
		{name: "kubectl's long flag with one dash", args: []string{"-kubeconfig", "f", "status", "x"}, code: 2, stderr: "(long flags take two dashes: --kubeconfig)"},
		{name: "missing argument", args: []string{"approve", "cluster-proxy"}, code: 2, stderr: `approve: want ADDON GROUP, got 1 arguments ["cluster-proxy"]`},
		{name: "extra argument", args: []string{"status", "a", "b"}, code: 2, stderr: `status: want ADDON or none, got 2 arguments ["a" "b"]`},
		{name: "empty argument", args: []string{"pause", ""}, code: 2, stderr: "pause: ADDON is empty"},
		{name: "pause neither an add-on nor --all", args: []string{"pause"}, code: 2, stderr: "pause: want ADDON or --all"},
		{name: "resume an add-on and --all", args: []string{"resume", "x", "--all"}, code: 2, stderr: "resume: want ADDON or --all"},
		{name: "the fleet table is text", args: []string{"status", "-o", "json"}, code: 2, stderr: "status: -o \"json\" needs an ADDON"},
		{name: "bad output", args: []string{"status", "x", "-o", "xml"}, code: 2, stderr: `status: -o "xml": want text, json, yaml`},
		{name: "bad version", args: []string{"status", "x", "--addon-version", "v2"}, code: 2, stderr: `--addon-version "v2": want v1alpha1 or v1beta1`},
		{name: "bad placement", args: []string{"approve", "x", "prod", "--placement", "cluster-proxy-placement"}, code: 2, stderr: `approve: --placement "cluster-proxy-placement": want NAMESPACE/NAME`},
		{name: "cobra's own subcommand, with an extra argument", args: []string{"completion", "bash", "extra"}, code: 2, stderr: `unknown command "extra" for "rolloutctl completion bash"`},
		{name: "a kubeconfig that is none", args: []string{"--kubeconfig", "/nonexistent/kubeconfig", "status", "x"}, code: 2, stderr: `--kubeconfig "/nonexistent/kubeconfig"`, real: true},
		{name: "a kubeconfig that is none, after the subcommand", args: []string{"resume", "x", "--kubeconfig=/nonexistent/kubeconfig"}, code: 2, stderr: `--kubeconfig "/nonexistent/kubeconfig"`, real: true},
		{name: "a context the kubeconfig does not have", args: []string{"pause", "x", "--kubeconfig", kubeconfig, "--context", "nope"}, code: 2, stderr: `--context "nope": context "nope" does not exist`, real: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := testEnv(nil)
			if tt.real {
				e.connect = connect
			}
			var stdout, stderr bytes.Buffer
			e.stdout, e.stderr = &stdout, &stderr
			code := run(context.Background(), tt.args, e)
			assert.NotContains(t, stderr.String(), "no hub in this test", "bad usage reached the hub")
			assert.Equal(t, tt.code, code, stderr.String())
			assert.Contains(t, stdout.String(), tt.stdout)
			assert.Contains(t, stderr.String(), tt.stderr)
			if tt.code == 0 {
				assert.Empty(t, stderr.String())
			}
		})
	}
}

// TestExitCodes: 0 when done, 1 when refused (pausing or approving an
// add-on the hub does not have included) or when the hub fails a
// request, 2 on bad usage (the status of an add-on the hub does not have
// included).
func TestExitCodes(t *testing.T) {
	t.Parallel()
	failing := interceptor.Funcs{List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
		return errors.New("the server is currently unable to handle the request")
	}}
	tests := []struct {
		name   string
		hub    client.Client
		args   []string
		code   int
		stderr string
	}{
		{name: "status", hub: fakeHub(t, true, seedHub(t)...), args: []string{"status", addonName}},
		{name: "approved", hub: fakeHub(t, true, append(seedHub(t), needProd())...), args: []string{"approve", addonName, "prod", "--latest"}},
		{name: "nothing to resume", hub: fakeHub(t, true, seedHub(t)...), args: []string{"resume", addonName}},
		{name: "nothing to approve", hub: fakeHub(t, true, append(seedHub(t), needProd())...), args: []string{"approve", addonName, "dev", "--latest"}, code: 1, stderr: "nothing to approve"},
		{name: "the hub fails a request", hub: fakeHubWith(t, true, failing, seedHub(t)...), args: []string{"status", addonName}, code: 1, stderr: "unable to handle the request"},
		{name: "status of an add-on the hub does not have", hub: fakeHub(t, true, seedHub(t)...), args: []string{"status", "nope"}, code: 2, stderr: `no ClusterManagementAddOn "nope"`},
		{name: "approve an add-on the hub does not have", hub: fakeHub(t, true, seedHub(t)...), args: []string{"approve", "nope", "prod", "--latest"}, code: 1, stderr: `no ClusterManagementAddOn "nope"`},
		{name: "pause an add-on the hub does not have", hub: fakeHub(t, true, seedHub(t)...), args: []string{"pause", "nope"}, code: 1, stderr: `no ClusterManagementAddOn "nope"`},
		{name: "bad usage", hub: fakeHub(t, true, seedHub(t)...), args: []string{"approve", addonName}, code: 2, stderr: "want ADDON GROUP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runWith(t, tt.hub, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.stderr)
		})
	}
}

// TestInvokedAs: the program names itself as a person invokes it, and
// answers kubectl's plugin completion as cobra's __complete.
func TestInvokedAs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv0 string
		name  string
		args  []string
	}{
		{"/tmp/go-build1/b001/exe/rolloutctl", "rolloutctl", []string{"status", "x"}},
		{"bin/kubectl-rolloutkit", "kubectl rolloutkit", []string{"status", "x"}},
		{"kubectl-rolloutkit.exe", "kubectl rolloutkit", []string{"status", "x"}},
		{"/usr/local/bin/kubectl_complete-rolloutkit", "kubectl rolloutkit", []string{"__complete", "status", "x"}},
		{"kubectl-rollout_kit", "kubectl rollout-kit", []string{"status", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.argv0, func(t *testing.T) {
			t.Parallel()
			name, args := invokedAs(filepath.FromSlash(tt.argv0), []string{"status", "x"})
			assert.Equal(t, tt.name, name)
			assert.Equal(t, tt.args, args)
		})
	}
}

// TestKubectlPluginName: invoked as the kubectl plugin, usage, errors and
// the commands status suggests name it so.
func TestKubectlPluginName(t *testing.T) {
	t.Parallel()
	e := testEnv(fakeHub(t, true, append(seedHub(t), needProd())...))
	e.name = "kubectl rolloutkit"
	var stdout, stderr bytes.Buffer
	e.stdout, e.stderr = &stdout, &stderr
	require.Equal(t, 0, run(context.Background(), []string{"status", addonName}, e), stderr.String())
	assert.Contains(t, stdout.String(), ": kubectl rolloutkit approve cluster-proxy prod --revision "+revision+"\n")
	stdout.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"approve", "-h"}, e))
	assert.Contains(t, stdout.String(), "kubectl rolloutkit approve ADDON GROUP [flags]")
	assert.Equal(t, 2, run(context.Background(), []string{"approve", addonName}, e))
	assert.Contains(t, stderr.String(), "kubectl rolloutkit: approve: want ADDON GROUP")
	assert.Contains(t, stderr.String(), "See 'kubectl rolloutkit approve --help'.")
}
