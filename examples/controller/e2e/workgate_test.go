package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	frameworkagent "open-cluster-management.io/addon-framework/pkg/agent"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	simulated "github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// thirdImage is the agent image of the change made while a rollout is
// halted.
const thirdImage = "quay.io/open-cluster-management/cluster-proxy:v0.9.2"

// byNameAddon is an add-on in the manner of the real cluster-proxy
// (pkg/proxyagent/agent GetClusterProxyValueFunc): its Manifests reads the
// ManagedProxyConfiguration by name (the one the add-on's
// status.configReferences names, else the seed's fixed name) and renders
// the agent image of its newest spec, whatever spec hash the add-on's
// desiredConfig says. Under addon-framework v1.2.0 that puts a config's
// newest spec into every cluster's work as soon as the config changes,
// under the older hash of the clusters the rollout has not reached: the
// leak the work gate holds back.
type byNameAddon struct {
	c           client.Client // uncached
	configCheck bool          // cluster-proxy's WithConfigCheckEnabledOption
}

func (a *byNameAddon) GetAgentAddonOptions() frameworkagent.AgentAddonOptions {
	return frameworkagent.AgentAddonOptions{AddonName: addonName, SupportedConfigGVRs: []schema.GroupVersionResource{proxyConfigGVR},
		ConfigCheckEnabled: a.configCheck}
}

func (a *byNameAddon) Manifests(_ *clusterv1.ManagedCluster, mca *addonv1alpha1.ManagedClusterAddOn) ([]runtime.Object, error) {
	cfg, err := proxyConfigByName(a.c, mca)
	if err != nil {
		return nil, err
	}
	return []runtime.Object{proxyAgent(simulated.AgentImage(cfg), 1)}, nil
}

// proxyConfigByName reads the ManagedProxyConfiguration mca's config
// references name (cluster-proxy when they name none) as cluster-proxy
// does: by name, its newest spec, whatever hash the rollout handed the
// cluster.
func proxyConfigByName(c client.Client, mca *addonv1alpha1.ManagedClusterAddOn) (*unstructured.Unstructured, error) {
	name := "cluster-proxy"
	for _, r := range mca.Status.ConfigReferences {
		if r.Group == proxyConfigGVR.Group && r.Resource == proxyConfigGVR.Resource && r.Name != "" {
			name = r.Name
		}
	}
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(proxyConfigGVR.GroupVersion().WithKind("ManagedProxyConfiguration"))
	if err := c.Get(context.Background(), types.NamespacedName{Name: name}, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// startAddOnManager starts addon-framework's add-on manager with add-on
// a, its writes recorded with their bodies and answers.
func (e *env) startAddOnManager(t testing.TB, a frameworkagent.AgentAddon) *bodyWrites {
	t.Helper()
	return e.runManager(t, a).writes
}

// TestWorkGate runs the work gate against addon-framework v1.2.0's add-on
// manager with an add-on that reads its config by name and checks no spec
// hash, as cluster-proxy does, once with addon-framework's config check
// off and once with it on (cluster-proxy's WithConfigCheckEnabledOption),
// each on a hub of its own. On the seed's hub (dev, stg, prod, maxFailures
// 0) the add-on installs; the image changes to B, which stg fails to
// apply, so the rollout halts there; while halted the image changes again,
// to C, and once C's rollout has started stg's failure ends. Every version
// of every work the test sees must carry the image of the config spec its
// config-spec-hash annotation names, and only a spec its add-on was handed
// before: prod never carries B, and no cluster carries C before its
// desiredConfig does. C must roll out dev, stg, prod in order, each after
// the one before has soaked, and the gate must have held prod's work
// (addon-framework's writes refused, the hold recorded on prod's add-on
// and a WorkHeld event saying why), so that the test cannot pass for want of
// anything to hold; with the config check on, prod's or, where the race
// below went the other way, another cluster's.
//
// With the config check on, addon-framework renders a cluster only while
// its Configured condition is True, and on a hub of three clusters the
// controller turns prod's False within milliseconds of a config change,
// mostly before addon-framework renders prod again: the leak, and so the
// gate's work, is a race there (prod's work was refused in one run of
// four, and its ManifestApplied condition never showed it). On a fleet the
// controller turns at most 200 add-ons a reconcile (waitingWrites in
// hubctl/addons/fanout.go), so most clusters render with Configured still True;
// the subtest makes prod such a cluster: the controller's writes of its
// add-on land a second late.
func TestWorkGate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		configCheck bool
	}{
		{"ConfigCheckOff", false},
		{"ConfigCheckOn", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			workGateRollout(t, tc.configCheck)
		})
	}
}

