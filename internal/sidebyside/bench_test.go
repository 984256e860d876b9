package sidebyside

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

var (
	benchQPS        = flag.Int("sidebyside.qps", 0, "BenchmarkAddOnManagerSideBySide: the client rate limit of both sides (0: each its own default: rolloutkit 500, OCM 50)")
	benchController = flag.String("sidebyside.controller", "", "BenchmarkAddOnManagerSideBySide: run this rolloutkit controller binary on our side (an older build, to compare); the shared agents stay this tree's")
	benchProfile    = flag.String("sidebyside.apiserver-profile", "", "BenchmarkAddOnManagerSideBySide: write a 20s CPU profile of kube-apiserver, taken from the config change on, to this file prefix (one file per run)")
	benchWait       = flag.Duration("sidebyside.wait", 30*time.Minute, "BenchmarkAddOnManagerSideBySide: how long each side may take to install, and then to roll the change out, before the run fails naming where it stands")
	benchClusters   = flag.String("sidebyside.clusters", "1000,3500", "BenchmarkAddOnManagerSideBySide: the hub sizes to run, comma-separated (each at least 10)")
	benchGate       = flag.String("sidebyside.gate", "off", "BenchmarkAddOnManagerSideBySide: our side's work gate: off; on (our side serves it, installed on the hub, and the hub asks it about every create and content change of our works); "+
		"both (our side without it, then with it, and their ratios)")
)

// benchVariants are the sides -sidebyside.gate runs: OCM's, and ours
// without the work gate, with it, or both.
func benchVariants() ([]benchVariant, error) {
	ocm, ours, gated := benchVariant{side: ocmSide}, benchVariant{side: oursSide}, benchVariant{side: oursSide, gate: true}
	switch *benchGate {
	case "off":
		return []benchVariant{ocm, ours}, nil
	case "on":
		return []benchVariant{ocm, gated}, nil
	case "both":
		return []benchVariant{ocm, ours, gated}, nil
	}
	return nil, fmt.Errorf("-sidebyside.gate %q: want off, on or both", *benchGate)
}

// benchVariant is one side as the benchmark runs it.
type benchVariant struct {
	side side
	gate bool // our side serves the work gate
}

// name is the variant's sub-benchmark name: side=OCM, side=rolloutkit,
// side=rolloutkit-gate.
func (v benchVariant) name() string {
	if v.gate {
		return "side=" + v.side.name + "-gate"
	}
	return "side=" + v.side.name
}

