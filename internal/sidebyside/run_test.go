package sidebyside

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// setup is a scenario's hub and timing.
type setup struct {
	sizes     [3]int
	strategy  clusterv1alpha1.RolloutStrategy
	placement func(*clusterv1beta1.Placement) // changes the seed's Placement; nil: as it is
	apply     time.Duration                   // how long the work agent takes to apply a work
	soak      time.Duration                   // the strategy's minSuccessTime, for the checks
	window    int                             // Progressive's maxConcurrency, for the checks; 0: group by group
	// byName makes the shared agents render every work from the newest
	// spec of its config, read by name, as cluster-proxy does
	// (testhub agents -render-by-name).
	byName bool
	// gate makes our side serve the work gate, installed on the hub with
	// the shipped configuration, the hub calling it through a witness that
	// keeps what the gate was asked.
	gate bool
}

// run is one scenario on a hub of its own: the two sides, what they share,
// and the recorder watching both.
type run struct {
	tb       testing.TB
	setup    setup
	dir      string
	bin      binaries
	hub      *hub
	rec      *recorder
	ctx      context.Context
	clusters []string // every cluster the scenario has had, in rollout order
	infra    *proc
	ours     *proc
	ocm      *proc
	phases   []phase
	// gate is where our side serves the work gate; nil without it.
	gate *gateServer
}

// phase is one config the scenario rolls out: from start on, every cluster
// should move to target.
type phase struct {
	name   string
	target string // spec hash
	start  time.Time
}

// newRun starts a hub, seeds it, starts both sides and the shared agents,
// creates the two add-ons, and waits until both have installed every
// cluster with the config's first version (phase "install").
func newRun(tb testing.TB, s setup) *run {
	tb.Helper()
	needHub(tb)
	r := &run{tb: tb, setup: s, dir: tb.TempDir(), bin: programs(tb)}
	_, kubeconfig := startHub(tb, r.bin, r.dir)
	// Cleanups run last first: the recorder's watches end before the hub
	// stops, which waits for open requests.
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	r.ctx = ctx
	r.hub = newHub(tb, kubeconfig)
	if err := r.hub.seedHub(ctx, s.sizes, s.placement); err != nil {
		tb.Fatal(err)
	}
	for _, names := range clusterNames(s.sizes) {
		r.clusters = append(r.clusters, names...)
	}
	r.rec = record(ctx, tb, r.hub, true)
	r.startInfra()
	r.startOCM()
	if s.gate {
		r.gate = newGateServer(tb, r.dir)
		r.gate.witnessed(tb)
		if err := r.gate.install(ctx, r.hub); err != nil {
			tb.Fatal(err)
		}
	}
	r.startOurs()
	if r.gate != nil {
		r.gate.waitServing(ctx, tb, r.hub, r.procsExited)
	}
	r.phases = append(r.phases, phase{name: "install", target: configHash(tb, "v1"), start: time.Now()})
	if err := r.hub.createAddons(ctx, s.strategy, sides...); err != nil {
		tb.Fatal(err)
	}
	r.waitRolledOut("install", 3*time.Minute)
	return r
}

// startInfra starts what both sides share: the Placement scheduler, the
// simulated add-on deployer and the work agents, failing the applies on
// the clusters named.
func (r *run) startInfra(failing ...string) {
	// At the controller's client rate, as when the controller played them.
	args := []string{"agents", "-kubeconfig", r.hub.kubeconfig, "-placements", "-apply", r.setup.apply.String(),
		"-kube-api-qps", "500", "-kube-api-burst", "1000", "-zap-log-level", "info"}
	if len(failing) > 0 {
		args = append(args, "-fail-clusters", strings.Join(failing, ","))
	}
	if r.setup.byName {
		args = append(args, "-render-by-name")
	}
	r.infra = start(r.tb, r.dir, "agents", r.bin.testhub, args...)
}

// restartInfra restarts the shared agents, now failing the applies on the
// clusters named (none: every apply succeeds).
func (r *run) restartInfra(failing ...string) {
	r.infra.stop(r.tb)
	r.startInfra(failing...)
}

// startOCM starts OCM's add-on manager.
func (r *run) startOCM() {
	r.ocm = start(r.tb, r.dir, "ocm-addon-manager", r.bin.ocm, "-kubeconfig", r.hub.kubeconfig)
}

// startOurs starts the rolloutkit controller, taking only its add-on,
// and serving the work gate when the run has one (installed first).
func (r *run) startOurs() {
	args := []string{"-kubeconfig", r.hub.kubeconfig,
		"-lifecycle", lifecycleOurs, "-health-probe-bind-address", "0", "-zap-log-level", "info"}
	if r.gate != nil {
		args = append(args, append(r.gate.flags(), "-metrics-bind-address", r.gate.metrics, "-metrics-secure=false")...)
	} else {
		// Off for certain: three scenarios run at once, and none may take
		// the gate's port because a certificate happens to be found.
		args = append(args, "-webhook-bind-address", "0")
	}
	r.ours = start(r.tb, r.dir, "rolloutkit-controller", r.bin.controller, args...)
}

// restartBoth stops each side's controller, waits pause, and starts them
// again.
func (r *run) restartBoth(pause time.Duration) {
	r.ocm.stop(r.tb)
	r.ours.stop(r.tb)
	time.Sleep(pause)
	r.startOCM()
	r.startOurs()
}

