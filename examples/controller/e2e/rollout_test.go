package e2e_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

const (
	addonName = "cluster-proxy"
	newImage  = "quay.io/open-cluster-management/cluster-proxy:v0.9.1"
	soak      = 2 * time.Second
	applyTime = time.Second
)

// observer records, every 50ms, each cluster's desired and applied spec
// hashes and its deploy work's config and images, and when each was first
// seen.
type observer struct {
	mu        sync.Mutex
	desired   map[string][]string    // cluster -> desired hashes in the order seen
	desiredAt map[string][]time.Time // when each was first seen
	firstSet  map[string]time.Time
	firstApp  map[string]time.Time
	applied   map[string][]string
	images    map[string][]string  // cluster -> its work's first image, in the order seen
	firstWork map[string]time.Time // when the work first carried the hash
	// ahead lists the reads where an add-on's lastAppliedConfig had the
	// hash while its work, read after it, was not ready with it.
	ahead []string
	stop  chan struct{}
	done  chan struct{}
}

func (e *env) observe(t testing.TB, clusters []string, name, h string) *observer {
	ob := &observer{desired: map[string][]string{}, desiredAt: map[string][]time.Time{}, applied: map[string][]string{}, firstSet: map[string]time.Time{},
		firstApp: map[string]time.Time{}, images: map[string][]string{}, firstWork: map[string]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
	pass := func() {
		states := make(map[string]addonState, len(clusters))
		for _, c := range clusters {
			s, err := e.readAddon(c, name)
			if err != nil {
				continue // a passing API error: read again at the next tick
			}
			states[c] = s
			ob.record(c, s, h)
		}
		// The works are read after the add-ons: an add-on that shows h as
		// applied was written from a work that was ready with h by then.
		works, err := e.readWorks(name)
		if err != nil {
			return
		}
		ob.recordWorks(states, works, h)
	}
	pass() // what was there before the test's change
	go func() {
		defer close(ob.done)
		for {
			pass()
			select {
			case <-ob.stop:
				pass() // the state the test saw when it stopped watching
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(ob.close)
	return ob
}

// record notes what one read of cluster's add-on showed.
func (ob *observer) record(c string, s addonState, h string) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	if d := ob.desired[c]; s.desired != "" && (len(d) == 0 || d[len(d)-1] != s.desired) {
		ob.desired[c] = append(d, s.desired)
		ob.desiredAt[c] = append(ob.desiredAt[c], time.Now())
	}
	if a := ob.applied[c]; s.applied != "" && (len(a) == 0 || a[len(a)-1] != s.applied) {
		ob.applied[c] = append(a, s.applied)
	}
	if _, ok := ob.firstSet[c]; !ok && s.desired == h {
		ob.firstSet[c] = time.Now()
	}
	if _, ok := ob.firstApp[c]; !ok && s.applied == h {
		ob.firstApp[c] = time.Now()
	}
}

// recordWorks notes what one read of the works showed, after the read of
// the add-ons that gave states.
func (ob *observer) recordWorks(states map[string]addonState, works map[string]workState, h string) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	for c, w := range works {
		if img := ob.images[c]; len(w.images) > 0 && (len(img) == 0 || img[len(img)-1] != w.images[0]) {
			ob.images[c] = append(img, w.images[0])
		}
		if _, ok := ob.firstWork[c]; !ok && w.target == h {
			ob.firstWork[c] = time.Now()
		}
	}
	for c, s := range states {
		if w := works[c]; s.applied == h && (w.target != h || !w.ready) {
			ob.ahead = append(ob.ahead, fmt.Sprintf("%s: applied %.8s, work %.8s ready %t", c, h, w.target, w.ready))
		}
	}
}

func (ob *observer) close() {
	select {
	case <-ob.stop:
	default:
		close(ob.stop)
	}
	<-ob.done
}

// requireStaged closes ob and checks what a user checks after a config
// change from oldHash to newHash (the agent image newImage): it reached
// dev, stg and prod in that order, each after the one before soaked
// (requireOrder); each cluster's desiredConfig and its work's image went
// from the old to the new exactly once; and no add-on's lastAppliedConfig
// ran ahead of its work.
func (e *env) requireStaged(t testing.TB, ob *observer, o seeded, oldHash, newHash string) {
	t.Helper()
	ob.close()
	e.requireOrder(t, ob, e.addonName, e.dev, e.stg, e.prod)
	for _, c := range o.Clusters() {
		assert.Equal(t, []string{oldHash, newHash}, ob.desired[c], "%s: desired hashes in order", c)
		assert.Equal(t, []string{testhub.Image, newImage}, ob.images[c], "%s: its work's images in order", c)
	}
	assert.Empty(t, ob.ahead, "lastAppliedConfig ahead of the work")
}

// requireOrder checks that the clusters got the hash in the order given,
// in their add-ons' desiredConfig and in their works, each only after the
// one before had applied it and soaked (from the stored transition time,
// which has one-second precision).
func (e *env) requireOrder(t testing.TB, ob *observer, name string, clusters ...string) {
	t.Helper()
	ob.mu.Lock()
	defer ob.mu.Unlock()
	for i := 1; i < len(clusters); i++ {
		prev, next := clusters[i-1], clusters[i]
		require.Contains(t, ob.firstApp, prev, "%s never applied", prev)
		require.Contains(t, ob.firstSet, next, "%s never got the config", next)
		require.Contains(t, ob.firstWork, next, "%s's work never got the config", next)
		done := e.addon(t, prev, name).progressing
		require.NotNil(t, done)
		soakEnd := done.LastTransitionTime.Add(soak)
		assert.False(t, ob.firstSet[next].Before(soakEnd),
			"%s got the config at %s, before %s's soak ended at %s", next, ob.firstSet[next].Format("15:04:05.000"), prev, soakEnd.Format("15:04:05.000"))
		assert.False(t, ob.firstWork[next].Before(soakEnd),
			"%s's work got the config at %s, before %s's soak ended at %s", next, ob.firstWork[next].Format("15:04:05.000"), prev, soakEnd.Format("15:04:05.000"))
	}
}

// TestSeedRollout is the seed's story on a real API server: the add-on
// installs dev, stg, prod in order; a new proxyAgent.image rolls out the same
// way, each group only after the one before has soaked, in the add-ons'
// desiredConfig and in the ManifestWorks the seed tells a user to list (the
// new image reaches each cluster's work in turn, and each add-on's
// lastAppliedConfig follows its work); the install progression completes
// with the new config as last known good; and a change of only metadata or
// status of the config starts nothing.
func TestSeedRollout(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "30s")
	ctl := e.controller(t)
	e.agents(t, applyTime, nil)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, e.addonName, oldHash, 60*time.Second)

	ob := e.observe(t, o.Clusters(), e.addonName, newHash)
	e.setAgentImage(t, newImage)
	e.installed(t, o, e.addonName, newHash, 60*time.Second)
	e.requireStaged(t, ob, o, oldHash, newHash)

	ip, ok := e.progression(t, e.addonName)
	require.True(t, ok)
	require.Len(t, ip.ConfigReferences, 1)
	ref := ip.ConfigReferences[0]
	assert.Equal(t, newHash, ref.DesiredConfig.SpecHash)
	assert.Equal(t, newHash, ref.LastAppliedConfig.SpecHash)
	assert.Equal(t, newHash, ref.LastKnownGoodConfig.SpecHash, "last known good is the new config")
	cond := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	require.NotNil(t, cond)
	assert.Equal(t, "selected clusters 3. configured addons 3/3 completed with no errors, 0 failed 0 timeout.", cond.Message)

	// The placement reconciler wrote what the seed shows.
	e.requireSeedDecisions(t)

	// Only metadata, then only status: no new rollout, no write.
	quiet(t, ctl, 2*soak)
	before := ctl.writes.count()
	u := e.proxyConfig(t, newImage)
	require.NoError(t, e.c.Patch(context.Background(), u, client.RawPatch(types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"touched":"yes"},"annotations":{"note":"metadata only"}}}`))))
	require.NoError(t, e.c.Status().Patch(context.Background(), u, client.RawPatch(types.MergePatchType,
		[]byte(`{"status":{"observed":"status only"}}`))))
	time.Sleep(2 * soak)
	assert.Equal(t, before, ctl.writes.count(), "a metadata or status change of the config wrote something")
	for _, c := range o.Clusters() {
		assert.Equal(t, newHash, e.addon(t, c, e.addonName).desired)
	}
}

// quiet waits until the manager has written nothing for d.
func quiet(t testing.TB, r *running, d time.Duration) {
	t.Helper()
	last := r.writes.count()
	since := time.Now()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		if n := r.writes.count(); n != last {
			last, since = n, time.Now()
		}
		assert.GreaterOrEqual(ct, time.Since(since), d, "%d writes, the last one %s ago", last, time.Since(since))
	}, 30*time.Second, poll, "controller quiet for %s", d)
}

// requireSeedDecisions checks the PlacementDecisions and Placement status
// against the seed's table.
func (e *env) requireSeedDecisions(t testing.TB) {
	t.Helper()
	want := map[string][3]string{ // decision -> index, group, cluster
		seedPlacement + "-decision-1": {"0", "dev", e.dev},
		seedPlacement + "-decision-2": {"1", "stg", e.stg},
		seedPlacement + "-decision-3": {"2", "prod", e.prod},
	}
	ds := e.decisions(t)
	require.Len(t, ds, 3)
	for _, d := range ds {
		w, ok := want[d.Name]
		require.True(t, ok, "unexpected decision %s", d.Name)
		assert.Equal(t, w[0], d.Labels["cluster.open-cluster-management.io/decision-group-index"])
		assert.Equal(t, w[1], d.Labels["cluster.open-cluster-management.io/decision-group-name"])
		require.Len(t, d.Status.Decisions, 1)
		assert.Equal(t, w[2], d.Status.Decisions[0].ClusterName)
		require.Len(t, d.OwnerReferences, 1)
		assert.Equal(t, seedPlacement, d.OwnerReferences[0].Name)
	}
	p := e.placement(t)
	assert.EqualValues(t, 3, p.Status.NumberOfSelectedClusters)
	require.Len(t, p.Status.DecisionGroups, 3)
	sat := meta.FindStatusCondition(p.Status.Conditions, "PlacementSatisfied")
	require.NotNil(t, sat)
	assert.Equal(t, "AllDecisionsScheduled", sat.Reason)
}

// TestHalt: stg-cluster's work agent fails to apply the new config. As in
// OCM, that is no Failed status (nothing derives one from a work): stg
// stays Progressing until the deadline makes it TimeOut. The rollout stops
// there: prod never gets the new hash (its work keeps the old image), the
// install progression reports the time-out, and once halted the controller
// writes nothing more.
func TestHalt(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "4s")
	ctl := e.controller(t)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.agents(t, applyTime, failingOn(e.stg, newHash))
	e.installed(t, o, e.addonName, oldHash, 60*time.Second)
	e.haltAtStg(t, ctl, newHash)
}

// haltAtStg rolls newImage out with stg-cluster failing and checks the halt.
func (e *env) haltAtStg(t testing.TB, ctl *running, newHash string) {
	t.Helper()
	e.setAgentImage(t, newImage)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ip, ok := e.progression(ct, e.addonName)
		require.True(ct, ok, "no progression")
		c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		require.NotNil(ct, c, "no condition")
		// A failed apply is Progressing, then TimeOut: 0 failed.
		assert.Equal(ct, "selected clusters 3. configured addons 1/3 progressing..., 0 failed 1 timeout.", c.Message)
	}, 60*time.Second, poll, "stg-cluster times out")
	assert.Equal(t, newHash, e.addon(t, e.dev, e.addonName).applied)
	stg := e.addon(t, e.stg, e.addonName)
	assert.Equal(t, newHash, stg.desired)
	assert.NotEqual(t, newHash, stg.applied)
	require.NotNil(t, stg.progressing)
	assert.Equal(t, addonv1beta1.ProgressingReasonProgressing, stg.progressing.Reason, "OCM never derives Failed from a work")
	works := e.works(t, e.addonName)
	assert.Equal(t, newHash, works[e.stg].target, "stg's work carries the new config")
	require.NotNil(t, works[e.stg].applied)
	assert.Equal(t, metav1.ConditionFalse, works[e.stg].applied.Status, "stg's work is not applied")
	quiet(t, ctl, 2*time.Second)
	before := ctl.writes.count()
	time.Sleep(3 * soak)
	assert.Equal(t, before, ctl.writes.count(), "the controller wrote after the halt")
	prod := e.addon(t, e.prod, e.addonName)
	assert.NotEqual(t, newHash, prod.desired, "prod got the new hash after a halt")
	prodWork := e.works(t, e.addonName)[e.prod]
	assert.NotEqual(t, newHash, prodWork.target, "prod's work got the new config after a halt")
	assert.Equal(t, []string{testhub.Image}, prodWork.images, "prod's work got the new image after a halt")
	ip, _ := e.progression(t, e.addonName)
	assert.NotEqual(t, newHash, ip.ConfigReferences[0].LastKnownGoodConfig.SpecHash)
}

// TestRestart stops the controller while stg is in flight and starts a new
// one: the rollout completes in order, every cluster gets the new hash
// once, and nothing is lost.
func TestRestart(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "30s")
	first := e.controller(t)
	e.agents(t, 3*time.Second, nil)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, e.addonName, oldHash, 90*time.Second)

	ob := e.observe(t, o.Clusters(), e.addonName, newHash)
	e.setAgentImage(t, newImage)
	e.inFlight(t, e.stg, newHash)
	first.stop(t)
	second := e.controller(t)
	e.installed(t, o, e.addonName, newHash, 60*time.Second)
	ob.close()
	e.requireOrder(t, ob, e.addonName, e.dev, e.stg, e.prod)
	for _, c := range o.Clusters() {
		assert.Equal(t, []string{oldHash, newHash}, ob.desired[c], "%s: desired hashes in order", c)
		assert.Equal(t, []string{oldHash, newHash}, ob.applied[c], "%s: applied hashes in order", c)
	}
	assert.Zero(t, second.writes.count("/namespaces/"+e.dev+"/managedclusteraddons"), "the new controller rewrote dev, which was done")
}

// inFlight waits until cluster's add-on has the config whose hash is h
// desired and not applied yet.
func (e *env) inFlight(t testing.TB, cluster, h string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		s := e.addon(ct, cluster, e.addonName)
		assert.Equal(ct, h, s.desired, "desired")
		assert.NotEqual(ct, h, s.applied, "applied")
	}, 60*time.Second, poll, "%s in flight", cluster)
}

// TestOwnership runs the simulated add-on manager and work agents with no
// delay on twelve clusters, so that the add-on manager (its ManifestApplied
// condition) and the controller (desiredConfig, lastAppliedConfig, its
// Configured and Progressing conditions) write the same
// ManagedClusterAddOns at the same time. Neither loses its fields: once a
// cluster has applied the new hash it never shows an older one again, and
// every add-on ends with the controller's Configured and Completed
// conditions, the add-on manager's ManifestApplied condition and
// lastAppliedConfig = desiredConfig.
func TestOwnership(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := e.seed(t, testhub.SeedOptions{PerEnvironment: 4, Strategy: testhub.Strategy("1s", "30s", 0)})
	ctl := e.controller(t)
	agents := e.agents(t, 0, nil)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, e.addonName, oldHash, 90*time.Second)
	ob := e.observe(t, o.Clusters(), e.addonName, newHash)
	e.setAgentImage(t, newImage)
	e.installed(t, o, e.addonName, newHash, 90*time.Second)
	ob.close()
	for _, c := range o.Clusters() {
		assert.Equal(t, []string{oldHash, newHash}, ob.applied[c], "%s: applied hashes went back", c)
		s := e.addon(t, c, e.addonName)
		require.NotNil(t, s.configured, c)
		assert.Equal(t, "ConfigurationsConfigured", s.configured.Reason, c)
		require.NotNil(t, s.progressing, c)
		assert.Equal(t, addonv1beta1.ProgressingReasonCompleted, s.progressing.Reason, c)
		require.NotNil(t, s.manifestApplied, c)
		assert.Equal(t, metav1.ConditionTrue, s.manifestApplied.Status, c)
	}
	t.Logf("conflicts met and retried: controller %d, agents %d", ctl.writes.conflicts(), agents.writes.conflicts())
}

// TestStaleWriteConflicts shows the mechanism TestOwnership relies on: a
// status write computed from a stale read is refused, not applied over the
// add-on manager's newer data.
func TestStaleWriteConflicts(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "30s")
	ctl := e.controller(t)
	ag := e.agents(t, 0, nil)
	e.installed(t, o, e.addonName, specHash(t, testhub.Image), 60*time.Second)
	ag.stop(t) // from here on the test plays both writers
	ctl.stop(t)
	ctx := context.Background()
	stale := e.rawAddon(t, e.dev)
	fresh := stale.DeepCopy()
	meta.SetStatusCondition(&fresh.Status.Conditions, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied,
		Status: metav1.ConditionFalse, Reason: "AddonManifestAppliedFailed", Message: "add-on manager wrote this"})
	require.NoError(t, e.c.Status().Update(ctx, fresh))
	next := stale.DeepCopy()
	next.Status.ConfigReferences[0].DesiredConfig.SpecHash = "controller-wrote-this"
	err := e.c.Status().Patch(ctx, next, client.MergeFromWithOptions(stale, client.MergeFromWithOptimisticLock{}))
	require.Error(t, err)
	got := e.rawAddon(t, e.dev)
	c := meta.FindStatusCondition(got.Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)
	require.NotNil(t, c)
	assert.Equal(t, "add-on manager wrote this", c.Message)
	assert.NotEqual(t, "controller-wrote-this", got.Status.ConfigReferences[0].DesiredConfig.SpecHash)
}
