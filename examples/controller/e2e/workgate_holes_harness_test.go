package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"open-cluster-management.io/addon-framework/pkg/addonmanager"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/constants"
	frameworkagent "open-cluster-management.io/addon-framework/pkg/agent"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simulated "github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// chartAddon is an add-on in the manner of the real cluster-proxy on
// addon-framework v1.2.0 (byNameAddon): it reads the config by name and
// renders its newest spec, whatever the desired spec hash. Its chart is
// what a new manager version changes: the agent's replicas, and, with pad,
// two ConfigMaps of pad bytes each beside the Deployment, large enough
// that addon-framework splits the rendering into two works
// (addon-<name>-deploy-0 and -1). hosted turns addon-framework's hosted
// mode on: an add-on annotated with a hosting cluster gets its works in
// that cluster's namespace, labelled with its own.
type chartAddon struct {
	c        client.Client // uncached
	name     string
	replicas int32
	pad      int
	hosted   bool
}

func (a *chartAddon) GetAgentAddonOptions() frameworkagent.AgentAddonOptions {
	o := frameworkagent.AgentAddonOptions{AddonName: a.name, SupportedConfigGVRs: []schema.GroupVersionResource{proxyConfigGVR},
		HostedModeEnabled: a.hosted}
	if a.hosted {
		o.HostedModeInfoFunc = constants.GetHostedModeInfo
	}
	return o
}

func (a *chartAddon) Manifests(_ *clusterv1.ManagedCluster, mca *addonv1alpha1.ManagedClusterAddOn) ([]runtime.Object, error) {
	cfg, err := proxyConfigByName(a.c, mca)
	if err != nil {
		return nil, err
	}
	agent := proxyAgent(simulated.AgentImage(cfg), a.replicas)
	if a.hosted {
		// on the hosting cluster, for an add-on in hosted mode; on the
		// managed cluster otherwise
		agent.Annotations = map[string]string{addonv1alpha1.HostedManifestLocationAnnotationKey: addonv1alpha1.HostedManifestLocationHostingValue}
	}
	out := []runtime.Object{agent}
	if a.pad > 0 {
		for i := range 2 {
			out = append(out, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management-cluster-proxy", Name: fmt.Sprintf("cluster-proxy-pad-%d", i)},
				Data:       map[string]string{"pad": strings.Repeat("x", a.pad)}})
		}
	}
	return out, nil
}

// manager is a running addon-framework add-on manager.
type manager struct {
	writes *bodyWrites
	stop   context.CancelFunc
}

// runManager starts addon-framework's add-on manager with add-on a, its
// writes recorded; stop stops it (a new version of the manager is started
// in its place).
func (e *env) runManager(t testing.TB, a frameworkagent.AgentAddon) *manager {
	t.Helper()
	cfg := rest.CopyConfig(e.hub.Config)
	cfg.UserAgent = "addon-framework-manager"
	w := &bodyWrites{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { w.inner = rt; return w }
	mgr, err := addonmanager.New(cfg)
	require.NoError(t, err)
	require.NoError(t, mgr.AddAgent(a))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	require.NoError(t, mgr.Start(ctx))
	return &manager{writes: w, stop: cancel}
}

// addLab adds the cluster lab-cluster (environment lab) and, in the
// seed's Placement, its decision group lab after prod. With a hosting
// cluster, that cluster is added too (selected by no placement).
func (e *env) addLab(t testing.TB, hosting string) {
	t.Helper()
	ctx := context.Background()
	mc := func(name, env string) *clusterv1.ManagedCluster {
		return &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"cluster-proxy": "enabled", "environment": env}},
			Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: 60}}
	}
	require.NoError(t, createAll(ctx, e.c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab-cluster"}}, mc("lab-cluster", "lab")))
	p := e.placement(t)
	sel := &p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchExpressions[0]
	sel.Values = append(sel.Values, "lab")
	p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups = append(p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups, clusterv1beta1.DecisionGroup{
		GroupName: "lab", ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": "lab"}}}})
	require.NoError(t, e.c.Update(ctx, p))
	if hosting != "" {
		require.NoError(t, createAll(ctx, e.c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hosting}}, mc(hosting, "infra")))
	}
}

// hostAddOn waits until the controller has installed the add-on on
// cluster, and annotates it to be hosted on hosting, as an operator does
// (addon-framework renders its works in hosting's namespace from then on).
func (e *env) hostAddOn(t testing.TB, cluster, hosting string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, addonv1alpha1.HostingClusterNameAnnotationKey, hosting)
	waitFor(t, 30*time.Second, cluster+"'s add-on annotated to be hosted", func(ct *assert.CollectT) {
		mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: e.addonName}}
		assert.NoError(ct, e.c.Patch(context.Background(), mca, client.RawPatch(types.MergePatchType, patch)))
	})
}

// addCluster adds a cluster of environment env (dev, stg, prod, lab) to
// the hub: the seed's Placement selects it into that environment's group.
func (e *env) addCluster(t testing.TB, name, env string) {
	t.Helper()
	require.NoError(t, createAll(context.Background(), e.c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}},
		&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"cluster-proxy": "enabled", "environment": env}},
			Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: 60}}))
}

// rawWorks lists the works of the add-on of cluster (by the addon-name
// label, in every namespace, a hosted add-on's in its hosting cluster's),
// by name.
func (e *env) rawWorks(t tb, cluster string) map[string]*workv1.ManifestWork {
	t.Helper()
	var l workv1.ManifestWorkList
	require.NoError(t, e.c.List(context.Background(), &l, client.MatchingLabels{addonv1alpha1.AddonLabelKey: e.addonName}))
	out := map[string]*workv1.ManifestWork{}
	for i := range l.Items {
		w := &l.Items[i]
		if owner := w.Labels[addonv1alpha1.AddonNamespaceLabelKey]; owner == cluster || owner == "" && w.Namespace == cluster {
			out[w.Name] = w
		}
	}
	return out
}