func workGateRollout(t *testing.T, configCheck bool) {
	// A hub of its own: the work gate's configuration, which it installs,
	// holds every add-on's works on the hub, and recordVersions wants no
	// other add-on there.
	e := newEnv(t)
	o := seedHub(t, e, "6s")
	hashA, hashB, hashC := specHash(t, testhub.Image), specHash(t, newImage), specHash(t, thirdImage)
	seen := e.recordVersions(t, addonName)
	tune := func(*ctrl.Options) {}
	if configCheck {
		tune = lateWrites("/namespaces/prod-cluster/managedclusteraddons/", time.Second)
	}
	gate := e.startGated(t, e.hub.Config, tune, hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{e.lifecycle}})
	var stgFails atomic.Bool
	stgFails.Store(true)
	e.workAgents(t, applyTime, func(cluster, target string) bool {
		return cluster == "stg-cluster" && target == hashB && stgFails.Load()
	})
	fw := e.startAddOnManager(t, &byNameAddon{c: e.c, configCheck: configCheck})

	start := time.Now()
	e.installed(t, o, addonName, hashA, 90*time.Second)
	installed := time.Now()
	halted := e.haltWith(t, newImage)
	changed := e.rollOutWhileHalted(t, o, thirdImage, func() { stgFails.Store(false) })
	done := time.Now()
	t.Logf("config check %t: install %s; B halted at stg after %s; C set %s after the halt, completed in %s",
		configCheck, installed.Sub(start).Round(time.Millisecond), halted.Sub(installed).Round(time.Millisecond),
		changed.Sub(halted).Round(time.Millisecond), done.Sub(changed).Round(time.Millisecond))

	seen.stop()
	seen.requireStaged(t, map[string]string{hashA: testhub.Image, hashB: newImage, hashC: thirdImage,
		"": testhub.Image}) // a work rendered before its add-on was handed a spec: at install
	for c, want := range map[string][]string{"dev-cluster": {hashA, hashB, hashC}, "stg-cluster": {hashA, hashB, hashC}, "prod-cluster": {hashA, hashC}} {
		assert.Equal(t, want, seen.desired(c), "%s: desired specs in order", c)
	}
	assert.Equal(t, []string{testhub.Image, thirdImage}, seen.images("prod-cluster"), "prod's work's images in order")
	t.Logf("versions seen: %d of works, %d of add-ons; prod's work got C %s after C was set",
		len(seen.works), len(seen.addons), seen.firstImage("prod-cluster", thirdImage).Sub(changed).Round(time.Millisecond))
	held := []string{"prod-cluster prod"}
	if configCheck {
		held = append(held, "dev-cluster dev", "stg-cluster stg") // see TestWorkGate
	}
	e.requireHeld(t, gate, fw, seen, held...)
}

