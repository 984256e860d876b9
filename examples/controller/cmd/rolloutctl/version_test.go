package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/versionlease"
)

// versionHub is a hub on which replicas, each a version and how long
// before now it last reported, have reported in namespace ns.
func versionHub(t *testing.T, ns string, replicas map[string]struct {
	version string
	ago     time.Duration
}) client.Client {
	t.Helper()
	s, err := hubclient.NewScheme()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(s).Build()
	for name, r := range replicas {
		p := &versionlease.Publisher{Client: c, Namespace: ns, Replica: name, Clock: clocktesting.NewFakeClock(now.Add(-r.ago)),
			Info: buildinfo.Info{Version: r.version, Revision: "rev-" + r.version, GoVersion: "go1.26.8"}}
		require.NoError(t, p.Publish(context.Background()))
	}
	return c
}

// TestVersionCommand: version prints the client's build and each
// replica's, says an upgrade is in progress when the replicas reporting
// differ, marks a stale replica, and exits 1 when none reports lately.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	type rep = struct {
		version string
		ago     time.Duration
	}
	client := "Client: " + buildinfo.Read().String() + "\n"
	for _, tt := range []struct {
		name     string
		ns       string // where the replicas reported
		replicas map[string]rep
		args     []string
		code     int
		stdout   []string
		stderr   string
	}{
		{"one version", defaultControllerNamespace, map[string]rep{"ctl-a": {"v0.2.0", 30 * time.Second}, "ctl-b": {"v0.2.0", 10 * time.Second}}, nil, 0, []string{
			client + "Controller (lease rolloutkit-system/rolloutkit-controller-versions): v0.2.0 (rev-v0.2.0) on 2 replica(s)\n",
			"  ctl-a: v0.2.0 (revision rev-v0.2.0, go1.26.8), reported 2026-11-30 12:29:30 UTC (30s ago)\n" +
				"  ctl-b: v0.2.0 (revision rev-v0.2.0, go1.26.8), reported 2026-11-30 12:29:50 UTC (10s ago)\n"}, ""},
		{"a rolling upgrade", defaultControllerNamespace, map[string]rep{"ctl-old": {"v0.1.0", time.Minute}, "ctl-new": {"v0.2.0", 0}}, nil, 0, []string{
			"2 versions on 2 replicas, an upgrade in progress: v0.1.0 (rev-v0.1.0), v0.2.0 (rev-v0.2.0)\n"}, ""},
		{"a replica gone without a word", defaultControllerNamespace, map[string]rep{"ctl-old": {"v0.1.0", 10 * time.Minute}, "ctl-new": {"v0.2.0", 0}}, nil, 0, []string{
			"v0.2.0 (rev-v0.2.0) on 1 replica(s)\n",
			"  ctl-old: v0.1.0 (revision rev-v0.1.0, go1.26.8), stale: last reported 2026-11-30 12:20:00 UTC (10m0s ago;"}, ""},
		{"only stale replicas", defaultControllerNamespace, map[string]rep{"ctl-a": {"v0.2.0", 10 * time.Minute}}, nil, 1, []string{
			"): no replica has reported lately\n"},
			"no replica of the controller has reported its version on lease rolloutkit-system/rolloutkit-controller-versions in the last 3m0s"},
		{"no controller", defaultControllerNamespace, nil, nil, 1, []string{client + "Controller (lease rolloutkit-system/rolloutkit-controller-versions): no replica has reported\n"},
			"is the controller running, with -leader-elect-namespace=rolloutkit-system? (--namespace names another)"},
		{"another namespace, not named", "ops", map[string]rep{"ctl-a": {"v0.2.0", 0}}, nil, 1, nil, "no replica of the controller has reported"},
		{"another namespace, named", "ops", map[string]rep{"ctl-a": {"v0.2.0", 0}}, []string{"-n", "ops"}, 0, []string{"(lease ops/rolloutkit-controller-versions): v0.2.0"}, ""},
		{"the client only", defaultControllerNamespace, nil, []string{"--client"}, 0, []string{client}, ""},
		{"bad output", defaultControllerNamespace, nil, []string{"-o", "xml"}, 2, nil, `version: -o "xml": want text, json, yaml`},
		{"an argument", defaultControllerNamespace, nil, []string{"x"}, 2, nil, `unknown command "x" for "rolloutctl version"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runWith(t, versionHub(t, tt.ns, tt.replicas), append([]string{"version"}, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			for _, want := range tt.stdout {
				assert.Contains(t, stdout, want)
			}
			assert.Contains(t, stderr, tt.stderr)
			if tt.code == 0 {
				assert.Empty(t, stderr)
			}
		})
	}
}

// TestVersionJSON: -o json is the client's build and each replica's
// report, as written.
func TestVersionJSON(t *testing.T) {
	t.Parallel()
	c := versionHub(t, defaultControllerNamespace, map[string]struct {
		version string
		ago     time.Duration
	}{"ctl-a": {"v0.2.0", 0}})
	code, stdout, stderr := runWith(t, c, "version", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var got versions
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, buildinfo.Read(), got.Client)
	require.NotNil(t, got.Controller)
	assert.Equal(t, "rolloutkit-system/rolloutkit-controller-versions", got.Controller.Lease)
	require.Len(t, got.Controller.Replicas, 1)
	r := got.Controller.Replicas[0]
	assert.Equal(t, "ctl-a", r.Name)
	assert.Equal(t, buildinfo.Info{Version: "v0.2.0", Revision: "rev-v0.2.0", GoVersion: "go1.26.8"}, r.Info)
	assert.True(t, now.Equal(r.RenewTime.Time), "renewTime %s", r.RenewTime)
	assert.False(t, r.Stale)
}

// TestVersionFlag: -version (one dash, as the controller's) and
// --version print the client's build, and reach no hub.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-version"}, {"--version"}} {
		code, stdout, stderr := runWith(t, nil, args...)
		assert.Equal(t, 0, code, stderr)
		assert.Equal(t, "rolloutctl "+buildinfo.Read().String()+"\n", stdout)
	}
}
