package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hash"
)

// env is one real hub and the clients a test drives it with.
type env struct {
	hub *testhub.Hub
	c   client.Client // uncached, as the test's own eyes and hands
}

// newEnv starts a hub of its own for the test, or skips the test when the
// test API server has not been built (fails, under CI).
func newEnv(t testing.TB) *env {
	t.Helper()
	h, c := testhub.ForTest(t)
	return &env{hub: h, c: c}
}

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
// tune, with what setup registers, its API writes counted.
func (e *env) startManager(t testing.TB, cfg *rest.Config, tune func(*ctrl.Options), setup func(ctrl.Manager) error) *running {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	w := &writes{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { w.inner = rt; return w }
	scheme, err := hubctl.NewScheme()
	require.NoError(t, err)
	opts := ctrl.Options{
		Scheme:                 scheme,
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 zap.New(zap.WriteTo(testWriter{t}), zap.UseDevMode(true)),
		// Several managers run the same controllers in one test process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
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
	})
	return r
}

// controller starts the rollout controller (every reconciler), taking the
// add-ons annotated with testhub.Lifecycle.
func (e *env) controller(t testing.TB) *running {
	return e.start(t, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{testhub.Lifecycle}})
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
		return agent.Setup(mgr, agent.Options{AddonVersion: hubctl.V1alpha1, Delay: delay, Fail: fail})
	})
}

// failingOn fails the apply of the config whose spec hash is h on cluster.
func failingOn(cluster, h string) func(string, string) bool {
	return func(c, target string) bool { return c == cluster && target == h }
}

// testWriter sends logs to the test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// addonState is what a test reads of one cluster's add-on.
type addonState struct {
	desired, applied string // spec hashes; "" when unset
	progressing      *metav1.Condition
	configured       *metav1.Condition
	manifestApplied  *metav1.Condition // the add-on manager's
	exists           bool
}

func (e *env) addon(t testing.TB, cluster, name string) addonState {
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
	exists     bool
	name       string
	target     string   // the config-spec-hash annotation's hashes (agent.Target)
	images     []string // the container images of its Deployments
	replicas   []int32  // the replicas of its Deployments
	generation int64
	applied    *metav1.Condition
	ready      bool // Applied and Available True at its generation
}

// works lists the add-on's works in every namespace by their
// addon-name label, as the seed tells a user to, by cluster.
func (e *env) works(t testing.TB, addon string) map[string]workState {
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
	out := make(map[string]workState, len(l.Items))
	for i := range l.Items {
		w := &l.Items[i]
		s := workState{exists: true, name: w.Name, target: agent.WorkTarget(w), generation: w.Generation,
			applied: meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)}
		avail := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkAvailable)
		s.ready = s.applied != nil && s.applied.Status == metav1.ConditionTrue && s.applied.ObservedGeneration == w.Generation &&
			avail != nil && avail.Status == metav1.ConditionTrue && avail.ObservedGeneration == w.Generation
		for j, m := range w.Spec.Workload.Manifests {
			var d appsv1.Deployment
			if err := json.Unmarshal(m.Raw, &d); err != nil {
				return nil, fmt.Errorf("work %s/%s manifest %d: %w", w.Namespace, w.Name, j, err)
			}
			if d.Kind != "Deployment" {
				continue
			}
			s.replicas = append(s.replicas, ptr.Deref(d.Spec.Replicas, 1))
			for _, c := range d.Spec.Template.Spec.Containers {
				s.images = append(s.images, c.Image)
			}
		}
		out[w.Namespace] = s
	}
	return out, nil
}

// progression returns the add-on's install progression of its only
// placement, as stored.
func (e *env) progression(t testing.TB, name string) (addonv1alpha1.InstallProgression, bool) {
	t.Helper()
	var cma addonv1alpha1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: name}, &cma))
	if len(cma.Status.InstallProgressions) == 0 {
		return addonv1alpha1.InstallProgression{}, false
	}
	return cma.Status.InstallProgressions[0], true
}

// eventually polls cond every 100ms until it holds or timeout passes; the
// failure message is the last thing cond said.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, msg := cond()
		if ok {
			return
		}
		last = msg
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
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
func (e *env) installed(t testing.TB, o testhub.SeedOptions, name, h string, timeout time.Duration) {
	t.Helper()
	e.installedOn(t, o.Clusters(), name, h, timeout)
}

// installedOn waits until the add-on of each of clusters has applied the
// config whose hash is h and the install progression is Completed.
func (e *env) installedOn(t testing.TB, clusters []string, name, h string, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, "rollout of "+h[:8]+" completed", func() (bool, string) {
		for _, c := range clusters {
			s := e.addon(t, c, name)
			if s.applied != h || s.desired != h {
				return false, fmt.Sprintf("%s: desired %.8s applied %.8s", c, s.desired, s.applied)
			}
		}
		ip, ok := e.progression(t, name)
		if !ok {
			return false, "no install progression"
		}
		cond := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		if cond == nil || cond.Reason != addonv1beta1.ProgressingReasonCompleted {
			return false, fmt.Sprintf("progression condition %+v", cond)
		}
		return true, ""
	})
}

// rawAddon reads a cluster's add-on as stored.
func (e *env) rawAddon(t testing.TB, cluster string) *addonv1alpha1.ManagedClusterAddOn {
	t.Helper()
	var mca addonv1alpha1.ManagedClusterAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: addonName}, &mca))
	return &mca
}

// decisions reads the seed placement's PlacementDecisions.
func (e *env) decisions(t testing.TB) []clusterv1beta1.PlacementDecision {
	t.Helper()
	var l clusterv1beta1.PlacementDecisionList
	require.NoError(t, e.c.List(context.Background(), &l, client.InNamespace("open-cluster-management"),
		client.MatchingLabels{clusterv1beta1.PlacementLabel: "cluster-proxy-placement"}))
	return l.Items
}

// placement reads the seed's Placement.
func (e *env) placement(t testing.TB) *clusterv1beta1.Placement {
	t.Helper()
	var p clusterv1beta1.Placement
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}, &p))
	return &p
}
