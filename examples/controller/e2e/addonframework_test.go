package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"open-cluster-management.io/addon-framework/pkg/addonmanager"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	simulated "github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hash"
)

// proxyConfigGVR is the seed's config resource, which the add-on supports.
var proxyConfigGVR = schema.GroupVersionResource{Group: "proxy.open-cluster-management.io", Version: "v1alpha1", Resource: "managedproxyconfigurations"}

// proxyAddon is a small add-on in the manner of cluster-proxy, for
// addon-framework's add-on manager: on each cluster its agent is a
// Deployment running the proxyAgent.image of the add-on's desired
// ManagedProxyConfiguration, with replicas copies (the rendering: a change
// of it alone changes no config).
//
// addon-framework v1.2.0 hands Manifests the add-on, and the config object
// is read by name: it has only the newest spec. For a cluster whose desired
// config is an older spec (prod, while dev takes the new one), the add-on
// renders the agent its work already runs when the work carries that
// config's spec hash, and fails otherwise; it never puts the newest spec
// under an older hash. staleRenders counts those renders by cluster.
type proxyAddon struct {
	c        client.Client // uncached
	name     string        // the add-on's
	replicas int32

	mu           sync.Mutex
	staleRenders map[string]int
}

func (a *proxyAddon) GetAgentAddonOptions() agent.AgentAddonOptions {
	// No Registration: addon-framework's own registration controller then
	// sets RegistrationApplied, which its agentdeploy controller waits for,
	// once the add-on has its ClusterManagementAddOn as an owner.
	return agent.AgentAddonOptions{AddonName: a.name, SupportedConfigGVRs: []schema.GroupVersionResource{proxyConfigGVR}}
}

func (a *proxyAddon) Manifests(cluster *clusterv1.ManagedCluster, mca *addonv1alpha1.ManagedClusterAddOn) ([]runtime.Object, error) {
	var desired *addonv1alpha1.ConfigSpecHash
	for _, r := range mca.Status.ConfigReferences {
		if r.Group == proxyConfigGVR.Group && r.Resource == proxyConfigGVR.Resource && r.DesiredConfig != nil {
			desired = r.DesiredConfig
		}
	}
	if desired == nil {
		return nil, nil // not reached by the rollout yet: no agent
	}
	image, err := a.image(cluster.Name, desired)
	if err != nil {
		return nil, err
	}
	return []runtime.Object{proxyAgent(image, a.replicas)}, nil
}

// image is the agent image of the desired config's spec.
func (a *proxyAddon) image(cluster string, desired *addonv1alpha1.ConfigSpecHash) (string, error) {
	ctx := context.Background()
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(proxyConfigGVR.GroupVersion().WithKind("ManagedProxyConfiguration"))
	if err := a.c.Get(ctx, types.NamespacedName{Namespace: desired.Namespace, Name: desired.Name}, cfg); err != nil {
		return "", err
	}
	h, err := hash.Spec(cfg)
	if err != nil {
		return "", err
	}
	if h == desired.SpecHash {
		return simulated.AgentImage(cfg), nil
	}
	var w workv1.ManifestWork
	if err := a.c.Get(ctx, types.NamespacedName{Namespace: cluster, Name: simulated.WorkName(a.name)}, &w); err != nil {
		return "", fmt.Errorf("config %s has moved on from the desired spec hash %.8s and %s has no work with it: %w", desired.Name, desired.SpecHash, cluster, err)
	}
	images, err := simulated.WorkImages(&w)
	if err != nil || simulated.WorkTarget(&w) != desired.SpecHash || len(images) == 0 {
		return "", fmt.Errorf("config %s has moved on from the desired spec hash %.8s, and %s's work does not carry it", desired.Name, desired.SpecHash, cluster)
	}
	a.mu.Lock()
	a.staleRenders[cluster]++
	a.mu.Unlock()
	return images[0], nil
}

func (a *proxyAddon) stale(cluster string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.staleRenders[cluster]
}

// proxyAgent is the add-on's agent on a cluster.
func proxyAgent(image string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "cluster-proxy-proxy-agent"}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "open-cluster-management-cluster-proxy", Name: "cluster-proxy-proxy-agent", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "proxy-agent", Image: image}}},
			},
		},
	}
}

