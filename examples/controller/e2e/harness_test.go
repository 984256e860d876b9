package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hash"
)

// env is one real hub, the clients a test drives it with, and the names
// of the test's objects there.
type env struct {
	hub *testhub.Hub
	c   client.Client // uncached, as the test's own eyes and hands
	names
	// scope are, on the shared hub, the namespaces of the test's objects:
	// the managers the test starts cache the namespaced objects of these
	// alone. Nil on a hub of the test's own: every namespace.
	scope []string
}

// newEnv starts a hub of its own for the test, or skips the test when the
// test API server has not been built (fails, under CI). A test takes a hub
// of its own when it needs what no test on a shared hub may do: stop or
// restart the API server, run the garbage collector or a compiled
// controller that takes every add-on of the default lifecycle, elect a
// leader with the shipped Lease, install the cluster-wide work gate or
// change cluster-wide RBAC. The others take sharedEnv.
func newEnv(t testing.TB) *env {
	t.Helper()
	h, c := testhub.ForTest(t)
	return &env{hub: h, c: c, names: seedNames()}
}

// tb is what a helper needs of a test: a testing.TB, or the
// assert.CollectT of an EventuallyWithT condition, whose failures fail
// that try of the condition alone.
type tb interface {
	require.TestingT
	Helper()
}

// poll is how often EventuallyWithT tries its condition.
const poll = 100 * time.Millisecond

// writes records the API writes one client sends; count counts those the
// API server accepted.
type writes struct {
	mu    sync.Mutex
	all   []write
	inner http.RoundTripper
}

type write struct {
	method, path string
	code         int
}

func (w *writes) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.inner.RoundTrip(r)
	if r.Method != http.MethodGet && !strings.Contains(r.URL.Path, "/events") {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		w.mu.Lock()
		w.all = append(w.all, write{method: r.Method, path: r.URL.Path, code: code})
		w.mu.Unlock()
	}
	return resp, err
}

// count returns how many writes the API server accepted whose path
// contains every one of parts.
func (w *writes) count(parts ...string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
next:
	for _, x := range w.all {
		if x.code < 200 || x.code > 299 {
			continue
		}
		for _, p := range parts {
			if !strings.Contains(x.path, p) {
				continue next
			}
		}
		n++
	}
	return n
}

// conflicts returns how many writes the API server refused as conflicts.
func (w *writes) conflicts() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, x := range w.all {
		if x.code == http.StatusConflict {
			n++
		}
	}
	return n
}

// pollUntilEnd calls pass every period, from now until the test ends, in
// a goroutine of its own; the test's cleanup waits for the last call.
func pollUntilEnd(t testing.TB, period time.Duration, pass func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			pass(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// running is a started manager.
type running struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the manager has stopped
	err    error         // what Start returned, once done is closed
	writes *writes
}

// stop stops the manager and waits for it.
func (r *running) stop(t testing.TB) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		require.NoError(t, r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("manager did not stop within 30s")
	}
}

// start runs a manager as the hub's administrator with what setup
// registers, its API writes counted.
func (e *env) start(t testing.TB, setup func(ctrl.Manager) error) *running {
	t.Helper()
	return e.startManager(t, e.hub.Config, func(*ctrl.Options) {}, setup)
}

// startManager runs a manager as cfg's identity, its options changed by
// tune, with what setup registers, its API writes counted. On the shared
// hub its cache holds the namespaced objects of the test's scope alone
// (cluster-scoped ones it holds all of), so that it never sees, let alone
// reconciles, another test's Placements, add-ons or works.
func (e *env) startManager(t testing.TB, cfg *rest.Config, tune func(*ctrl.Options), setup func(ctrl.Manager) error) *running {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	w := &writes{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { w.inner = rt; return w }
	scheme, err := hubclient.NewScheme()
	require.NoError(t, err)
	logs := newTestLog(t, "a manager started at "+time.Now().Format("15:04:05.000"))
	opts := ctrl.Options{
		Scheme:                 scheme,
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 zap.New(zap.WriteTo(logs), zap.UseDevMode(true)),
		// Several managers run the same controllers in one test process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if e.scope != nil {
		opts.Cache.DefaultNamespaces = make(map[string]cache.Config, len(e.scope))
		for _, ns := range e.scope {
			opts.Cache.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	tune(&opts)
	mgr, err := ctrl.NewManager(cfg, opts)
	require.NoError(t, err)
	require.NoError(t, setup(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan struct{}), writes: w}
	go func() {
		r.err = mgr.Start(ctx)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
		logs.flush()
	})
	return r
}

// controller starts the rollout controller (every reconciler), taking the
// add-ons annotated with the test's lifecycle value.
func (e *env) controller(t testing.TB) *running {
	return e.start(t, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{e.lifecycle}})
		return err
	})
}

