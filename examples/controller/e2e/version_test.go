package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
)

// The build TestVersion stamps on its newer controller.
const (
	stampedVersion  = "v0.2.0-e2e"
	stampedRevision = "fedcba9876543210fedcba9876543210fedcba98"
)

// TestVersion runs a rolling upgrade of the compiled controller, as the
// ServiceAccount config/default installs, under the shipped RBAC alone: a
// replica of this tree's go build ("ctl-old"), then one built by
// hack/build-controller.sh, as a release builds it, stamped with another
// version ("ctl-new"). Run by a user bound to the viewer role only,
// kubectl rolloutkit version shows
//
//   - the old replica alone, then both side by side, an upgrade in
//     progress (text and -o json), then, once the old one has stopped, the
//     new one alone: a replica that stops withdraws its report;
//
// and as a user bound to nothing it is refused (exit 1). The new replica
// exports rolloutkit_build_info with its stamped version, and its
// -version, and the plugin's, exit 0 with the version and revision.
func TestVersion(t *testing.T) {
	t.Parallel()
	// A hub of its own: the shipped RBAC is cluster-wide, under its own
	// names.
	e := newEnv(t)
	e.installRBAC(t)
	kubeconfig := writeKubeconfig(t, e.serviceAccountConfig(t))
	newBin := stampedController(t)
	cli := binary(t, "./cmd/rolloutctl", "kubectl-rolloutkit")
	e.bind(t, viewerRole, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "vic"})
	viewer := e.impersonating(t, "vic")

	out, err := exec.Command(newBin, "-version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "controller "+stampedVersion+" (revision "+stampedRevision+", "+runtime.Version()+")\n", string(out))
	out, err = exec.Command(cli, "-version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, `^kubectl rolloutkit \S+ \(revision \S+, go[0-9.]+\)\n$`, string(out))

	args := []string{"-kubeconfig", kubeconfig, "-leader-elect", "-leader-elect-namespace", controllerNamespace, "-health-probe-bind-address", "0"}
	oldLog := filepath.Join(t.TempDir(), "old.log")
	old := startBinary(t, shared.controller.get(t), oldLog, append(args, "-replica-name", "ctl-old", "-metrics-bind-address", "0")...)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, code := rolloutctl(ct, cli, viewer, "version")
		assert.Equal(ct, 0, code, out)
		assert.Regexp(ct, `(?m)^Controller \(lease rolloutkit-system/rolloutkit-controller-versions\): \S+ \(\S+\) on 1 replica\(s\)$`, out)
		assert.Contains(ct, out, "\n  ctl-old: ")
	}, 60*time.Second, poll, "the old replica reports")

	metrics := hubtest.FreeAddr(t)
	newLog := filepath.Join(t.TempDir(), "new.log")
	startBinary(t, newBin, newLog, append(args, "-replica-name", "ctl-new", "-metrics-bind-address", metrics, "-metrics-secure=false")...)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, code := rolloutctl(ct, cli, viewer, "version")
		assert.Equal(ct, 0, code, out)
		assert.Contains(ct, out, "2 versions on 2 replicas, an upgrade in progress: ")
		assert.Contains(ct, out, "\n  ctl-new: "+stampedVersion+" (revision "+stampedRevision+", "+runtime.Version()+"), reported ")
	}, 60*time.Second, poll, "both replicas report")
	requireReplicas(t, cli, viewer, map[string]string{"ctl-old": "", "ctl-new": stampedVersion})
	assert.Contains(t, scrapeURL(t, "http://"+metrics+"/metrics"),
		`rolloutkit_build_info{goversion="`+runtime.Version()+`",revision="`+stampedRevision+`",version="`+stampedVersion+`"} 1`)

	old.stop(t)
	out2, code := rolloutctl(t, cli, viewer, "version")
	assert.Equal(t, 0, code, out2)
	assert.Contains(t, out2, ": "+stampedVersion+" ("+stampedRevision+") on 1 replica(s)\n")
	assert.NotContains(t, out2, "ctl-old", "the old replica withdrew its report when it stopped")

	out2, code = rolloutctl(t, cli, e.impersonating(t, "nobody"), "version")
	assert.Equal(t, 1, code, out2)
	assert.Contains(t, out2, `leases.coordination.k8s.io "rolloutkit-controller-versions" is forbidden: User "nobody" cannot get`)
	for _, log := range []string{oldLog, newLog} {
		b, err := os.ReadFile(log)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "versionlease", "a replica could not publish its version")
	}
}

// requireReplicas checks version -o json: the replicas reporting, by name,
// each with its version ("": any).
func requireReplicas(t *testing.T, cli, kubeconfig string, want map[string]string) {
	t.Helper()
	out, code := rolloutctl(t, cli, kubeconfig, "version", "-o", "json")
	require.Equal(t, 0, code, out)
	var doc struct {
		Controller struct {
			Replicas []struct {
				Replica, Version string
				Stale            bool
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	got := map[string]string{}
	for _, r := range doc.Controller.Replicas {
		assert.False(t, r.Stale, "%s is stale", r.Replica)
		got[r.Replica] = r.Version
		if want[r.Replica] == "" {
			got[r.Replica] = ""
		}
	}
	assert.Equal(t, want, got)
}

// stampedController builds the controller with hack/build-controller.sh,
// stamped with stampedVersion and stampedRevision, and returns its path.
func stampedController(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "controller")
	cmd := exec.Command("bash", filepath.Join("..", "..", "..", "hack", "build-controller.sh"), bin)
	cmd.Env = append(os.Environ(), "VERSION="+stampedVersion, "REVISION="+stampedRevision, "MODIFIED=false")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "hack/build-controller.sh: %s", out)
	return bin
}

// startBinary runs the controller binary bin with args, its output in the
// file logs; a failed test logs its end.
func startBinary(t *testing.T, bin, logs string, args ...string) *process {
	t.Helper()
	f, err := os.Create(logs)
	require.NoError(t, err)
	p := &process{cmd: exec.Command(bin, args...), done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = f, f
	require.NoError(t, p.cmd.Start())
	go func() {
		p.done <- p.cmd.Wait()
		f.Close()
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("%s:\n%s", filepath.Base(logs), tailOf(b, 8000))
		}
	})
	return p
}