// haltWith changes the agent image to one stg fails to apply: the rollout
// halts at stg, and prod's work keeps the image it has. It returns when
// the halt was seen.
func (e *env) haltWith(t testing.TB, image string) time.Time {
	t.Helper()
	e.setAgentImage(t, image)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ip, _ := e.progression(ct, e.addonName)
		c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		require.NotNil(ct, c, "no progression condition")
		assert.Equal(ct, "selected clusters 3. configured addons 1/3 progressing..., 0 failed 1 timeout.", c.Message)
	}, 60*time.Second, poll, "stg-cluster times out")
	halted := time.Now()
	before := e.works(t, addonName)["prod-cluster"]
	time.Sleep(2 * soak) // held: prod waits
	prod := e.works(t, addonName)["prod-cluster"]
	assert.Equal(t, before.target, prod.target, "prod's work during the halt")
	assert.Equal(t, []string{testhub.Image}, prod.images, "prod's work during the halt")
	return halted
}

// rollOutWhileHalted changes the agent image again, while the rollout is
// halted, calls recovers once dev has been handed the new spec, and checks
// that the new spec then reaches dev, stg and prod in order, each after
// the one before has soaked, until every work carries it. It returns when
// the image was changed.
func (e *env) rollOutWhileHalted(t testing.TB, o seeded, image string, recovers func()) time.Time {
	t.Helper()
	h := specHash(t, image)
	ob := e.observe(t, o.Clusters(), addonName, h)
	changed := time.Now()
	e.setAgentImage(t, image)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Equal(ct, h, e.addon(ct, "dev-cluster", addonName).desired, "dev desired")
	}, 30*time.Second, poll, "dev-cluster is handed the new spec")
	recovers()
	e.installed(t, o, addonName, h, 90*time.Second)
	ob.close()
	e.requireOrder(t, ob, addonName, "dev-cluster", "stg-cluster", "prod-cluster")
	assert.Empty(t, ob.ahead, "lastAppliedConfig ahead of the work")
	for c, w := range e.works(t, addonName) {
		assert.Equal(t, h, w.target, c)
		assert.Equal(t, []string{image}, w.images, c)
	}
	return changed
}

// requireHeld checks that the gate held the work of one of clusters (in
// rollout order, each "name group"): the first whose add-on carries the
// gate's record of a moved-on config. addon-framework's writes of its work
// were refused, the gate counted refusals of configs that had moved on
// (and none it could not judge), recorded the hold on its add-on, and
// sent a WorkHeld event about it.
//
// addon-framework's ManifestApplied False with the gate's message is
// checked when the test saw it: addon-framework writes it with a patch
// that names the add-on's resourceVersion, and the gate's own record of
// the hold on the same add-on can make that patch conflict, after which
// addon-framework may not write it again before the rollout hands the
// cluster the new spec (then the condition says True at once).
func (e *env) requireHeld(t testing.TB, gate *gated, fw *bodyWrites, seen *versions, clusters ...string) {
	t.Helper()
	refused, refusals := refusedWorkWrites(fw), gate.refusals(t)
	t.Logf("addon-framework's work writes refused, by cluster: %v; the gate's refusals by add-on and reason: %v", refused, refusals)
	assert.Positive(t, refusals[addonName+" "+workgate.ConfigMovedOn.String()], "refusals %v", refusals)
	assert.Zero(t, refusals[addonName+" "+workgate.Unreadable.String()], "the gate could not read the hub: refusals %v", refusals)
	var cluster, group string
	var hold hubplan.Hold
	for _, cg := range clusters {
		c, g, _ := strings.Cut(cg, " ")
		if h, ok := seen.heldRecord(c, workgate.ConfigMovedOn); ok {
			cluster, group, hold = c, g, h
			break
		}
	}
	require.NotEmpty(t, cluster, "the gate never recorded a hold of a moved-on config on the add-on of any of %v", clusters)
	t.Logf("%s's hold record: %+v", cluster, hold)
	assert.Positive(t, refused[cluster], "addon-framework's writes of %s's work were never refused", cluster)
	assert.NotEmpty(t, hold.Works)
	assert.Contains(t, hold.Why, "has moved on")
	if held := seen.heldMessage(cluster); held != "" {
		t.Logf("%s's ManifestApplied while held: %s", cluster, held)
		for _, part := range []string{workgate.Marker, addonName, cluster, "(group " + group + ")"} {
			assert.Contains(t, held, part)
		}
	} else {
		t.Logf("%s's ManifestApplied never showed the hold: addon-framework did not write it again after a conflict", cluster)
	}
	note := e.heldEvent(t, cluster)
	t.Logf("%s's %s event: %s", cluster, gatehook.ReasonWorkHeld, note)
	for _, part := range []string{addonName, cluster, "(group " + group + ")"} {
		assert.Contains(t, note, part)
	}
}