// benchSizes parses -sidebyside.clusters.
func benchSizes() ([]int, error) {
	var out []int
	for _, f := range strings.Split(*benchClusters, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			return nil, fmt.Errorf("-sidebyside.clusters %q: %q is not a whole number of at least 10", *benchClusters, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// The benchmark's rollout: groups of 10%, 30% and 60% of the clusters, a
// work agent applying in 2s, a soak of 5s. No rollout can take less than
// the floor, 3 x (2s + 5s).
const (
	benchApply = 2 * time.Second
	benchSoak  = 5 * time.Second
	benchFloor = 3 * (benchApply + benchSoak)
)

// BenchmarkAddOnManagerSideBySide rolls one config change out over 1,000
// and 3,500 clusters with each side: OCM v1.2.0's add-on manager, then the
// rolloutkit controller, one after the other, each on a fresh hub of its
// own seeded alike (so that neither pays for the other's objects or CPU on
// a 2-core machine), with the same shared agents: rolloutkit's Placement
// scheduler, and the simulated add-on deployer and work agents, not rate
// limited (each cluster has a work agent of its own). Each side first
// installs its add-on on every cluster; the timer covers the change only.
// It reports, per side:
//
//   - s/rollout: from the config change to the install progression's
//     Completed with the new config as last known good; x-floor, that over
//     the floor (floor-s);
//   - writes/cluster and reads: the side's own API requests during the
//     rollout (rest_client_requests_total: POST, PUT, PATCH and DELETE;
//     GET, which counts LISTs);
//   - peak-MiB: the side's peak resident memory (VmHWM), install included;
//     cpu-s: its CPU time during the rollout;
//   - apiserver-cpu-s, etcd-cpu-s, agents-cpu-s: the CPU the rest of the
//     hub spent in the meantime, and write-ms: the API server's mean time
//     for a write of a ManagedClusterAddOn (apiserver_request_duration_seconds);
//     apiserver-peak-MiB, etcd-peak-MiB: their peak resident memory;
//   - with the work gate (side=rolloutkit-gate): gate-calls and
//     gate-rejected, the API server's calls of the gate during the
//     rollout, gate-ms their mean duration
//     (apiserver_admission_webhook_admission_duration_seconds), and
//     gate-refusals, the writes the gate refused as our side counts them,
//     gate-handler-ms the mean time of its handler in our side's webhook
//     server (controller_runtime_webhook_latency_seconds);
//     gate-install-calls, the API server's calls of the gate during the
//     install, before the timer (each work's create, and the work agent's
//     update that puts its finalizer on, unless the configuration's
//     matchConditions keep that away); after a run without the gate
//     (-sidebyside.gate both), x-rollout-without-gate,
//     x-apiserver-cpu-without-gate and x-cpu-without-gate, the ratios to
//     it. The agents render honestly (from the desired spec), so every
//     work update the rollout makes is admitted: the gate's cost alone.
//     The run fails unless the gate's configuration is scoped to the
//     add-on (workgate.Scope) by the end of the install.
//
// It logs where the time went, group by group. Run it by hand:
//
//	go test -run '^$' -bench 'SideBySide/clusters=1000' -benchtime 1x -timeout 60m .
//
// (-sidebyside.qps N gives both sides the same client rate limit;
// -sidebyside.clusters 100,300 runs other sizes; -sidebyside.gate on runs
// our side with the work gate, -sidebyside.gate both without it and with
// it, and logs the ratios:
//
//	go test -run '^$' -bench 'SideBySide/clusters=1000/side=rolloutkit' -benchtime 1x -timeout 60m -sidebyside.clusters 1000 -sidebyside.gate both .
//
// runs our side alone, twice.)
func BenchmarkAddOnManagerSideBySide(b *testing.B) {
	needHub(b)
	ns, err := benchSizes()
	if err != nil {
		b.Fatal(err)
	}
	variants, err := benchVariants()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range ns {
		sizes := [3]int{n / 10, 3 * n / 10, n - n/10 - 3*n/10}
		measured := map[bool]rolloutMeasure{} // our side's last rollout, by gate
		for _, vr := range variants {
			b.Run(fmt.Sprintf("clusters=%d/%s", n, vr.name()), func(b *testing.B) {
				for range b.N {
					m := measureRollout(b, vr, sizes)
					if vr.side == oursSide {
						measured[vr.gate] = m
					}
					reportRollout(b, n, vr, m, measured)
				}
			})
		}
		if without, with, ok := pair(measured); ok {
			b.Logf("clusters=%d: our side with the work gate over without it (shown with -v):%s", n, gateRatios(with, without))
		}
	}
}

// reportRollout reports one side's rollout over n clusters; with the
// gate, also its ratios to our side's rollout without it, when that ran
// just before.
func reportRollout(b *testing.B, n int, vr benchVariant, m rolloutMeasure, measured map[bool]rolloutMeasure) {
	b.ReportMetric(m.seconds, "s/rollout")
	b.ReportMetric(benchFloor.Seconds(), "floor-s")
	b.ReportMetric(m.seconds/benchFloor.Seconds(), "x-floor")
	b.ReportMetric(m.writes/float64(n), "writes/cluster")
	b.ReportMetric(m.reads, "reads")
	b.ReportMetric(m.side.peakMiB, "peak-MiB")
	b.ReportMetric(m.side.cpuSeconds, "cpu-s")
	b.ReportMetric(m.apiserver.cpuSeconds, "apiserver-cpu-s")
	b.ReportMetric(m.apiserver.peakMiB, "apiserver-peak-MiB")
	b.ReportMetric(m.etcd.peakMiB, "etcd-peak-MiB")
	b.ReportMetric(m.etcd.cpuSeconds, "etcd-cpu-s")
	b.ReportMetric(m.agents.cpuSeconds, "agents-cpu-s")
	b.ReportMetric(m.writeMillis, "write-ms")
	if !vr.gate {
		return
	}
	b.ReportMetric(m.gate.admitted+m.gate.rejected, "gate-calls")
	b.ReportMetric(m.gate.rejected, "gate-rejected")
	b.ReportMetric(m.refusals, "gate-refusals")
	b.ReportMetric(m.gate.meanMillis(), "gate-ms")
	b.ReportMetric(m.handlerMillis, "gate-handler-ms")
	b.ReportMetric(m.installGate.admitted+m.installGate.rejected, "gate-install-calls")
	if without, ok := measured[false]; ok {
		b.ReportMetric(m.seconds/without.seconds, "x-rollout-without-gate")
		b.ReportMetric(m.apiserver.cpuSeconds/without.apiserver.cpuSeconds, "x-apiserver-cpu-without-gate")
		b.ReportMetric(m.side.cpuSeconds/without.side.cpuSeconds, "x-cpu-without-gate")
	}
}

// pair returns our side's rollouts without the gate and with it, when
// both ran.
func pair(measured map[bool]rolloutMeasure) (without, with rolloutMeasure, ok bool) {
	without, ok1 := measured[false]
	with, ok2 := measured[true]
	return without, with, ok1 && ok2
}

// gateRatios compares our side's rollout with the work gate to one
// without it.
func gateRatios(with, without rolloutMeasure) string {
	ratio := func(a, b float64) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", a/b)
	}
	var sb strings.Builder
	for _, r := range []struct {
		what       string
		with, wout float64
	}{
		{"change to Completed (s)", with.seconds, without.seconds},
		{"kube-apiserver CPU (s)", with.apiserver.cpuSeconds, without.apiserver.cpuSeconds},
		{"our controller CPU (s)", with.side.cpuSeconds, without.side.cpuSeconds},
		{"etcd CPU (s)", with.etcd.cpuSeconds, without.etcd.cpuSeconds},
		{"agents CPU (s)", with.agents.cpuSeconds, without.agents.cpuSeconds},
		{"our controller's writes", with.writes, without.writes},
		{"our controller's reads", with.reads, without.reads},
	} {
		fmt.Fprintf(&sb, "\n  %-24s %8.1f / %8.1f = %s", r.what, r.with, r.wout, ratio(r.with, r.wout))
	}
	fmt.Fprintf(&sb, "\n  the gate: the API server called it %s (its handler: %.1f ms); it refused %.0f writes; during the install it called it %s",
		with.gate, with.handlerMillis, with.refusals, with.installGate)
	return sb.String()
}

// rolloutMeasure is what one rollout cost one side.
type rolloutMeasure struct {
	seconds       float64
	writes, reads float64
	writeMillis   float64
	// gate: the API server's calls of validating webhooks (the work
	// gate's, the only one); refusals: the writes the gate refused, as
	// our side counts them.
	gate     webhookCalls
	refusals float64
	// handlerMillis: the mean time the gate's handler took in our side's
	// webhook server, of gate.meanMillis() as the API server timed a call.
	handlerMillis float64
	// installGate: the API server's calls of the gate during the install.
	installGate webhookCalls
	// side, apiserver, etcd: peak memory over their whole life; each: CPU
	// during the rollout.
	side, apiserver, etcd, agents usage
}

// measureRollout starts a hub, seeds it with sizes, runs a side (with the
// work gate, installed with the shipped configuration, when vr says so)
// and the shared agents, installs, and measures one config change.
func measureRollout(b *testing.B, vr benchVariant, sizes [3]int) rolloutMeasure {
	b.StopTimer()
	s := vr.side
	dir := b.TempDir()
	bin := programs(b)
	hubProc, kubeconfig := startHub(b, bin, dir)
	defer hubProc.stop(b)
	h := newHub(b, kubeconfig)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // before the hub stops: it waits for open watches
	if err := h.seedHub(ctx, sizes, nil); err != nil {
		b.Fatal(err)
	}
	var clusters []string
	for _, names := range clusterNames(sizes) {
		clusters = append(clusters, names...)
	}
	rec := record(ctx, b, h, false)
	agents := start(b, dir, "agents", bin.testhub, "agents", "-kubeconfig", kubeconfig, "-placements",
		"-apply", benchApply.String(), "-kube-api-qps", "10000", "-kube-api-burst", "20000", "-zap-log-level", "error")
	defer agents.stop(b)
	addr := freeAddr(b)
	var gate *gateServer
	if vr.gate {
		gate = newGateServer(b, dir)
		gate.metrics = addr
		if err := gate.install(ctx, h); err != nil {
			b.Fatal(err)
		}
	}
	var ctl *proc
	var rate []string
	if *benchQPS > 0 {
		rate = []string{"-kube-api-qps", strconv.Itoa(*benchQPS), "-kube-api-burst", strconv.Itoa(2 * *benchQPS)}
	}
	if s == ocmSide {
		ctl = start(b, dir, "ocm-addon-manager", bin.ocm, append([]string{"-kubeconfig", kubeconfig, "-metrics-bind-address", addr}, rate...)...)
	} else {
		ours := bin.controller
		if *benchController != "" {
			ours = *benchController
		}
		// -placements=false, the default now, for an older build too.
		args := append([]string{"-kubeconfig", kubeconfig, "-placements=false",
			"-lifecycle", lifecycleOurs, "-metrics-bind-address", addr, "-metrics-secure=false", "-health-probe-bind-address", "0", "-zap-log-level", "error"}, rate...)
		if gate != nil {
			args = append(args, gate.flags()...)
		}
		ctl = start(b, dir, "rolloutkit-controller", ours, args...)
	}
	defer ctl.stop(b)
	strategy := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{
			MinSuccessTime: metav1.Duration{Duration: benchSoak}, ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(0),
		}},
	}
	exited := func() string {
		for _, p := range []*proc{agents, ctl} {
			if done, err := p.exited(); done {
				return fmt.Sprintf("\n%s exited (%v):\n%s", p.name, err, p.tail(20))
			}
		}
		return ""
	}
	var installing webhookCalls
	if gate != nil {
		gate.waitServing(ctx, b, h, exited)
		installing = scrapeAPIServer(b, h).webhooks
	}
	if err := h.createAddons(ctx, strategy, s); err != nil {
		b.Fatal(err)
	}
	v1, v2 := configHash(b, "v1"), configHash(b, "v2")
	rec.waitFor(b, *benchWait, "install", func(v view) (bool, string) {
		ok, msg := rolledOut(v, s.addon, clusters, v1)
		return ok, msg + exited()
	})
	time.Sleep(2 * time.Second) // the last writes of the install settle
	if gate != nil {
		why, err := gate.scoped(ctx, h, labels.Set{addonv1alpha1.AddonLabelKey: s.addon}, nil)
		if err != nil || why != "" {
			b.Fatalf("the work gate is not scoped to %s once it is installed: %v%s", s.addon, err, why)
		}
	}

	hubPIDs := children(b, hubProc.cmd.Process.Pid)
	before := snapshot(b, h, addr, ctl, agents, hubPIDs)
	changed := time.Now()
	if err := h.setAgentImage(ctx, "v2"); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	sampling := sampleCPU([]int{ctl.cmd.Process.Pid, agents.cmd.Process.Pid, hubPIDs["kube-apiserver"], hubPIDs["etcd"]})
	profiled := make(chan error, 1)
	if *benchProfile != "" {
		go func() {
			profiled <- profileAPIServer(h, fmt.Sprintf("%s-%s-%d.pprof", *benchProfile, s.name, len(clusters)))
		}()
	} else {
		profiled <- nil
	}
	rec.waitFor(b, *benchWait, "rollout", func(v view) (bool, string) {
		ok, msg := rolledOut(v, s.addon, clusters, v2)
		return ok, msg + exited()
	})
	b.StopTimer()
	cpu := sampling()
	after := snapshot(b, h, addr, ctl, agents, hubPIDs)
	if err := <-profiled; err != nil {
		b.Fatal(err)
	}
	b.Logf("API server, during the rollout:%s", apiActivity(before.api, after.api))
	b.Logf("CPU, by second of the rollout (cores; the machine has %d):%s", runtime.NumCPU(), cpu)
	if len(after.client.reconciles) > 0 {
		var sb strings.Builder
		for _, c := range slices.Sorted(maps.Keys(after.client.reconciles)) {
			fmt.Fprintf(&sb, " %s %.0f in %.1fs;", c, after.client.reconciles[c]-before.client.reconciles[c],
				after.client.reconcileSecs[c]-before.client.reconcileSecs[c])
		}
		b.Logf("%s's reconciles during the rollout:%s", s.name, sb.String())
	}
	events, cmas := rec.history(s.addon)
	done := completedAt(cmas, v2, changed)
	b.Logf("%s, %d clusters:%s", s.name, len(clusters), breakdown(events, v2, changed, done))

	m := rolloutMeasure{
		seconds:   done.Sub(changed).Seconds(),
		writes:    after.client.writes - before.client.writes,
		reads:     after.client.reads - before.client.reads,
		side:      usage{peakMiB: after.side.peakMiB, cpuSeconds: after.side.cpuSeconds - before.side.cpuSeconds},
		apiserver: usage{peakMiB: after.apiserver.peakMiB, cpuSeconds: after.apiserver.cpuSeconds - before.apiserver.cpuSeconds},
		etcd:      usage{peakMiB: after.etcd.peakMiB, cpuSeconds: after.etcd.cpuSeconds - before.etcd.cpuSeconds},
		agents:    usage{cpuSeconds: after.agents.cpuSeconds - before.agents.cpuSeconds},
	}
	if gate != nil {
		m.gate = after.api.webhooks.minus(before.api.webhooks)
		m.installGate = before.api.webhooks.minus(installing)
		m.refusals = after.client.refusals - before.client.refusals
		if n := after.client.gateHandled - before.client.gateHandled; n > 0 {
			m.handlerMillis = 1000 * (after.client.gateSeconds - before.client.gateSeconds) / n
		}
	}
	if n := after.api.addonWrites - before.api.addonWrites; n > 0 {
		m.writeMillis = 1000 * (after.api.addonWriteSeconds - before.api.addonWriteSeconds) / n
	}
	return m
}