// placements starts the Placement reconciler alone.
func (e *env) placements(t testing.TB) *running {
	return e.start(t, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true})
		return err
	})
}

// agents starts the simulated add-on manager and work agents: applying a
// work takes delay, and fails where fail says (nil: never).
func (e *env) agents(t testing.TB, delay time.Duration, fail func(cluster, target string) bool) *running {
	return e.start(t, func(mgr ctrl.Manager) error {
		return agent.Setup(mgr, agent.Options{AddonVersion: hubclient.V1alpha1, Delay: delay, Fail: fail})
	})
}

// failingOn fails the apply of the config whose spec hash is h on cluster.
func failingOn(cluster, h string) func(string, string) bool {
	return func(c, target string) bool { return c == cluster && target == h }
}

// testLog is a manager's log in a test. With -test.v it goes to the
// test's log as it is written. Without, it is kept, and a test that
// failed prints the last testLogTail lines of it when the manager has
// stopped: a failed test's output starts with what failed, rather than
// with thousands of lines of controller log before it (CI shows the head
// and the tail of a failed test's output).
type testLog struct {
	t     testing.TB
	name  string
	mu    sync.Mutex
	lines []string // the last testLogTail
	total int
}

// testLogTail is how many lines of a manager's log a failed test prints.
const testLogTail = 300

func newTestLog(t testing.TB, name string) *testLog { return &testLog{t: t, name: name} }

func (l *testLog) Write(p []byte) (int, error) {
	line := strings.TrimRight(string(p), "\n")
	if testing.Verbose() {
		l.t.Log(line)
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	if len(l.lines) == testLogTail {
		l.lines = append(l.lines[:0], l.lines[1:]...)
	}
	l.lines = append(l.lines, line)
	return len(p), nil
}

// flush prints the lines kept, if the test failed. It is called once the
// manager has stopped, so that nothing logs after it.
func (l *testLog) flush() {
	if testing.Verbose() || !l.t.Failed() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Logf("the last %d of the %d lines of the log of %s:\n%s", len(l.lines), l.total, l.name, strings.Join(l.lines, "\n"))
}

// addonState is what a test reads of one cluster's add-on.
type addonState struct {
	desired, applied string // spec hashes; "" when unset
	progressing      *metav1.Condition
	configured       *metav1.Condition
	manifestApplied  *metav1.Condition // the add-on manager's
	exists           bool
}

func (e *env) addon(t tb, cluster, name string) addonState {
	t.Helper()
	s, err := e.readAddon(cluster, name)
	require.NoError(t, err, "reading add-on %s/%s", cluster, name)
	return s
}

// readAddon reads a cluster's add-on; a missing one is the zero state.
func (e *env) readAddon(cluster, name string) (addonState, error) {
	var mca addonv1alpha1.ManagedClusterAddOn
	err := e.c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: name}, &mca)
	if err != nil {
		return addonState{}, client.IgnoreNotFound(err)
	}
	s := addonState{exists: true}
	for _, r := range mca.Status.ConfigReferences {
		if r.DesiredConfig != nil {
			s.desired = r.DesiredConfig.SpecHash
		}
		if r.LastAppliedConfig != nil {
			s.applied = r.LastAppliedConfig.SpecHash
		}
	}
	s.progressing = meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	s.configured = meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionConfigured)
	s.manifestApplied = meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)
	return s, nil
}

// workState is what a test reads of one cluster's deploy ManifestWork of
// the add-on: what a person sees with
// kubectl get manifestwork -A -l open-cluster-management.io/addon-name=<add-on>.
type workState struct {
	exists   bool
	name     string
	target   string   // the config-spec-hash annotation's hashes (agent.Target)
	images   []string // the container images of its Deployments
	replicas []int32  // the replicas of its Deployments
	// deployments are its Deployments' replicas and images, each
	// Deployment's together, in the order of replicas
	deployments []deploymentState
	generation  int64
	applied     *metav1.Condition
	ready       bool // Applied and Available True at its generation
}

// deploymentState is what one Deployment of a work carries.
type deploymentState struct {
	replicas int32
	images   []string
}

// works lists the add-on's works in every namespace by their
// addon-name label, as the seed tells a user to, by cluster (a hosted
// add-on's by the cluster its addon-namespace label names). A cluster
// with several works has what they carry together: their images and
// replicas in the order of their names, ready when every one is, named
// after the first.
func (e *env) works(t tb, addon string) map[string]workState {
	t.Helper()
	out, err := e.readWorks(addon)
	require.NoError(t, err)
	return out
}