// lateWrites makes a manager's writes whose path contains part land d
// late: its client's requests wait d before they are sent.
func lateWrites(part string, d time.Duration) func(*ctrl.Options) {
	return func(o *ctrl.Options) {
		o.NewClient = func(cfg *rest.Config, opts client.Options) (client.Client, error) {
			hc := opts.HTTPClient
			if hc == nil {
				var err error
				if hc, err = rest.HTTPClientFor(cfg); err != nil {
					return nil, err
				}
			}
			late := *hc
			late.Transport = &lateTransport{inner: hc.Transport, part: part, delay: d}
			opts.HTTPClient = &late
			return client.New(cfg, opts)
		}
	}
}

// lateTransport sends the writes whose path contains part delay late.
type lateTransport struct {
	inner http.RoundTripper
	part  string
	delay time.Duration
}

func (l *lateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && strings.Contains(r.URL.Path, l.part) {
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(l.delay):
		}
	}
	return l.inner.RoundTrip(r)
}

// refusedWorkWrites counts the writes of ManifestWorks the API server
// refused as forbidden (the webhook's denial), by namespace.
func refusedWorkWrites(w *bodyWrites) map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for _, x := range w.all {
		parts := strings.Split(strings.Trim(x.path, "/"), "/")
		i := slices.Index(parts, "manifestworks")
		if x.code == http.StatusForbidden && i >= 2 && parts[i-2] == "namespaces" {
			out[parts[i-1]]++
		}
	}
	return out
}

// heldEvent waits for a Warning event of the gate on cluster's add-on and
// returns its note.
func (e *env) heldEvent(t testing.TB, cluster string) string {
	t.Helper()
	var note string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var evs eventsv1.EventList
		require.NoError(ct, e.c.List(context.Background(), &evs, client.InNamespace(cluster)))
		i := slices.IndexFunc(evs.Items, func(ev eventsv1.Event) bool {
			return ev.Reason == gatehook.ReasonWorkHeld && ev.Type == corev1.EventTypeWarning &&
				ev.Regarding.Kind == "ManagedClusterAddOn" && ev.Regarding.Name == addonName
		})
		require.GreaterOrEqual(ct, i, 0, "%d events, none %s", len(evs.Items), gatehook.ReasonWorkHeld)
		note = evs.Items[i].Note
	}, 30*time.Second, poll, "%s's %s event", cluster, gatehook.ReasonWorkHeld)
	assert.Contains(t, note, workgate.Marker)
	return note
}

