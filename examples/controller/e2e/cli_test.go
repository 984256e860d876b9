package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// binary returns the command at pkg (relative to the controller module),
// compiled once for the package's tests (shared.commands), as name in a
// directory of the test's own: a link to the one build, under the name
// the test runs it by (kubectl finds a plugin by its file's name).
func binary(t *testing.T, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.Symlink(shared.commands.get(t, pkg), bin))
	return bin
}

// rolloutctl runs the CLI as a person does and returns its output and
// exit code.
func rolloutctl(t tb, bin, kubeconfig string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	require.NoError(t, err, "rolloutctl %v", args)
	return out.String(), 0
}

// TestRolloutctl: the controller and rolloutctl as a person runs them,
// compiled, against a real hub: the controller with -placements, testhub
// agents beside it playing the add-on manager and work agents, and
// its metrics endpoint on; an AddOnRollout applied from YAML requires an
// approval of prod. rolloutctl refuses to approve while nothing waits,
// pauses and resumes, shows prod waiting for its approval (as does the
// metrics endpoint), approves it, and shows the rollout complete. While
// prod waits, the README's offline plan, run as written, says what the
// controller says.
func TestRolloutctl(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	o := seedHub(t, e, "60s")
	ctx := context.Background()
	kc, err := e.hub.KubeConfig()
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "hub.kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, kc, 0o600))
	ctlBin, cliBin, hubBin := shared.controller.get(t), binary(t, "./cmd/rolloutctl", "rolloutctl"), binary(t, "./cmd/testhub", "testhub")

	metricsAddr := hubtest.FreeAddr(t)
	ctl := exec.Command(ctlBin, "-kubeconfig", kubeconfig, "-placements", "-lifecycle", testhub.Lifecycle,
		"-metrics-bind-address", metricsAddr, "-metrics-secure=false", "-health-probe-bind-address", "0")
	logs, err := os.Create(filepath.Join(t.TempDir(), "controller.log"))
	require.NoError(t, err)
	ctl.Stdout, ctl.Stderr = logs, logs
	require.NoError(t, ctl.Start())
	t.Cleanup(func() {
		_ = ctl.Process.Signal(os.Interrupt)
		_ = ctl.Wait() // a clean stop or a kill: the log is what matters
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("controller log:\n%s", tailOf(b, 8000))
		}
	})
	agents := exec.Command(hubBin, "agents", "-kubeconfig", kubeconfig, "-apply", applyTime.String(), "-zap-log-level", "error")
	agents.Stdout, agents.Stderr = logs, logs
	require.NoError(t, agents.Start())
	t.Cleanup(func() { _ = agents.Process.Signal(os.Interrupt); _ = agents.Wait() })
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, addonName, oldHash, 60*time.Second)

	manifest := []byte(`apiVersion: rolloutkit.io/v1alpha1
kind: AddOnRollout
metadata:
  name: cluster-proxy
spec:
  approvalRequired: [prod]
`)
	var ar v1alpha1.AddOnRollout
	require.NoError(t, yaml.UnmarshalStrict(manifest, &ar))
	require.NoError(t, e.c.Create(ctx, &ar))

	out, code := rolloutctl(t, cliBin, kubeconfig, "approve", addonName, "prod", "--latest")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "nothing")

	out, code = rolloutctl(t, cliBin, kubeconfig, "pause", addonName)
	require.Equal(t, 0, code, out)
	require.NoError(t, testhub.SetAgentImage(ctx, e.c, newImage))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, _ := rolloutctl(ct, cliBin, kubeconfig, "status", addonName)
		assert.NotEmpty(ct, lineWith(out, "dev", "Blocked", "Paused"), out)
	}, 30*time.Second, poll, "dev held by the pause")
	time.Sleep(2 * soak)
	for _, c := range o.Clusters() {
		assert.Equal(t, oldHash, e.addon(t, c, addonName).desired, "%s started while paused", c)
	}

	out, code = rolloutctl(t, cliBin, kubeconfig, "resume", addonName)
	require.Equal(t, 0, code, out)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, _ := rolloutctl(ct, cliBin, kubeconfig, "status", addonName)
		assert.NotEmpty(ct, lineWith(out, "prod", "Blocked", "Approval"), out)
	}, 60*time.Second, poll, "prod waits for its approval")
	assert.Equal(t, oldHash, e.addon(t, "prod-cluster", addonName).desired)
	checkREADMEPlan(t, e.c, kubeconfig, addonName)
	metrics := scrapeURL(t, "http://"+metricsAddr+"/metrics")
	assert.Contains(t, metrics, `rolloutkit_pending_approvals{addon="cluster-proxy",group="prod",placement="open-cluster-management/cluster-proxy-placement"} 1`)
	assert.Contains(t, metrics, `rolloutkit_group_phase{addon="cluster-proxy",group="prod",phase="Blocked",placement="open-cluster-management/cluster-proxy-placement"} 1`)
	assert.Contains(t, metrics, `rolloutkit_group_phase{addon="cluster-proxy",group="stg",phase="Complete",placement="open-cluster-management/cluster-proxy-placement"} 1`)
	assert.Regexp(t, `(?m)^rolloutkit_client_throttle_seconds_count [1-9]`, metrics, "the client's waits on its rate limiter, one a request")

	out, code = rolloutctl(t, cliBin, kubeconfig, "approve", addonName, "prod", "--latest")
	require.Equal(t, 0, code, out)
	e.installed(t, o, addonName, newHash, 60*time.Second)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, _ := rolloutctl(ct, cliBin, kubeconfig, "status", addonName)
		assert.NotEmpty(ct, lineWith(out, "prod", "Complete"), out)
		assert.NotContains(ct, out, "Approval")
	}, 30*time.Second, poll, "status complete")
	metrics = scrapeURL(t, "http://"+metricsAddr+"/metrics")
	assert.Contains(t, metrics, `rolloutkit_pending_approvals{addon="cluster-proxy",group="prod",placement="open-cluster-management/cluster-proxy-placement"} 0`)
}

// lineWith returns the first line of out that has every one of words as
// a field, "" when none has.
func lineWith(out string, words ...string) string {
next:
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		for _, w := range words {
			found := false
			for _, f := range fields {
				if f == w {
					found = true
					break
				}
			}
			if !found {
				continue next
			}
		}
		return line
	}
	return ""
}

// scrapeURL reads a metrics endpoint.
func scrapeURL(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	return string(b)
}

// tailOf returns the last n bytes of b.
func tailOf(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return fmt.Sprintf("...%s", b)
}