// measures are the counters read before and after a rollout.
type measures struct {
	client          clientCounts
	api             apiCounts
	side, agents    usage
	apiserver, etcd usage
}

// snapshot reads every counter the benchmark reports.
func snapshot(b *testing.B, h *hub, addr string, ctl, agents *proc, hub map[string]int) measures {
	b.Helper()
	var m measures
	m.client = scrapeClient(b, addr)
	m.api = scrapeAPIServer(b, h)
	var err error
	if m.side, err = procUsage(ctl.cmd.Process.Pid); err != nil {
		b.Fatal(err)
	}
	if m.agents, err = procUsage(agents.cmd.Process.Pid); err != nil {
		b.Fatal(err)
	}
	if m.apiserver, err = procUsage(hub["kube-apiserver"]); err != nil {
		b.Fatal(err)
	}
	if m.etcd, err = procUsage(hub["etcd"]); err != nil {
		b.Fatal(err)
	}
	return m
}

// children returns the child processes of pid by their command name: the
// test hub's etcd and kube-apiserver among them.
func children(b *testing.B, pid int) map[string]int {
	b.Helper()
	out, err := childrenByName(pid)
	if err != nil {
		b.Fatal(err)
	}
	for _, want := range []string{"etcd", "kube-apiserver"} {
		if out[want] == 0 {
			b.Fatalf("the test hub (pid %d) runs no %s: %v", pid, want, out)
		}
	}
	return out
}

