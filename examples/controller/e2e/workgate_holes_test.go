package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	simulated "github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// TestWorkGateRecreate: while a config rollout is halted at stg (stg fails
// to apply the new image B), prod's work and lab's are deleted, as an
// operator cleaning up does; lab is a fourth group after prod, its add-on
// in hosted mode (its work in a hosting cluster's namespace, labelled
// addon-namespace). addon-framework v1.2.0's manager, with an add-on that
// reads its config by name, creates both again at once from the newest
// config, under their add-ons' older hash: the gate holds the creates
// (ConfigMovedOn), so the works stay absent, and the deleter, the add-ons'
// records, the AddOnRollout's status and rolloutctl all say which works
// are missing and why. Once stg recovers, prod's and lab's works come
// back, each only once the rollout hands its cluster B, with B; then a
// new dev cluster joins and is installed at once (a first install, of
// handed content, lands). Every version of every work carries the image
// of a spec its cluster was handed before.
func TestWorkGateRecreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	o := seedHub(t, e, "8s")
	seen := e.recordVersions(t, addonName)
	e.addLab(t, "hosting-cluster")
	clusters := append(o.Clusters(), "lab-cluster")
	hashA, hashB := specHash(t, testhub.Image), specHash(t, newImage)
	gate := e.gatedController(t)
	var stgFails atomic.Bool
	stgFails.Store(true)
	e.workAgents(t, applyTime, func(cluster, target string) bool {
		return cluster == "stg-cluster" && target == hashB && stgFails.Load()
	})
	e.hostAddOn(t, "lab-cluster", "hosting-cluster")
	fw := e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 1, hosted: true})
	require.NoError(t, e.c.Create(context.Background(), &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName}}))
	e.installedOn(t, clusters, addonName, hashA, 90*time.Second)
	labWorks := e.rawWorks(t, "lab-cluster")
	require.Len(t, labWorks, 1)
	for _, w := range labWorks {
		assert.Equal(t, "hosting-cluster", w.Namespace, "lab's add-on is hosted")
	}

	e.setAgentImage(t, newImage)
	waitFor(t, 60*time.Second, "stg-cluster times out: the rollout halts at stg", func(ct *assert.CollectT) {
		ip, _ := e.progression(ct, e.addonName)
		c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		require.NotNil(ct, c)
		assert.Contains(ct, c.Message, "0 failed 1 timeout.")
	})

	// prod's and lab's works are deleted.
	var deleted []string
	for _, c := range []string{"prod-cluster", "lab-cluster"} {
		for _, w := range e.rawWorks(t, c) {
			warned := e.deleteWork(t, w)
			require.Len(t, warned, 1, "the deleter is warned what happens to the work created in its place")
			assert.Contains(t, warned[0], fmt.Sprintf("work %s of add-on %s on cluster %s deleted: its add-on's manager creates it again, "+
				"and the work gate holds it until the rollout reaches the cluster: config ", w.Name, addonName, c))
			assert.Contains(t, warned[0], "has moved on to spec "+hashB[:12])
			deleted = append(deleted, w.Name)
		}
	}
	// addon-framework creates them again; the gate holds the creates.
	waitFor(t, 30*time.Second, "the gate holds prod's and lab's new works, and says so", func(ct *assert.CollectT) {
		for _, c := range []string{"prod-cluster", "lab-cluster"} {
			h, ok := e.hold(ct, c)
			require.True(ct, ok, "%s: no hold recorded", c)
			assert.Equal(ct, workgate.ConfigMovedOn.String(), h.Reason, c)
			assert.NotEmpty(ct, h.Missing(map[string]string{}), "%s: the hold names no missing work: %+v", c, h)
		}
		st := e.rolloutStatus(ct)
		for _, g := range []string{"prod", "lab"} {
			gs := groupStatus(st, g)
			require.NotNil(ct, gs, "no status of group %s", g)
			assert.Equal(ct, int32(1), gs.Counts.Missing, "group %s: %+v", g, gs.Counts)
			require.Len(ct, gs.Holds, 1, "group %s", g)
			assert.Len(ct, gs.Holds[0].Missing, 1, "group %s: %+v", g, gs.Holds[0])
			assert.NotNil(ct, gs.HeldSince, "group %s", g)
		}
	})
	time.Sleep(2 * soak)
	for _, c := range []string{"prod-cluster", "lab-cluster"} {
		assert.Empty(t, e.rawWorks(t, c), "%s's work came back while the rollout is halted at stg", c)
		assert.Equal(t, hashA, e.addon(t, c, addonName).desired, "%s was handed B", c)
		assert.NotEmpty(t, e.addonEvents(t, c, gatehook.ReasonWorkDeleted), "%s: no %s event", c, gatehook.ReasonWorkDeleted)
		assert.NotEmpty(t, e.addonEvents(t, c, gatehook.ReasonWorkHeld), "%s: no %s event", c, gatehook.ReasonWorkHeld)
	}
	assert.Positive(t, refusedWorkWrites(fw.writes)["prod-cluster"], "addon-framework's creates of prod's work were never refused")
	assert.Positive(t, refusedWorkWrites(fw.writes)["hosting-cluster"], "addon-framework's creates of lab's work were never refused")
	assert.Positive(t, gate.refusals(t)[addonName+" "+workgate.ConfigMovedOn.String()])
	text := e.statusText(t)
	for _, part := range []string{"prod-cluster: work addon-cluster-proxy-deploy-0 missing", "lab-cluster: work", "missing, held since", "ConfigMovedOn"} {
		assert.Contains(t, text, part, "kubectl rolloutkit status")
	}
	t.Logf("kubectl rolloutkit status while prod's and lab's works are held from being created:\n%s", text)

	// stg recovers: B goes on, to prod, then lab; their works come back.
	stgFails.Store(false)
	e.installedOn(t, clusters, addonName, hashB, 120*time.Second)
	for _, c := range []string{"prod-cluster", "lab-cluster"} {
		ws := e.rawWorks(t, c)
		require.Len(t, ws, 1, c)
		_, held := e.hold(t, c)
		assert.False(t, held, "%s: the hold is still recorded once its work landed", c)
	}
	// A first install: a new dev cluster is installed with B at once, its
	// work created with the configs handed to it.
	e.addCluster(t, "dev-cluster-2", "dev")
	e.installedOn(t, []string{"dev-cluster-2"}, addonName, hashB, 60*time.Second)
	require.Len(t, e.rawWorks(t, "dev-cluster-2"), 1, "the new cluster's work")

	seen.stop()
	seen.requireStagedDeleting(t, map[string]string{hashA: testhub.Image, hashB: newImage, "": testhub.Image}, []string{"prod-cluster", "lab-cluster"})
	for c, want := range map[string][]string{"prod-cluster": {testhub.Image, newImage}, "lab-cluster": {testhub.Image, newImage}} {
		assert.Equal(t, want, seen.images(c), "%s's work's images in order", c)
	}
	t.Logf("deleted %v; refusals by add-on and reason: %v", deleted, gate.refusals(t))
}

