package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// BenchmarkRollout1000 rolls a config change out over 1,000 clusters (100
// dev, 300 stg, 600 prod, one add-on each) on a real API server, with the
// controller built and run as its own process (as a user runs it) and the
// simulated add-on manager and work agents in this one: the controller
// writes desiredConfig, the add-on manager renders each cluster's
// ManifestWork, the work agent applies it in apply, and the controller
// reads the progress back from the works. It reports, for one rollout:
//
//   - s/rollout: from the config change to the install progression's
//     Completed; soak-s, the part of it that is soak by the strategy, and
//     floor-s, groups x (apply + soak), the least any rollout can take;
//   - writes/cluster: the controller's API writes during the rollout, per
//     cluster, from its own rest_client_requests_total;
//   - reads: its GET and LIST requests during the rollout (reconciles read
//     from the informer cache, so these stay near zero);
//   - reconciles: its reconciles during the rollout;
//   - peak-MiB: the controller process's peak resident memory (VmHWM).
//
// Run it alone: go test -run '^$' -bench Rollout1000 -benchtime 1x ./e2e/
func BenchmarkRollout1000(b *testing.B) {
	if _, err := testhub.Assets(); err != nil {
		b.Skipf("SKIP (no test API server): %v", err)
	}
	const (
		soak  = 5 * time.Second
		apply = 2 * time.Second
	)
	sizes := [3]int{100, 300, 600}
	// qps=100 is the controller's default; qps=1000 shows how much of the
	// time is the client's own rate limit.
	for _, qps := range []int{100, 1000} {
		b.Run(fmt.Sprintf("qps=%d", qps), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m := rollout1000(b, sizes, soak, apply, qps)
				b.ReportMetric(m.seconds, "s/rollout")
				b.ReportMetric((3 * soak).Seconds(), "soak-s")
				b.ReportMetric((3 * (apply + soak)).Seconds(), "floor-s")
				b.ReportMetric(m.writes/1000, "writes/cluster")
				b.ReportMetric(m.reads, "reads")
				b.ReportMetric(m.reconciles, "reconciles")
				b.ReportMetric(m.peakMiB, "peak-MiB")
			}
		})
	}
}

type scaleResult struct {
	seconds, writes, reads, reconciles, peakMiB float64
}

func rollout1000(b *testing.B, sizes [3]int, soak, apply time.Duration, qps int) scaleResult {
	b.Helper()
	b.StopTimer()
	h, err := testhub.Start()
	require.NoError(b, err)
	defer func() { _ = h.Stop() }()
	c, err := h.Client()
	require.NoError(b, err)
	e := &env{hub: h, c: c, names: seedNames()}
	o := e.seed(b, testhub.SeedOptions{Sizes: sizes, Strategy: testhub.Strategy(soak.String(), "5m", 0)})
	ctx := context.Background()

	dir := b.TempDir()
	kc, err := h.KubeConfig()
	require.NoError(b, err)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(b, os.WriteFile(kubeconfig, kc, 0o600))
	bin := filepath.Join(dir, "controller")
	build := exec.Command("go", "build", "-o", bin, "..")
	build.Stderr = os.Stderr
	require.NoError(b, build.Run())
	metrics := freePort(b)
	ctl := exec.Command(bin, "-kubeconfig", kubeconfig, "-metrics-bind-address", metrics, "-metrics-secure=false", "-health-probe-bind-address", "0", "-zap-log-level", "error",
		"-kube-api-qps", strconv.Itoa(qps), "-kube-api-burst", strconv.Itoa(2*qps))
	ctl.Stderr = os.Stderr
	require.NoError(b, ctl.Start())
	defer func() { _ = ctl.Process.Kill(); _ = ctl.Wait() }()
	agents := e.agents(b, apply, nil)
	defer agents.stop(b)

	waitInstalled(b, e, o, specHash(b, testhub.Image), 5*time.Minute)
	before := scrape(b, metrics)
	newHash := specHash(b, newImage)
	start := time.Now()
	require.NoError(b, testhub.SetAgentImage(ctx, e.c, newImage))
	b.StartTimer()
	waitInstalled(b, e, o, newHash, 10*time.Minute)
	b.StopTimer()
	elapsed := time.Since(start)
	after := scrape(b, metrics)
	return scaleResult{
		seconds:    elapsed.Seconds(),
		writes:     after.writes - before.writes,
		reads:      after.reads - before.reads,
		reconciles: after.reconciles - before.reconciles,
		peakMiB:    peakRSS(b, ctl.Process.Pid),
	}
}

// waitInstalled polls (every second, with one LIST) until every add-on has
// applied h and the install progression is Completed.
func waitInstalled(b testing.TB, e *env, o seeded, h string, timeout time.Duration) {
	b.Helper()
	want := len(o.Clusters())
	deadline := time.Now().Add(timeout)
	for {
		var l addonv1alpha1.ManagedClusterAddOnList
		require.NoError(b, e.c.List(context.Background(), &l))
		done := 0
		for _, m := range l.Items {
			if len(m.Status.ConfigReferences) == 1 {
				r := m.Status.ConfigReferences[0]
				if r.LastAppliedConfig != nil && r.LastAppliedConfig.SpecHash == h {
					done++
				}
			}
		}
		var cma addonv1alpha1.ClusterManagementAddOn
		require.NoError(b, e.c.Get(context.Background(), types.NamespacedName{Name: addonName}, &cma))
		completed := false
		if len(cma.Status.InstallProgressions) == 1 {
			c := meta.FindStatusCondition(cma.Status.InstallProgressions[0].Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			completed = c != nil && c.Reason == addonv1beta1.ProgressingReasonCompleted &&
				cma.Status.InstallProgressions[0].ConfigReferences[0].LastKnownGoodConfig != nil &&
				cma.Status.InstallProgressions[0].ConfigReferences[0].LastKnownGoodConfig.SpecHash == h
		}
		if done == want && completed {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("rollout of %.8s: %d/%d applied, completed %t, after %s", h, done, want, completed, timeout)
		}
		time.Sleep(time.Second)
	}
}

// counters are the controller's own metrics that the benchmarks read:
// its API requests and reconciles so far, its resident memory in bytes
// and its goroutines now.
type counters struct{ writes, reads, reconciles, rss, goroutines float64 }

// scrape reads the controller's /metrics, as expfmt parses them.
func scrape(b testing.TB, addr string) counters {
	b.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(b, err)
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(b, err)
	var c counters
	for _, m := range families["rest_client_requests_total"].GetMetric() {
		method := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "method" {
				method = l.GetValue()
			}
		}
		switch method {
		case http.MethodGet:
			c.reads += m.GetCounter().GetValue()
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			c.writes += m.GetCounter().GetValue()
		}
	}
	for _, m := range families["controller_runtime_reconcile_total"].GetMetric() {
		c.reconciles += m.GetCounter().GetValue()
	}
	for _, m := range families["process_resident_memory_bytes"].GetMetric() {
		c.rss = m.GetGauge().GetValue()
	}
	for _, m := range families["go_goroutines"].GetMetric() {
		c.goroutines = m.GetGauge().GetValue()
	}
	return c
}

// peakRSS is a process's peak resident memory in MiB (VmHWM), as procfs
// reads it.
func peakRSS(b testing.TB, pid int) float64 {
	b.Helper()
	p, err := procfs.NewProc(pid)
	require.NoError(b, err)
	st, err := p.NewStatus()
	require.NoError(b, err)
	return float64(st.VmHWM) / (1 << 20)
}

func freePort(b testing.TB) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	defer l.Close()
	return l.Addr().String()
}