// clientCounts are a side's API requests, from its own metrics, and, for
// a controller-runtime side, its reconciles and the seconds they took by
// controller.
type clientCounts struct {
	writes, reads float64
	refusals      float64 // the work gate's, on our side
	// gateHandled and gateSeconds: the requests our side's webhook server
	// answered and the time its handlers took (controller-runtime's
	// controller_runtime_webhook_latency_seconds).
	gateHandled, gateSeconds float64
	reconciles               map[string]float64
	reconcileSecs            map[string]float64
}

func scrapeClient(b *testing.B, addr string) clientCounts {
	b.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	c := clientCounts{reconciles: map[string]float64{}, reconcileSecs: map[string]float64{}}
	err = eachSample(resp.Body, func(name string, labels map[string]string, v float64) {
		switch name {
		case metricGateRefusals:
			c.refusals += v
		case "controller_runtime_webhook_latency_seconds_count":
			c.gateHandled += v
		case "controller_runtime_webhook_latency_seconds_sum":
			c.gateSeconds += v
		case "controller_runtime_reconcile_total":
			c.reconciles[labels["controller"]] += v
		case "controller_runtime_reconcile_time_seconds_sum":
			c.reconcileSecs[labels["controller"]] += v
		case "rest_client_requests_total":
			switch labels["method"] {
			case "GET":
				c.reads += v
			case "POST", "PUT", "PATCH", "DELETE":
				c.writes += v
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// apiCounts are the API server's own counters: of ManagedClusterAddOn
// writes, and of every request and watch event by kind.
type apiCounts struct {
	addonWrites, addonWriteSeconds float64
	requests                       map[string]float64 // "VERB resource" -> count
	watchEvents, watchBytes        map[string]float64 // kind -> events sent to watchers, and their bytes
	webhooks                       webhookCalls       // calls of every validating webhook
}

func scrapeAPIServer(b *testing.B, h *hub) apiCounts {
	b.Helper()
	raw, err := h.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	c := apiCounts{requests: map[string]float64{}, watchEvents: map[string]float64{}, watchBytes: map[string]float64{}}
	err = eachSample(bytes.NewReader(raw), func(name string, labels map[string]string, v float64) {
		switch name {
		case "apiserver_request_total":
			what := labels["verb"] + " " + labels["resource"]
			if sub := labels["subresource"]; sub != "" {
				what += "/" + sub
			}
			c.requests[what] += v
		case "apiserver_watch_events_total":
			c.watchEvents[labels["resource"]] += v
		case "apiserver_watch_events_sizes_sum":
			c.watchBytes[labels["resource"]] += v
		}
		c.webhooks.addWebhookSample(nil, name, labels, v)
		if labels["resource"] != "managedclusteraddons" || (labels["verb"] != "PATCH" && labels["verb"] != "UPDATE") {
			return
		}
		switch name {
		case "apiserver_request_duration_seconds_count":
			c.addonWrites += v
		case "apiserver_request_duration_seconds_sum":
			c.addonWriteSeconds += v
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// eachSample calls f with every sample of a Prometheus text exposition,
// as expfmt parses it: a counter's, gauge's or untyped metric's value
// under its name, a histogram's or summary's sum and count under
// name_sum and name_count.
func eachSample(r io.Reader, f func(name string, labels map[string]string, v float64)) error {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		return fmt.Errorf("reading metrics: %w", err)
	}
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := make(map[string]string, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch {
			case m.Counter != nil:
				f(name, labels, m.GetCounter().GetValue())
			case m.Gauge != nil:
				f(name, labels, m.GetGauge().GetValue())
			case m.Untyped != nil:
				f(name, labels, m.GetUntyped().GetValue())
			case m.Histogram != nil:
				f(name+"_sum", labels, m.GetHistogram().GetSampleSum())
				f(name+"_count", labels, float64(m.GetHistogram().GetSampleCount()))
			case m.Summary != nil:
				f(name+"_sum", labels, m.GetSummary().GetSampleSum())
				f(name+"_count", labels, float64(m.GetSummary().GetSampleCount()))
			}
		}
	}
	return nil
}

// breakdown tells where a rollout's time went, group by group: when the
// group's clusters got the new config desired (first and last), when
// they applied it (first and last), counting from the change, and when
// the side said it was complete.
func breakdown(events []addonEvent, target string, start, done time.Time) string {
	type span struct{ first, last time.Time }
	extend := func(s *span, at time.Time) {
		if s.first.IsZero() || at.Before(s.first) {
			s.first = at
		}
		if at.After(s.last) {
			s.last = at
		}
	}
	desired := make([]span, len(environments))
	applied := make([]span, len(environments))
	seenDesired, seenApplied := map[string]bool{}, map[string]bool{}
	for _, e := range events {
		g := groupOf(e.cluster)
		if e.at.Before(start) || g < 0 {
			continue
		}
		if e.state.desired == target && !seenDesired[e.cluster] {
			seenDesired[e.cluster] = true
			extend(&desired[g], e.at)
		}
		if e.state.applied == target && !seenApplied[e.cluster] {
			seenApplied[e.cluster] = true
			extend(&applied[g], e.at)
		}
	}
	off := func(t time.Time) float64 { return t.Sub(start).Seconds() }
	var sb strings.Builder
	for g, env := range environments {
		fmt.Fprintf(&sb, "\n  %-4s desired +%.1fs..+%.1fs, applied +%.1fs..+%.1fs", env,
			off(desired[g].first), off(desired[g].last), off(applied[g].first), off(applied[g].last))
	}
	fmt.Fprintf(&sb, "\n  Completed +%.1fs", off(done))
	return sb.String()
}

// apiActivity tells the requests the API server served and the watch
// events it sent between two scrapes, the busiest first.
func apiActivity(before, after apiCounts) string {
	type row struct {
		what string
		n    float64
	}
	top := func(a, b map[string]float64, min float64) []row {
		var rows []row
		for k, v := range b {
			if d := v - a[k]; d >= min {
				rows = append(rows, row{k, d})
			}
		}
		slices.SortFunc(rows, func(x, y row) int { return cmp.Compare(y.n, x.n) })
		return rows
	}
	var sb strings.Builder
	sb.WriteString("\n  requests:")
	for _, r := range top(before.requests, after.requests, 10) {
		fmt.Fprintf(&sb, " %s %.0f;", r.what, r.n)
	}
	sb.WriteString("\n  watch events sent:")
	for _, r := range top(before.watchEvents, after.watchEvents, 10) {
		fmt.Fprintf(&sb, " %s %.0f (%.1f MiB);", r.what, r.n, (after.watchBytes[r.what]-before.watchBytes[r.what])/(1<<20))
	}
	return sb.String()
}

// profileAPIServer writes a 20-second CPU profile of kube-apiserver to
// file.
func profileAPIServer(h *hub, file string) error {
	raw, err := h.kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").Param("seconds", "20").
		Timeout(time.Minute).DoRaw(context.Background())
	if err != nil {
		return fmt.Errorf("profiling kube-apiserver: %w", err)
	}
	return os.WriteFile(file, raw, 0o644)
}

// cpuSeconds reads the CPU time of processes (user and system, summed) and
// of the whole machine (busy, that is all but idle and iowait).
func cpuSeconds(pids []int) (procs, machine float64, err error) {
	for _, p := range pids {
		u, err := procUsage(p)
		if err != nil {
			return 0, 0, err
		}
		procs += u.cpuSeconds
	}
	machine, err = machineBusySeconds()
	if err != nil {
		return 0, 0, err
	}
	return procs, machine, nil
}

// sampleCPU samples, every second until the returned function is called,
// the cores the processes pids used and the cores the whole machine used,
// and then describes them: the median, the 90th percentile and the
// largest second, and how many seconds the processes used 1.5 cores or
// more.
func sampleCPU(pids []int) func() string {
	stop := make(chan struct{})
	done := make(chan string)
	go func() {
		var procs, machine []float64
		p0, m0, err := cpuSeconds(pids)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for err == nil {
			select {
			case <-stop:
				done <- describeCPU(procs, machine)
				return
			case <-tick.C:
				var p1, m1 float64
				if p1, m1, err = cpuSeconds(pids); err == nil {
					procs, machine = append(procs, p1-p0), append(machine, m1-m0)
					p0, m0 = p1, m1
				}
			}
		}
		<-stop
		done <- fmt.Sprintf(" not sampled: %v", err)
	}()
	return func() string {
		close(stop)
		return <-done
	}
}

func describeCPU(procs, machine []float64) string {
	if len(procs) == 0 {
		return " no sample"
	}
	stats := func(xs []float64) string {
		s := slices.Sorted(slices.Values(xs))
		return fmt.Sprintf("median %.2f, p90 %.2f, max %.2f", s[len(s)/2], s[len(s)*9/10], s[len(s)-1])
	}
	busy := 0
	for _, p := range procs {
		if p >= 1.5 {
			busy++
		}
	}
	return fmt.Sprintf("\n  the rollout's processes (side, agents, kube-apiserver, etcd): %s; 1.5 cores or more in %d of %d seconds\n  the machine: %s",
		stats(procs), busy, len(procs), stats(machine))
}