// statusText is what kubectl rolloutkit status prints of the add-on:
// rolloutctl, compiled, as a person runs it.
func (e *env) statusText(t *testing.T) string {
	t.Helper()
	kc, err := e.hub.KubeConfig()
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "hub.kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, kc, 0o600))
	out, code := rolloutctl(t, binary(t, "./cmd/rolloutctl", "rolloutctl"), kubeconfig, "status", e.addonName)
	require.Zero(t, code, "rolloutctl status: %s", out)
	return out
}

// TestWorkGateControllerDown: with the work gate installed and no
// replica answering, the rest of the hub goes on: a new work of an add-on
// the controller does not take is created, gets the work agent's
// finalizer and is applied, and goes away when deleted; a taken add-on's
// deleted work goes away; a label written on a taken add-on's work lands.
// Only a taken add-on's content change waits: addon-framework's renders
// of a new config are refused, and the works keep the old one. When the
// controller is back, the change rolls out dev, stg, prod, and prod's
// work, deleted during the outage, comes back with it, only then.
func TestWorkGateControllerDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	o := seedHub(t, e, "30s")
	hashA, hashB := specHash(t, testhub.Image), specHash(t, newImage)
	ctx := context.Background()
	gate := e.gatedController(t)
	e.workAgents(t, applyTime, nil)
	fw := e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 1})
	e.installed(t, o, addonName, hashA, 90*time.Second)
	for c, w := range e.rawWorks(t, "dev-cluster") {
		assert.Contains(t, w.Finalizers, simulated.WorkFinalizer, "%s: the work agent's finalizer", c)
	}

	gate.stop(t)
	stopped := time.Now()

	// Another add-on's new work: created, its finalizer added, applied.
	other := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "addon-other-deploy-0",
		Labels: map[string]string{addonv1alpha1.AddonLabelKey: "other"}},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{configMap(t, "other", "v1")}}}}
	require.NoError(t, e.c.Create(ctx, other), "another add-on's new work")
	waitFor(t, 30*time.Second, "another add-on's work gets its finalizer and is applied", func(ct *assert.CollectT) {
		var w workv1.ManifestWork
		require.NoError(ct, e.c.Get(ctx, client.ObjectKeyFromObject(other), &w))
		assert.Contains(ct, w.Finalizers, simulated.WorkFinalizer)
		assert.True(ct, meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkApplied), "not applied")
	})
	// ... and goes away when deleted.
	var cur workv1.ManifestWork
	require.NoError(t, e.c.Get(ctx, client.ObjectKeyFromObject(other), &cur))
	e.deleteWork(t, &cur)

	// A taken add-on's work: a label lands, a delete goes through.
	prod := e.rawWorks(t, "prod-cluster")["addon-"+addonName+"-deploy-0"]
	require.NotNil(t, prod)
	require.NoError(t, e.c.Patch(ctx, prod, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"proxy"}}}`))),
		"a label of a taken add-on's work")
	e.deleteWork(t, prod)

	// A taken add-on's content change waits.
	e.setAgentImage(t, newImage)
	dev := e.rawWorks(t, "dev-cluster")["addon-"+addonName+"-deploy-0"]
	require.NotNil(t, dev)
	edited := dev.DeepCopy()
	edited.Spec.Workload.Manifests = append(edited.Spec.Workload.Manifests, configMap(t, "extra", "v1"))
	err := e.c.Update(ctx, edited)
	require.Error(t, err, "a content change of a taken add-on's work landed without the gate")
	assert.Contains(t, err.Error(), fmt.Sprintf("failed calling webhook %q", gatehook.WorkGateWebhook))
	time.Sleep(3 * time.Second)
	works := e.works(t, addonName)
	for _, c := range []string{"dev-cluster", "stg-cluster"} {
		assert.Equal(t, []string{testhub.Image}, works[c].images, "%s's work changed while the gate was down", c)
	}
	assert.False(t, works["prod-cluster"].exists, "prod's work came back while the gate was down")
	refused := unanswered(fw.writes)
	t.Logf("while no replica answered (%s): addon-framework's writes refused for want of the gate, by namespace: %v",
		time.Since(stopped).Round(time.Millisecond), refused)
	assert.Positive(t, refused["dev-cluster"], "addon-framework's render of dev was not refused")
	assert.Positive(t, refused["prod-cluster"], "addon-framework's create of prod's work was not refused")
	waitFor(t, 10*time.Second, "dev's add-on reports the gate unavailable", func(ct *assert.CollectT) {
		s := e.addon(ct, "dev-cluster", addonName)
		require.NotNil(ct, s.manifestApplied)
		assert.Contains(ct, s.manifestApplied.Message, "failed calling webhook")
	})

	// Back: the change rolls out, prod's work with it.
	ob := e.observe(t, o.Clusters(), addonName, hashB)
	gate = e.restartGated(t, gate)
	e.installed(t, o, addonName, hashB, 90*time.Second)
	ob.close()
	e.requireOrder(t, ob, addonName, "dev-cluster", "stg-cluster", "prod-cluster")
	prodBack := e.works(t, addonName)["prod-cluster"]
	assert.Equal(t, []string{newImage}, prodBack.images)
	assert.Equal(t, hashB, prodBack.target)
	assert.Positive(t, gate.refusals(t)[addonName+" "+workgate.ConfigMovedOn.String()], "the gate held prod's create until prod was handed B")
}

// unanswered counts the writes of ManifestWorks the API server refused
// because it could not call the work gate, by namespace.
func unanswered(w *bodyWrites) map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for _, x := range w.all {
		parts := strings.Split(strings.Trim(x.path, "/"), "/")
		for i := range parts {
			if parts[i] == "manifestworks" && i >= 2 && parts[i-2] == "namespaces" && x.code >= 500 {
				out[parts[i-1]]++
			}
		}
	}
	return out
}

// configMap is a manifest of a ConfigMap name whose data says v.
func configMap(t testing.TB, name, v string) workv1.Manifest {
	t.Helper()
	raw, err := json.Marshal(&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"v": v}})
	require.NoError(t, err)
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
}