// bodyWrites records every write request one client sends, with its body.
type bodyWrites struct {
	mu    sync.Mutex
	all   []bodyWrite
	inner http.RoundTripper
}

type bodyWrite struct {
	method, path, body string
	code               int
}

func (w *bodyWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet || strings.Contains(r.URL.Path, "/events") {
		return w.inner.RoundTrip(r)
	}
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := w.inner.RoundTrip(r)
	code := 0
	if resp != nil {
		code = resp.StatusCode
	}
	w.mu.Lock()
	w.all = append(w.all, bodyWrite{method: r.Method, path: r.URL.Path, body: string(body), code: code})
	w.mu.Unlock()
	return resp, err
}

// accepted returns the writes the API server accepted.
func (w *bodyWrites) accepted() []bodyWrite {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []bodyWrite
	for _, x := range w.all {
		if x.code >= 200 && x.code <= 299 {
			out = append(out, x)
		}
	}
	return out
}

// framework is a running addon-framework add-on manager.
type framework struct {
	addon  *proxyAddon
	writes *bodyWrites
	cancel context.CancelFunc
}

// addonFramework starts addon-framework's add-on manager (addonmanager.New,
// AddAgent, Start) with the proxy add-on rendering replicas agents.
func (e *env) addonFramework(t testing.TB, replicas int32) *framework {
	t.Helper()
	cfg := rest.CopyConfig(e.hub.Config)
	cfg.UserAgent = "addon-framework-manager"
	w := &bodyWrites{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { w.inner = rt; return w }
	mgr, err := addonmanager.New(cfg)
	require.NoError(t, err)
	a := &proxyAddon{c: e.c, name: e.addonName, replicas: replicas, staleRenders: map[string]int{}}
	require.NoError(t, mgr.AddAgent(a))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	require.NoError(t, mgr.Start(ctx))
	return &framework{addon: a, writes: w, cancel: cancel}
}

// workAgents starts the simulated work agents alone: applying a work takes
// delay, and fails where fail says.
func (e *env) workAgents(t testing.TB, delay time.Duration, fail func(cluster, target string) bool) *running {
	return e.start(t, func(mgr ctrl.Manager) error {
		return (&simulated.WorkAgent{Client: mgr.GetClient(), Delay: delay, Fail: fail}).SetupWithManager(mgr)
	})
}

// TestAddonFrameworkRollout runs the real add-on framework on the other
// side of the controller: addon-framework v1.2.0's add-on manager with a
// cluster-proxy-like add-on (proxyAddon) renders the ManifestWorks from the
// desired configs the controller writes, the simulated work agents apply
// them (stg's fails until told otherwise), and the controller installs the
// add-on, rolls the new agent image out and reads the progress from the
// works. It checks what the seed tells a user to check:
//
//   - the works listed by their addon-name label show the new config (its
//     image and spec hash annotation) reaching dev, then stg, then prod,
//     each only after the one before has soaked; each add-on's
//     lastAppliedConfig follows its work;
//   - a failed apply on stg holds the rollout under maxFailures 0: stg
//     stays Progressing until its deadline makes it TimeOut, and prod's
//     work never gets the new image (though addon-framework renders prod
//     again meanwhile, from a config object that has moved on); once stg
//     applies it, the rollout goes on;
//   - the seed's caveat: a change of the rendering alone (the add-on
//     manager restarted with 2 replicas, the config unchanged) starts no
//     rollout: the controller writes no desiredConfig and every cluster's
//     work is updated at once;
//   - addon-framework's own controllers leave the add-on's rollout to the
//     controller: they never write the ClusterManagementAddOn, never create
//     or delete a ManagedClusterAddOn, and write only their own status
//     fields of them.
func TestAddonFrameworkRollout(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "6s")
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	var stgFails atomic.Bool
	stgFails.Store(true)
	ctl := e.controller(t)
	e.workAgents(t, applyTime, func(cluster, target string) bool {
		return cluster == e.stg && target == newHash && stgFails.Load()
	})
	fw := e.addonFramework(t, 1)

	// Install: addon-framework renders each cluster's work once the
	// controller has written its desired config.
	e.installed(t, o, e.addonName, oldHash, 90*time.Second)
	for _, c := range o.Clusters() {
		w := e.works(t, e.addonName)[c]
		assert.Equal(t, "addon-"+e.addonName+"-deploy-0", w.name, c)
		assert.Equal(t, oldHash, w.target, c)
		assert.Equal(t, []string{testhub.Image}, w.images, c)
		assert.True(t, w.ready, c)
		s := e.addon(t, c, e.addonName)
		require.NotNil(t, s.manifestApplied, "%s: addon-framework set no ManifestApplied condition", c)
		assert.Equal(t, metav1.ConditionTrue, s.manifestApplied.Status, c)
	}

	// The new image; stg fails to apply it.
	ob := e.observe(t, o.Clusters(), e.addonName, newHash)
	e.setAgentImage(t, newImage)
	e.timedOutAtStg(t)
	stg := e.addon(t, e.stg, e.addonName)
	require.NotNil(t, stg.progressing)
	assert.Equal(t, addonv1beta1.ProgressingReasonProgressing, stg.progressing.Reason, "a failed apply is Progressing, as in OCM")
	works := e.works(t, e.addonName)
	assert.Equal(t, []string{newImage}, works[e.stg].images)
	require.NotNil(t, works[e.stg].applied)
	assert.Equal(t, metav1.ConditionFalse, works[e.stg].applied.Status)
	time.Sleep(3 * soak) // held: prod waits
	prod := e.works(t, e.addonName)[e.prod]
	assert.Equal(t, oldHash, prod.target, "prod's work got the new config during the halt")
	assert.Equal(t, []string{testhub.Image}, prod.images, "prod's work got the new image during the halt")
	assert.Equal(t, oldHash, e.addon(t, e.prod, e.addonName).desired)
	// addon-framework rendered prod again during the halt (its config
	// controller wrote prod's lastObservedGeneration, say), from a config
	// object that had moved on: an add-on that rendered the object as it
	// is would have put the new image under the old hash here.
	assert.Positive(t, fw.addon.stale(e.prod), "prod-cluster was not rendered again during the halt")
	t.Logf("addon-framework rendered prod-cluster %d times during the halt from a config that had moved on", fw.addon.stale(e.prod))

	// stg applies it after all: the rollout goes on to prod.
	stgFails.Store(false)
	e.installed(t, o, e.addonName, newHash, 90*time.Second)
	e.requireStaged(t, ob, o, oldHash, newHash)

	e.renderingChange(t, o, ctl, fw)
	e.requireFrameworkLeftRollout(t, fw, newHash)
}