func (e *env) readWorks(addon string) (map[string]workState, error) {
	var l workv1.ManifestWorkList
	if err := e.c.List(context.Background(), &l, client.MatchingLabels{addonv1alpha1.AddonLabelKey: addon}); err != nil {
		return nil, err
	}
	slices.SortFunc(l.Items, func(a, b workv1.ManifestWork) int { return strings.Compare(a.Name, b.Name) })
	out := make(map[string]workState, len(l.Items))
	for i := range l.Items {
		w := &l.Items[i]
		cluster := w.Namespace
		if owner, ok := w.Labels[addonv1alpha1.AddonNamespaceLabelKey]; ok {
			cluster = owner
		}
		s, seen := out[cluster]
		avail := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkAvailable)
		applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
		ready := applied != nil && applied.Status == metav1.ConditionTrue && applied.ObservedGeneration == w.Generation &&
			avail != nil && avail.Status == metav1.ConditionTrue && avail.ObservedGeneration == w.Generation
		if !seen {
			s = workState{exists: true, name: w.Name, target: agent.WorkTarget(w), generation: w.Generation, applied: applied, ready: true}
		}
		s.ready = s.ready && ready
		for j, m := range w.Spec.Workload.Manifests {
			var d appsv1.Deployment
			if err := json.Unmarshal(m.Raw, &d); err != nil {
				return nil, fmt.Errorf("work %s/%s manifest %d: %w", w.Namespace, w.Name, j, err)
			}
			if d.Kind != "Deployment" {
				continue
			}
			ds := deploymentState{replicas: ptr.Deref(d.Spec.Replicas, 1)}
			for _, c := range d.Spec.Template.Spec.Containers {
				ds.images = append(ds.images, c.Image)
			}
			s.replicas = append(s.replicas, ds.replicas)
			s.images = append(s.images, ds.images...)
			s.deployments = append(s.deployments, ds)
		}
		out[cluster] = s
	}
	return out, nil
}

// progression returns the add-on's install progression of its only
// placement, as stored.
func (e *env) progression(t tb, name string) (addonv1alpha1.InstallProgression, bool) {
	t.Helper()
	var cma addonv1alpha1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: name}, &cma))
	if len(cma.Status.InstallProgressions) == 0 {
		return addonv1alpha1.InstallProgression{}, false
	}
	return cma.Status.InstallProgressions[0], true
}

// specHash is the hash the rollout must carry for the seed's config with
// that agent image.
func specHash(t testing.TB, image string) string {
	t.Helper()
	u, err := testhub.WithAgentImage(image)
	require.NoError(t, err)
	h, err := hash.Spec(u)
	require.NoError(t, err)
	return h
}

// installed waits until every cluster's add-on has applied the config
// whose hash is h and the install progression is Completed.
func (e *env) installed(t testing.TB, o seeded, name, h string, timeout time.Duration) {
	t.Helper()
	e.installedOn(t, o.Clusters(), name, h, timeout)
}

// installedOn waits until the add-on of each of clusters has applied the
// config whose hash is h and the install progression is Completed.
func (e *env) installedOn(t testing.TB, clusters []string, name, h string, timeout time.Duration) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, c := range clusters {
			s := e.addon(ct, c, name)
			require.Equal(ct, h, s.desired, "%s: desired", c)
			require.Equal(ct, h, s.applied, "%s: applied", c)
		}
		ip, ok := e.progression(ct, name)
		require.True(ct, ok, "no install progression")
		cond := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		require.NotNil(ct, cond, "no Progressing condition on the install progression")
		assert.Equal(ct, addonv1beta1.ProgressingReasonCompleted, cond.Reason, "progression condition %+v", cond)
	}, timeout, poll, "rollout of %.8s completed", h)
}

// rawAddon reads a cluster's add-on as stored.
func (e *env) rawAddon(t tb, cluster string) *addonv1alpha1.ManagedClusterAddOn {
	t.Helper()
	var mca addonv1alpha1.ManagedClusterAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: e.addonName}, &mca))
	return &mca
}

// decisions reads the PlacementDecisions of the seed's Placement.
func (e *env) decisions(t testing.TB) []clusterv1beta1.PlacementDecision {
	t.Helper()
	var l clusterv1beta1.PlacementDecisionList
	require.NoError(t, e.c.List(context.Background(), &l, client.InNamespace(e.namespace),
		client.MatchingLabels{clusterv1beta1.PlacementLabel: seedPlacement}))
	return l.Items
}

// placement reads the seed's Placement.
func (e *env) placement(t testing.TB) *clusterv1beta1.Placement {
	t.Helper()
	var p clusterv1beta1.Placement
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: e.namespace, Name: seedPlacement}, &p))
	return &p
}
