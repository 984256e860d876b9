package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// churnPlan is a run of config changes in a row, on one hub and one
// controller process.
type churnPlan struct {
	sizes   [3]int // dev, stg, prod clusters
	changes int
	// overlapEvery: every overlapEvery-th change starts while the one
	// before it is in flight (once dev has applied it); the others start
	// as the one before completes. 0: none overlaps.
	overlapEvery int
	soak, apply  time.Duration
}

// churnRollout is what one change of a churn run measured, read when its
// rollout completed (or, for one superseded in flight, when the next
// change started).
type churnRollout struct {
	superseded bool    // the next change started while it was in flight
	seconds    float64 // from the change to Completed, or to the next change
	writes     float64 // the controller's API writes per cluster
	rssMiB     float64 // the controller's resident memory
	goroutines float64 // the controller's goroutines
}

// churn runs plan: a compiled controller (as users run it, its metrics
// plain HTTP on a free port) and the simulated agents on a hub of its own
// with the seed's story at plan's sizes; then plan.changes changes of the
// agent image in a row. It returns one churnRollout a change, in order.
func churn(t testing.TB, plan churnPlan) []churnRollout {
	t.Helper()
	// A hub of its own: the compiled controller takes every add-on of the
	// default lifecycle.
	e := newEnv(t)
	o := e.seed(t, testhub.SeedOptions{Sizes: plan.sizes, Strategy: testhub.Strategy(plan.soak.String(), "5m", 0)})
	kc, err := e.hub.KubeConfig()
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, kc, 0o600))
	metrics := freePort(t)
	ctl := exec.Command(shared.controller.get(t), "-kubeconfig", kubeconfig, "-placements", "-metrics-bind-address", metrics, "-metrics-secure=false",
		"-health-probe-bind-address", "0", "-webhook-bind-address", "0", "-zap-log-level", "error")
	ctl.Stderr = os.Stderr
	require.NoError(t, ctl.Start())
	t.Cleanup(func() { _ = ctl.Process.Kill(); _ = ctl.Wait() })
	e.agents(t, plan.apply, nil)
	waitInstalled(t, e, o, specHash(t, testhub.Image), 5*time.Minute)

	clusters := float64(len(o.Clusters()))
	out := make([]churnRollout, 0, plan.changes)
	for i := range plan.changes {
		image := fmt.Sprintf("%s-churn.%d", newImage, i)
		h := specHash(t, image)
		before := scrape(t, metrics)
		start := time.Now()
		require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, image))
		r := churnRollout{superseded: plan.overlapEvery > 0 && (i+2)%plan.overlapEvery == 0 && i+1 < plan.changes}
		if r.superseded {
			waitApplied(t, e, h, plan.sizes[0], 5*time.Minute)
		} else {
			waitInstalled(t, e, o, h, 10*time.Minute)
		}
		r.seconds = time.Since(start).Seconds()
		after := scrape(t, metrics)
		r.writes, r.rssMiB, r.goroutines = (after.writes-before.writes)/clusters, after.rss/(1<<20), after.goroutines
		t.Logf("change %d: superseded %t, %.1fs, %.2f writes/cluster, %.1f MiB, %.0f goroutines", i+1, r.superseded, r.seconds, r.writes, r.rssMiB, r.goroutines)
		out = append(out, r)
	}
	return out
}

// waitApplied polls (every second, with one LIST) until at least n
// add-ons have applied h.
func waitApplied(t testing.TB, e *env, h string, n int, timeout time.Duration) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var l addonv1alpha1.ManagedClusterAddOnList
		if !assert.NoError(ct, e.c.List(context.Background(), &l)) {
			return
		}
		done := 0
		for _, m := range l.Items {
			for _, r := range m.Status.ConfigReferences {
				if r.LastAppliedConfig != nil && r.LastAppliedConfig.SpecHash == h {
					done++
				}
			}
		}
		assert.GreaterOrEqual(ct, done, n, "add-ons that applied %.8s", h)
	}, timeout, time.Second)
}

// completed returns the rollouts of rs that completed, in order.
func completed(rs []churnRollout) []churnRollout {
	var out []churnRollout
	for _, r := range rs {
		if !r.superseded {
			out = append(out, r)
		}
	}
	return out
}

// meanOf is the mean of f over rs.
func meanOf(rs []churnRollout, f func(churnRollout) float64) float64 {
	sum := 0.0
	for _, r := range rs {
		sum += f(r)
	}
	return sum / float64(len(rs))
}

// TestChurn is BenchmarkChurn at CI's size: 60 clusters (10 dev, 20 stg,
// 30 prod) and 5 changes in a row, the fourth started while the third is
// in flight. Every change completes but the superseded one, and the
// controller's goroutines after the last rollout are those after the
// first, within 5%: nothing it starts per rollout outlives the rollout.
// (Its memory is reported, not held to 5%: at this size the heap is mostly
// the informers' and the garbage collector's slack.)
func TestChurn(t *testing.T) {
	t.Parallel()
	rs := churn(t, churnPlan{sizes: [3]int{10, 20, 30}, changes: 5, overlapEvery: 4, soak: 2 * time.Second, apply: time.Second})
	require.Len(t, rs, 5)
	assert.True(t, rs[2].superseded, "the third change was not superseded in flight")
	done := completed(rs)
	first, last := done[0], done[len(done)-1]
	assert.InEpsilon(t, first.goroutines, last.goroutines, 0.05, "goroutines after the first rollout and the last")
	for i, r := range done {
		assert.Less(t, r.writes, 10.0, "completed rollout %d: controller writes per cluster", i+1)
	}
}

// BenchmarkChurn runs 30 config changes in a row over 1,000 clusters (100
// dev, 300 stg, 600 prod), as a controller meets them over weeks: most
// start as the last completes, and every sixth while the one before is in
// flight (dev has applied it), superseding it. The controller runs as its
// own process. It reports, per rollout, in the log: change to Completed
// (to the next change, for a superseded one), the controller's writes per
// cluster, its resident memory and its goroutines; and, as benchmark
// metrics, the means over the first ten completed rollouts and over the
// last ten. It fails when the last ten's memory or goroutines are more
// than 5% above the first ten's.
//
// Run it alone, by hand (about 20 minutes on 2 cores):
//
//	go test -run '^$' -bench Churn -benchtime 1x -timeout 60m ./e2e/
func BenchmarkChurn(b *testing.B) {
	for range b.N {
		rs := churn(b, churnPlan{sizes: [3]int{100, 300, 600}, changes: 30, overlapEvery: 6, soak: 2 * time.Second, apply: time.Second})
		done := completed(rs)
		require.GreaterOrEqual(b, len(done), 20)
		first, last := done[:10], done[len(done)-10:]
		for _, m := range []struct {
			unit string
			f    func(churnRollout) float64
			flat bool
		}{
			{"s/rollout", func(r churnRollout) float64 { return r.seconds }, false},
			{"writes/cluster", func(r churnRollout) float64 { return r.writes }, false},
			{"MiB", func(r churnRollout) float64 { return r.rssMiB }, true},
			{"goroutines", func(r churnRollout) float64 { return r.goroutines }, true},
		} {
			a, z := meanOf(first, m.f), meanOf(last, m.f)
			b.ReportMetric(a, "first10-"+m.unit)
			b.ReportMetric(z, "last10-"+m.unit)
			if m.flat {
				assert.LessOrEqual(b, z, a*1.05, "%s: the last ten rollouts' mean against the first ten's", m.unit)
			}
		}
	}
}