// timedOutAtStg waits until the install progression says that stg-cluster
// timed out, and nothing else.
func (e *env) timedOutAtStg(t testing.TB) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		s := e.addon(ct, e.stg, e.addonName)
		ip, _ := e.progression(ct, e.addonName)
		msg := ""
		if c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing); c != nil {
			msg = c.Message
		}
		assert.Equal(ct, "selected clusters 3. configured addons 1/3 progressing..., 0 failed 1 timeout.", msg,
			"stg desired %.8s applied %.8s", s.desired, s.applied)
	}, 60*time.Second, poll, "stg-cluster times out")
}

// renderingChange restarts the add-on manager with two replicas: every
// work is updated at once, and no rollout starts.
func (e *env) renderingChange(t *testing.T, o seeded, ctl *running, fw *framework) {
	t.Helper()
	newHash := specHash(t, newImage)
	quiet(t, ctl, 2*time.Second)
	ob := e.observe(t, o.Clusters(), e.addonName, newHash)
	fw.cancel()
	restarted := e.addonFramework(t, 2)
	updated := map[string]time.Time{}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for c, w := range e.works(ct, e.addonName) {
			if _, ok := updated[c]; !ok && len(w.replicas) == 1 && w.replicas[0] == 2 {
				updated[c] = time.Now()
			}
		}
		assert.Len(ct, updated, len(o.Clusters()), "works with 2 replicas, and when")
	}, 30*time.Second, poll, "every work has 2 replicas")
	first, last := time.Time{}, time.Time{}
	for _, at := range updated {
		if first.IsZero() || at.Before(first) {
			first = at
		}
		last = maxTime(last, at)
	}
	assert.Less(t, last.Sub(first), soak, "the works were updated one group after another, not at once")
	// The works are applied again at their new generations, and the
	// add-ons, Progressing meanwhile as in OCM, are Completed again.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for c, w := range e.works(ct, e.addonName) {
			s := e.addon(ct, c, e.addonName)
			assert.True(ct, w.ready, "%s: work not ready", c)
			if assert.NotNil(ct, s.progressing, "%s: no Progressing condition", c) {
				assert.Equal(ct, addonv1beta1.ProgressingReasonCompleted, s.progressing.Reason, "%s: add-on %+v", c, s.progressing)
			}
			assert.Equal(ct, newHash, s.applied, "%s: applied", c)
		}
	}, 30*time.Second, poll, "every work applied again, every add-on Completed")
	ob.close()
	for _, c := range o.Clusters() {
		assert.Equal(t, []string{newHash}, ob.desired[c], "%s: a desiredConfig was written", c)
		w := e.works(t, e.addonName)[c]
		assert.Equal(t, newHash, w.target, c)
		assert.Equal(t, []string{newImage}, w.images, c)
	}
	fw.writes.mu.Lock()
	fw.writes.all = append(fw.writes.all, restarted.writes.accepted()...)
	fw.writes.mu.Unlock()
	restarted.cancel()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// requireFrameworkLeftRollout checks what addon-framework's controllers