// versions records every version of an add-on's works and
// ManagedClusterAddOns, from watches started before either exists. The
// test hub has one etcd, so resourceVersions are its revisions, ordered
// across resources: a work's version is newer than an add-on's version
// exactly when its resourceVersion is greater.
type versions struct {
	mu     sync.Mutex
	works  []workSeen
	addons []addonSeen
	errs   []string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// workSeen is one version of a cluster's work.
type workSeen struct {
	cluster string
	name    string
	rv      uint64
	deleted bool
	target  string // the config-spec-hash annotation's spec hash
	images  []string
	at      time.Time
}

// addonSeen is one version of a cluster's ManagedClusterAddOn.
type addonSeen struct {
	cluster         string
	rv              uint64
	desired         string
	manifestApplied *metav1.Condition
	hold            hubplan.Hold // the work gate's record, when it holds a work
	held            bool
}

// recordVersions starts recording the versions of the works and the
// ManagedClusterAddOns of add-on name.
func (e *env) recordVersions(t testing.TB, name string) *versions {
	t.Helper()
	wc, err := client.NewWithWatch(e.hub.Config, client.Options{Scheme: e.c.Scheme()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	v := &versions{cancel: cancel}
	t.Cleanup(v.stop)
	selector := addonv1alpha1.AddonLabelKey + "=" + name
	var works workv1.ManifestWorkList
	require.NoError(t, wc.List(ctx, &works, client.MatchingLabels{addonv1alpha1.AddonLabelKey: name}))
	require.Empty(t, works.Items, "works of %s before the test", name)
	v.follow(t, ctx, wc, &workv1.ManifestWorkList{}, works.ResourceVersion, selector, v.recordWork)
	var addons addonv1alpha1.ManagedClusterAddOnList
	require.NoError(t, wc.List(ctx, &addons))
	require.Empty(t, addons.Items, "add-ons before the test")
	v.follow(t, ctx, wc, &addonv1alpha1.ManagedClusterAddOnList{}, addons.ResourceVersion, "", func(ev watch.Event) error {
		if m, ok := ev.Object.(*addonv1alpha1.ManagedClusterAddOn); ok && m.Name != name {
			return nil
		}
		return v.recordAddon(ev)
	})
	return v
}

// follow watches list's resource from resourceVersion rv on, through
// expired watches, recording each event.
func (v *versions) follow(t testing.TB, ctx context.Context, wc client.WithWatch, list client.ObjectList, rv, selector string, record func(watch.Event) error) {
	t.Helper()
	w, err := watchtools.NewRetryWatcherWithContext(ctx, rv, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return wc.Watch(ctx, list.DeepCopyObject().(client.ObjectList), &client.ListOptions{Raw: &o})
		},
	})
	require.NoError(t, err)
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				if err := record(ev); err != nil {
					v.mu.Lock()
					v.errs = append(v.errs, err.Error())
					v.mu.Unlock()
				}
			}
		}
	}()
}