// change sets the config to version v and starts a phase rolling it out.
func (r *run) change(name, v string) {
	r.tb.Helper()
	r.phases = append(r.phases, phase{name: name, target: configHash(r.tb, v), start: time.Now()})
	if err := r.hub.setAgentImage(r.ctx, v); err != nil {
		r.tb.Fatal(err)
	}
}

// current is the phase under way.
func (r *run) current() phase { return r.phases[len(r.phases)-1] }

// members are the clusters the fleet has now.
func (r *run) members() []string { return r.clusters }

// waitRolledOut waits until both sides have rolled the current phase's
// config out to every cluster and say so in their install progressions.
func (r *run) waitRolledOut(what string, timeout time.Duration) {
	r.tb.Helper()
	p := r.current()
	r.rec.waitFor(r.tb, timeout, what+": rolled out on both sides", func(v view) (bool, string) {
		for _, s := range sides {
			if ok, msg := rolledOut(v, s.addon, r.members(), p.target); !ok {
				return false, msg + r.procsExited()
			}
		}
		return true, ""
	})
}

// waitSettled waits until each side's install progression reports at
// least timeouts timed-out clusters, then for quiet: the time in which
// neither side may start another cluster for the rollout to count as
// halted.
func (r *run) waitSettled(what string, timeouts int, quiet, timeout time.Duration) {
	r.tb.Helper()
	r.rec.waitFor(r.tb, timeout, what, func(v view) (bool, string) {
		for _, s := range sides {
			n, ok := parseProgress(progressingCondition(v.progression(s.addon)).Message)
			if !ok || n.timeout < timeouts {
				return false, fmt.Sprintf("%s: install progression %q", s.name, progressingCondition(v.progression(s.addon)).Message) + r.procsExited()
			}
		}
		return true, ""
	})
	time.Sleep(quiet)
}

// waitStarted waits until every cluster of clusters has the current
// phase's config desired on both sides.
func (r *run) waitStarted(what string, clusters []string, timeout time.Duration) {
	r.tb.Helper()
	p := r.current()
	r.rec.waitFor(r.tb, timeout, what, func(v view) (bool, string) {
		for _, s := range sides {
			for _, c := range clusters {
				if v.addon(s.addon, c).desired != p.target {
					return false, fmt.Sprintf("%s: %s not started", s.name, c) + r.procsExited()
				}
			}
		}
		return true, ""
	})
}

// procsExited names the programs that have exited, for a failure message.
func (r *run) procsExited() string {
	var out []string
	for _, p := range []*proc{r.infra, r.ours, r.ocm} {
		if p == nil {
			continue
		}
		if done, err := p.exited(); done {
			out = append(out, fmt.Sprintf("%s exited (%v):\n%s", p.name, err, p.tail(20)))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "\n" + strings.Join(out, "\n")
}

// addCluster adds a cluster to the fleet.
func (r *run) addCluster(name, env string) {
	r.tb.Helper()
	if err := r.hub.addCluster(r.ctx, name, env); err != nil {
		r.tb.Fatal(err)
	}
	r.clusters = append(r.clusters, name)
}

// removeCluster takes a cluster out of the fleet.
func (r *run) removeCluster(name string) {
	r.tb.Helper()
	if err := r.hub.removeCluster(r.ctx, name); err != nil {
		r.tb.Fatal(err)
	}
	r.clusters = slices.DeleteFunc(r.clusters, func(c string) bool { return c == name })
}

// progressingCondition returns an install progression's Progressing
// condition, or the zero condition.
func progressingCondition(p addonv1alpha1.InstallProgression) (c metaCondition) {
	if found := meta.FindStatusCondition(p.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing); found != nil {
		return metaCondition{Status: string(found.Status), Reason: found.Reason, Message: found.Message}
	}
	return metaCondition{}
}

// metaCondition is the part of a condition compared.
type metaCondition struct{ Status, Reason, Message string }

// progressCounts are the numbers of an install progression's message.
type progressCounts struct {
	done, total, failed, timeout int
	completed                    bool
}

func (n progressCounts) String() string {
	return fmt.Sprintf("%d/%d, %d failed %d timeout", n.done, n.total, n.failed, n.timeout)
}

// progressMessage matches both sides' install progression messages: OCM
// v1.2.0's "%d/%d progressing..., %d failed %d timeout." (or "completed
// with no errors"), and ours, which adds "selected clusters %d. configured
// addons " before them (divergence A1).
var progressMessage = regexp.MustCompile(`(\d+)/(\d+) (progressing\.\.\.|completed with no errors), (\d+) failed (\d+) timeout\.$`)

// parseProgress reads the numbers of an install progression's message.
func parseProgress(msg string) (progressCounts, bool) {
	m := progressMessage.FindStringSubmatch(msg)
	if m == nil {
		return progressCounts{}, false
	}
	var n [4]int
	for i, s := range []string{m[1], m[2], m[4], m[5]} {
		v, err := strconv.Atoi(s)
		if err != nil { // digits too many for an int
			return progressCounts{}, false
		}
		n[i] = v
	}
	return progressCounts{done: n[0], total: n[1], failed: n[2], timeout: n[3], completed: m[3] == "completed with no errors"}, true
}

// groupOf is the decision group of a cluster by its name's environment
// prefix: dev 0, stg 1, prod 2.
func groupOf(cluster string) int {
	for i, env := range environments {
		if strings.HasPrefix(cluster, env+"-") {
			return i
		}
	}
	return -1
}