// wrote on a hub where the controller takes the add-on. addon-framework
// v1.2.0 has no install or progressing logic (OCM's add-on manager has
// it), and its controllers filter by add-on name, not by lifecycle: they
// write the add-on's works (agentdeploy), status patches of its
// ManagedClusterAddOns (supportedConfigs and RegistrationApplied from the
// registration controller, ManifestApplied from agentdeploy,
// lastObservedGeneration from the config controller), and status patches
// of the ClusterManagementAddOn from its cma-config controller, which sets
// every desiredConfig spec hash of its install progressions to the
// config's current one, the hash the controller writes there too. Each
// status patch carries the resourceVersion it read. They never create or
// delete a ManagedClusterAddOn nor write its spec, never write the
// ClusterManagementAddOn's spec or metadata (its lifecycle annotation
// stays), and never put a spec hash other than the config's current one
// into its status.
func (e *env) requireFrameworkLeftRollout(t *testing.T, fw *framework, newHash string) {
	t.Helper()
	table := map[string]int{}
	for _, w := range fw.writes.accepted() {
		kind := resourceOf(w.path)
		table[w.method+" "+kind]++
		switch kind {
		case "managedclusteraddons/status":
			assert.Contains(t, w.body, `"resourceVersion"`, "a status patch without an optimistic lock: %s", w.body)
		case "clustermanagementaddons/status":
			assert.Contains(t, w.body, `"resourceVersion"`, "a status patch without an optimistic lock: %s", w.body)
			requireOnlySpecHashes(t, w.body, newHash)
		case "manifestworks":
			assert.Contains(t, w.path+w.body, simulated.WorkName(e.addonName), "%s %s", w.method, w.path)
		default:
			t.Errorf("addon-framework wrote %s %s: %s", w.method, w.path, w.body)
		}
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%4d %s", table[k], k))
	}
	t.Logf("addon-framework's accepted writes:\n%s", strings.Join(lines, "\n"))
	var cma addonv1alpha1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: e.addonName}, &cma))
	assert.Equal(t, e.lifecycle, cma.Annotations[hubclient.LifecycleAnnotation], "the lifecycle annotation was changed")
}

// requireOnlySpecHashes checks that a status patch of the
// ClusterManagementAddOn sets no desiredConfig spec hash but h.
func requireOnlySpecHashes(t *testing.T, body, h string) {
	t.Helper()
	var patch struct {
		Status addonv1alpha1.ClusterManagementAddOnStatus `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &patch))
	for _, r := range patch.Status.DefaultConfigReferences {
		if r.DesiredConfig != nil {
			assert.Equal(t, h, r.DesiredConfig.SpecHash, "default config: %s", body)
		}
	}
	for _, ip := range patch.Status.InstallProgressions {
		for _, r := range ip.ConfigReferences {
			if r.DesiredConfig != nil {
				assert.Equal(t, h, r.DesiredConfig.SpecHash, "install progression: %s", body)
			}
		}
	}
}

// resourceOf names the resource (and subresource) of an API path.
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		switch parts[i] {
		case "managedclusteraddons", "clustermanagementaddons", "manifestworks", "certificatesigningrequests":
			if i+2 < len(parts) {
				return parts[i] + "/" + parts[i+2]
			}
			return parts[i]
		}
	}
	return path
}