// warnings collects the warnings the API server answers a client with.
type warnings struct {
	mu  sync.Mutex
	all []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, text)
}

func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.all)
}

// warnedClient is a client of the hub, as its administrator, whose
// answers' warnings are collected.
func (e *env) warnedClient(t testing.TB) (client.Client, *warnings) {
	t.Helper()
	cfg := rest.CopyConfig(e.hub.Config)
	w := &warnings{}
	cfg.WarningHandler = w
	c, err := testhub.NewClient(cfg)
	require.NoError(t, err)
	return c, w
}

// deleteWork deletes w as an operator does, in the foreground, and waits
// until it is gone (the work agent takes its finalizer off), returning
// the warnings the API server answered the delete with.
func (e *env) deleteWork(t testing.TB, w *workv1.ManifestWork) []string {
	t.Helper()
	c, warned := e.warnedClient(t)
	uid := w.UID
	require.NoError(t, c.Delete(context.Background(), w, client.Preconditions{UID: &uid}))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var cur workv1.ManifestWork
		err := e.c.Get(context.Background(), client.ObjectKeyFromObject(w), &cur)
		assert.True(ct, err != nil && client.IgnoreNotFound(err) == nil || err == nil && cur.UID != uid,
			"work %s/%s not gone: %v", w.Namespace, w.Name, err)
	}, 30*time.Second, poll, "work %s/%s deleted", w.Namespace, w.Name)
	return warned.list()
}

// events lists the events of reason on the add-on of cluster.
func (e *env) addonEvents(t tb, cluster, reason string) []string {
	t.Helper()
	var evs eventsv1.EventList
	require.NoError(t, e.c.List(context.Background(), &evs, client.InNamespace(cluster)))
	var out []string
	for _, ev := range evs.Items {
		if ev.Reason == reason && ev.Regarding.Kind == "ManagedClusterAddOn" && ev.Regarding.Name == e.addonName {
			out = append(out, ev.Note)
		}
	}
	return out
}

// hold reads the work gate's record on cluster's add-on.
func (e *env) hold(t tb, cluster string) (hubplan.Hold, bool) {
	t.Helper()
	var mca addonv1alpha1.ManagedClusterAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: e.addonName}, &mca))
	return hubplan.ReadHold(&addonv1beta1.ManagedClusterAddOn{ObjectMeta: mca.ObjectMeta})
}

// replicasSeen records, from a watch of the add-on's works, when each
// cluster's works first carried each replicas count in any of their
// Deployments, and with which images: a rendering's arrival on each
// cluster.
type replicasSeen struct {
	mu    sync.Mutex
	first map[string]map[int32]time.Time // cluster -> replicas -> first seen
	with  map[string]map[int32][]string  // cluster -> replicas -> the images seen with it
}

// watchRenderings polls the add-on's works every 50ms until the test
// ends.
func (e *env) watchRenderings(t testing.TB) *replicasSeen {
	t.Helper()
	r := &replicasSeen{first: map[string]map[int32]time.Time{}, with: map[string]map[int32][]string{}}
	pollUntilEnd(t, 50*time.Millisecond, func(context.Context) {
		ws, err := e.readWorks(e.addonName)
		if err != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		now := time.Now()
		for c, w := range ws {
			// every Deployment: while the gate holds one of a cluster's
			// works, the manager may have moved the Deployment into another,
			// and the cluster's works carry two copies of it for a while
			if r.first[c] == nil {
				r.first[c], r.with[c] = map[int32]time.Time{}, map[int32][]string{}
			}
			for _, d := range w.deployments {
				n := d.replicas
				if _, ok := r.first[c][n]; !ok {
					r.first[c][n] = now
				}
				for _, img := range d.images {
					if !slices.Contains(r.with[c][n], img) {
						r.with[c][n] = append(r.with[c][n], img)
					}
				}
			}
		}
	})
	return r
}

// at is when cluster's work first carried n replicas; zero when never.
func (r *replicasSeen) at(cluster string, n int32) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[cluster][n]
}

// images are the images cluster's work carried with n replicas.
func (r *replicasSeen) images(cluster string, n int32) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.with[cluster][n])
}

// requireInOrder checks that the works of clusters (in rollout order)
// took n replicas in that order, each at least a soak after the one
// before was ready with it (its release's doneAt, read from its add-on).
func (e *env) requireInOrder(t testing.TB, r *replicasSeen, n int32, soakFor time.Duration, clusters ...string) {
	t.Helper()
	for i, c := range clusters {
		require.False(t, r.at(c, n).IsZero(), "%s's work never had %d replicas", c, n)
		if i == 0 {
			continue
		}
		prev := clusters[i-1]
		rel, ok := e.release(t, prev)
		require.True(t, ok && rel.DoneAt != nil, "%s has no done release: %+v", prev, rel)
		assert.False(t, r.at(c, n).Before(rel.DoneAt.Add(soakFor-time.Second)), // DoneAt is kept to the second
			"%s took %d replicas at %s, before %s had soaked them (done %s)", c, n, r.at(c, n).Format(time.TimeOnly), prev,
			rel.DoneAt.Format(time.TimeOnly))
	}
}

// waitFor waits until cond holds.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func(ct *assert.CollectT)) {
	t.Helper()
	require.EventuallyWithT(t, cond, timeout, poll, what)
}

// ptrOf is a pointer to v.
func ptrOf[T any](v T) *T { return ptr.To(v) }
