package versionlease_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/versionlease"
)

const ns = "rolloutkit-system"

func newClient(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, coordinationv1.AddToScheme(scheme))
	return fake.NewClientBuilder().WithScheme(scheme).Build()
}

func build(v string) buildinfo.Info {
	return buildinfo.Info{Version: v, Revision: "rev-" + v, GoVersion: "go1.26.8"}
}

// names returns the replicas' names, each with its version and whether
// it is stale.
func names(rs []versionlease.Replica) []string {
	var out []string
	for _, r := range rs {
		s := r.Name + " " + r.Version
		if r.Stale {
			s += " stale"
		}
		out = append(out, s)
	}
	return out
}

// TestRollingUpgrade: an old replica and a new one report side by side;
// the old one, gone without withdrawing, is stale once it misses its
// renewals, and forgotten an hour on; the new one withdraws when it stops.
func TestRollingUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	old := &versionlease.Publisher{Client: c, Namespace: ns, Replica: "rolloutkit-controller-5d9f-old", Info: build("v0.1.0"), Clock: clk}
	cur := &versionlease.Publisher{Client: c, Namespace: ns, Replica: "rolloutkit-controller-7c4b-new", Info: build("v0.2.0"), Clock: clk}
	read := func() []string {
		t.Helper()
		rs, err := versionlease.Read(ctx, c, ns, clk.Now(), versionlease.DefaultStaleAfter)
		require.NoError(t, err)
		return names(rs)
	}
	assert.Empty(t, read(), "no lease yet")

	require.NoError(t, old.Publish(ctx))
	require.NoError(t, cur.Publish(ctx))
	assert.Equal(t, []string{"rolloutkit-controller-5d9f-old v0.1.0", "rolloutkit-controller-7c4b-new v0.2.0"}, read())
	rs, err := versionlease.Read(ctx, c, ns, clk.Now(), versionlease.DefaultStaleAfter)
	require.NoError(t, err)
	assert.Equal(t, versionlease.Replica{Name: "rolloutkit-controller-7c4b-new",
		Report: versionlease.Report{Info: build("v0.2.0"), RenewTime: metav1.NewTime(clk.Now())}}, rs[1])

	clk.Step(versionlease.DefaultStaleAfter + time.Second)
	require.NoError(t, cur.Publish(ctx))
	assert.Equal(t, []string{"rolloutkit-controller-5d9f-old v0.1.0 stale", "rolloutkit-controller-7c4b-new v0.2.0"}, read())

	clk.Step(versionlease.DefaultForgetAfter)
	require.NoError(t, cur.Publish(ctx))
	assert.Equal(t, []string{"rolloutkit-controller-7c4b-new v0.2.0"}, read(), "the old replica forgotten")

	require.NoError(t, cur.Withdraw(ctx))
	assert.Empty(t, read(), "withdrawn")
	var lease coordinationv1.Lease
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: versionlease.Name}, &lease), "the lease stays")
}

// TestStart: a running Publisher reports at once, renews every period,
// and withdraws when stopped.
func TestStart(t *testing.T) {
	t.Parallel()
	c := newClient(t)
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	p := &versionlease.Publisher{Client: c, Namespace: ns, Replica: "r1", Info: build("v0.2.0"), Clock: clk, Logger: logr.Discard()}
	assert.False(t, p.NeedLeaderElection(), "every replica reports")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()
	renewed := func(at time.Time) func() bool {
		return func() bool {
			rs, err := versionlease.Read(context.Background(), c, ns, clk.Now(), time.Hour)
			return err == nil && len(rs) == 1 && rs[0].RenewTime.Time.Equal(at)
		}
	}
	start := clk.Now()
	require.Eventually(t, renewed(start), 10*time.Second, 10*time.Millisecond, "reported at start")
	require.Eventually(t, clk.HasWaiters, 10*time.Second, 10*time.Millisecond)
	clk.Step(versionlease.DefaultPeriod)
	require.Eventually(t, renewed(start.Add(versionlease.DefaultPeriod)), 10*time.Second, 10*time.Millisecond, "renewed a period on")
	cancel()
	require.NoError(t, <-done)
	rs, err := versionlease.Read(context.Background(), c, ns, clk.Now(), time.Hour)
	require.NoError(t, err)
	assert.Empty(t, rs, "withdrawn when stopped")
}

func TestReplicaName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, replica, err string
	}{
		{"a pod's name", "rolloutkit-controller-7c4b9d-x2x9z", ""},
		{"empty", "", `replica name "": want a name that can end the annotation replicas.rolloutkit.io/...`},
		{"a slash", "a/b", `replica name "a/b"`},
		{"too long", "a234567890123456789012345678901234567890123456789012345678901234", "name part must be no more than 63 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &versionlease.Publisher{Client: newClient(t), Namespace: ns, Replica: tt.replica, Info: build("v0.2.0")}
			err := p.Publish(context.Background())
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}