func (v *versions) recordWork(ev watch.Event) error {
	w, ok := ev.Object.(*workv1.ManifestWork)
	if !ok {
		return fmt.Errorf("watching works: %s event of %T: %v", ev.Type, ev.Object, ev.Object)
	}
	rv, err := strconv.ParseUint(w.ResourceVersion, 10, 64)
	if err != nil {
		return fmt.Errorf("work %s/%s: resourceVersion: %w", w.Namespace, w.Name, err)
	}
	images, err := simulated.WorkImages(w)
	if err != nil {
		return err
	}
	cluster := w.Namespace
	if owner, ok := w.Labels[addonv1alpha1.AddonNamespaceLabelKey]; ok {
		cluster = owner // a hosted add-on's, in its hosting cluster's namespace
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.works = append(v.works, workSeen{cluster: cluster, name: w.Name, rv: rv, deleted: ev.Type == watch.Deleted,
		target: simulated.WorkTarget(w), images: images, at: time.Now()})
	return nil
}

func (v *versions) recordAddon(ev watch.Event) error {
	m, ok := ev.Object.(*addonv1alpha1.ManagedClusterAddOn)
	if !ok {
		return fmt.Errorf("watching add-ons: %s event of %T: %v", ev.Type, ev.Object, ev.Object)
	}
	rv, err := strconv.ParseUint(m.ResourceVersion, 10, 64)
	if err != nil {
		return fmt.Errorf("add-on %s/%s: resourceVersion: %w", m.Namespace, m.Name, err)
	}
	a := addonSeen{cluster: m.Namespace, rv: rv,
		manifestApplied: meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)}
	a.hold, a.held = hubplan.ReadHold(&addonv1beta1.ManagedClusterAddOn{ObjectMeta: m.ObjectMeta})
	for _, r := range m.Status.ConfigReferences {
		if r.DesiredConfig != nil {
			a.desired = r.DesiredConfig.SpecHash
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.addons = append(v.addons, a)
	return nil
}

// stop ends the recording.
func (v *versions) stop() {
	v.cancel()
	v.wg.Wait()
}

// requireStaged checks every version of every work recorded: it carries
// the image of the config spec its annotation names (images: spec hash to
// image), and that spec had been handed to its cluster (its add-on's
// desiredConfig) in an earlier version of the add-on. No work was deleted.
func (v *versions) requireStaged(t testing.TB, images map[string]string) {
	t.Helper()
	v.requireStagedDeleting(t, images, nil)
}

// requireStagedDeleting is requireStaged where the works of the clusters
// in deleted were deleted, by the test; a deleted version carries what it
// carried, and is not checked again.
func (v *versions) requireStagedDeleting(t testing.TB, images map[string]string, deleted []string) {
	t.Helper()
	require.Empty(t, v.errs, "recording the versions")
	require.NotEmpty(t, v.works, "no version of a work was seen")
	handed := map[string]uint64{} // cluster and spec hash -> the first add-on version desiring it
	for _, a := range v.addons {
		if k := a.cluster + " " + a.desired; a.desired != "" && (handed[k] == 0 || a.rv < handed[k]) {
			handed[k] = a.rv
		}
	}
	for _, w := range v.works {
		what := fmt.Sprintf("%s's work %s at resourceVersion %d (spec %.8s, images %v)", w.cluster, w.name, w.rv, w.target, w.images)
		if w.deleted {
			assert.Contains(t, deleted, w.cluster, "%s was deleted", what)
			continue
		}
		want, known := images[w.target]
		if !assert.True(t, known, "%s names a spec the test never made", what) {
			continue
		}
		if len(w.images) > 0 { // a work of the rendering's other manifests carries no image
			assert.Equal(t, []string{want}, w.images, "%s carries content of another spec than its annotation names", what)
		}
		if w.target == "" {
			continue
		}
		at, ok := handed[w.cluster+" "+w.target]
		assert.True(t, ok && at < w.rv, "%s carries a spec its add-on was not handed before (first desired at %d)", what, at)
	}
}

// desired returns the desired spec hashes cluster's add-on had, in order,
// each once.
func (v *versions) desired(cluster string) []string {
	var out []string
	for _, a := range v.sortedAddons() {
		if a.cluster == cluster && a.desired != "" && (len(out) == 0 || out[len(out)-1] != a.desired) {
			out = append(out, a.desired)
		}
	}
	return out
}

// images returns the first images cluster's work carried, in order, each
// once.
func (v *versions) images(cluster string) []string {
	var out []string
	for _, w := range v.works {
		if w.cluster == cluster && len(w.images) > 0 && (len(out) == 0 || out[len(out)-1] != w.images[0]) {
			out = append(out, w.images[0])
		}
	}
	return out
}

// firstImage returns when cluster's work was first seen carrying image.
func (v *versions) firstImage(cluster, image string) time.Time {
	for _, w := range v.works {
		if w.cluster == cluster && slices.Contains(w.images, image) {
			return w.at
		}
	}
	return time.Time{}
}

// heldMessage returns the message of the first ManifestApplied False
// condition of cluster's add-on that carries the gate's refusal.
func (v *versions) heldMessage(cluster string) string {
	for _, a := range v.sortedAddons() {
		c := a.manifestApplied
		if a.cluster == cluster && c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, workgate.Marker) {
			return c.Message
		}
	}
	return ""
}

// heldRecord returns the first hold for reason the gate recorded on
// cluster's add-on.
func (v *versions) heldRecord(cluster string, reason workgate.Reason) (hubplan.Hold, bool) {
	for _, a := range v.sortedAddons() {
		if a.cluster == cluster && a.held && a.hold.Reason == reason.String() {
			return a.hold, true
		}
	}
	return hubplan.Hold{}, false
}

func (v *versions) sortedAddons() []addonSeen {
	out := slices.Clone(v.addons)
	sort.SliceStable(out, func(i, j int) bool { return out[i].rv < out[j].rv })
	return out
}
