package e2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"open-cluster-management.io/addon-framework/pkg/addonmanager"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/seed"
)

// configMapAddon is an add-on for addon-framework's manager whose agent is
// one ConfigMap: it is rendered as soon as the add-on is registered, with
// no config.
type configMapAddon struct{ name string }

func (a configMapAddon) GetAgentAddonOptions() agent.AgentAddonOptions {
	return agent.AgentAddonOptions{AddonName: a.name}
}

func (a configMapAddon) Manifests(*clusterv1.ManagedCluster, *addonv1alpha1.ManagedClusterAddOn) ([]runtime.Object, error) {
	return []runtime.Object{&corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: a.name + "-agent"},
	}}, nil
}

// addonManagers starts one addon-framework v1.2.0 add-on manager for the
// seed's add-on (proxyAddon) and for each of names (configMapAddon): it
// renders their works, controlled by their ManagedClusterAddOns, as an
// add-on's own manager does on a real hub.
func (e *env) addonManagers(t testing.TB, names ...string) {
	t.Helper()
	cfg := rest.CopyConfig(e.hub.Config)
	cfg.UserAgent = "addon-framework-manager"
	mgr, err := addonmanager.New(cfg)
	require.NoError(t, err)
	require.NoError(t, mgr.AddAgent(&proxyAddon{c: e.c, name: e.addonName, replicas: 1, staleRenders: map[string]int{}}))
	for _, n := range names {
		require.NoError(t, mgr.AddAgent(configMapAddon{name: n}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	require.NoError(t, mgr.Start(ctx))
}

// gcAddon creates a copy of the seed's ClusterManagementAddOn named name,
// with that lifecycle annotation, Manual when manual (else installed on
// the seed's Placement), and returns it as stored.
func (e *env) gcAddon(t testing.TB, name, lifecycle string, manual bool) *addonv1alpha1.ClusterManagementAddOn {
	t.Helper()
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	cma.Name = name
	cma.Annotations[hubclient.LifecycleAnnotation] = lifecycle
	if manual {
		cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
	}
	alpha, err := testhub.AddonV1alpha1(cma)
	require.NoError(t, err)
	require.NoError(t, e.c.Create(context.Background(), alpha))
	return alpha
}

// byHand creates the add-on name on each of clusters as a person does,
// with no owner, and returns their resourceVersions by cluster.
func (e *env) byHand(t testing.TB, name string, clusters ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range clusters {
		m := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: name}}
		require.NoError(t, e.c.Create(context.Background(), m))
		out[c] = m.ResourceVersion
	}
	return out
}

// addonObjects lists the ManagedClusterAddOns called name and the works of
// that add-on (by their addon-name label), each by cluster.
func (e *env) addonObjects(t tb, name string) (map[string]addonv1alpha1.ManagedClusterAddOn, map[string]workv1.ManifestWork) {
	t.Helper()
	ctx := context.Background()
	var ml addonv1alpha1.ManagedClusterAddOnList
	require.NoError(t, e.c.List(ctx, &ml))
	mcas := map[string]addonv1alpha1.ManagedClusterAddOn{}
	for _, m := range ml.Items {
		if m.Name == name {
			mcas[m.Namespace] = m
		}
	}
	var wl workv1.ManifestWorkList
	require.NoError(t, e.c.List(ctx, &wl, client.MatchingLabels{addonv1alpha1.AddonLabelKey: name}))
	works := map[string]workv1.ManifestWork{}
	for _, w := range wl.Items {
		works[w.Namespace] = w
	}
	return mcas, works
}

// cmaExists tells whether the ClusterManagementAddOn name exists, and
// returns it.
func (e *env) cmaExists(t tb, name string) (*addonv1alpha1.ClusterManagementAddOn, bool) {
	t.Helper()
	var cma addonv1alpha1.ClusterManagementAddOn
	err := e.c.Get(context.Background(), types.NamespacedName{Name: name}, &cma)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(t, err)
	return &cma, true
}

// controlledBy tells whether o's controller is the object with uid.
func controlledBy(o metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOf(o)
	return ref != nil && ref.UID == uid
}

// deployed waits until the add-on name has an add-on on each of clusters
// (others may have one too),
// controlled by its ClusterManagementAddOn, and each add-on a work rendered
// by its manager, controlled by the add-on (addon-framework sets
// blockOwnerDeletion, so a foreground deletion waits for the works too).
func (e *env) deployed(t testing.TB, name string, clusters []string) {
	t.Helper()
	cma, ok := e.cmaExists(t, name)
	require.True(t, ok, "no ClusterManagementAddOn %s", name)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		mcas, works := e.addonObjects(ct, name)
		for _, c := range clusters {
			m, ok := mcas[c]
			require.True(ct, ok && controlledBy(&m, cma.UID), "%s: add-on %t, owners %v", c, ok, m.OwnerReferences)
			w, ok := works[c]
			require.True(ct, ok && controlledBy(&w, m.UID), "%s: work %t, owners %v", c, ok, w.OwnerReferences)
			ref := metav1.GetControllerOf(&w)
			require.True(ct, ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion, "%s: the work's owner reference does not block its owner's deletion", c)
		}
	}, 60*time.Second, poll, "%s deployed", name)
}

// deleteAddon deletes the ClusterManagementAddOn name with the propagation
// policy p (nil: the API server's default for it, background).
func (e *env) deleteAddon(t testing.TB, name string, p *metav1.DeletionPropagation) {
	t.Helper()
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: name}}
	var opts []client.DeleteOption
	if p != nil {
		opts = append(opts, client.PropagationPolicy(*p))
	}
	require.NoError(t, e.c.Delete(context.Background(), cma, opts...))
}

// removed waits until the ClusterManagementAddOn name, its add-ons and
// their works are gone, but for the add-ons of the clusters keep. Under
// foreground deletion (foreground true), the ClusterManagementAddOn must be
// the last to go: whenever it is found gone, nothing of it is left.
func (e *env) removed(t testing.TB, name string, foreground bool, keep ...string) {
	t.Helper()
	var early []string // what was left whenever the ClusterManagementAddOn was found gone under foreground deletion
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		_, exists := e.cmaExists(ct, name)
		mcas, works := e.addonObjects(ct, name)
		for _, c := range keep {
			delete(mcas, c)
		}
		if foreground && !exists && len(mcas)+len(works) > 0 {
			early = append(early, fmt.Sprintf("%d add-ons, %d works", len(mcas), len(works)))
		}
		assert.False(ct, exists, "the ClusterManagementAddOn is there")
		assert.Empty(ct, mcas, "add-ons")
		assert.Empty(ct, works, "works")
	}, 60*time.Second, poll, "%s removed", name)
	require.Empty(t, early, "foreground deletion: the ClusterManagementAddOn went before its add-ons or works")
}

// TestGarbageCollection: on a hub whose garbage collector runs
// (kube-controller-manager, testhub.ForTestWithGC), deleting a
// ClusterManagementAddOn the controller takes removes its
// ManagedClusterAddOns, and the garbage collector removes their
// ManifestWorks (rendered by addon-framework v1.2.0's add-on manager,
// controlled by the add-on, as on a real hub):
//
//   - the seed's add-on, installed by the controller, deleted in the
//     background (the default): its add-ons and works go after it;
//   - a copy on the same Placement, deleted in the foreground: the
//     ClusterManagementAddOn goes last, after every add-on and work;
//   - OCM issue 1156's symptom, the add-ons left behind: add-ons made by
//     hand (a Manual install strategy), before the controller took their
//     ClusterManagementAddOn. OCM's addonowner controller would adopt them
//     for an add-on OCM takes, and stands down for one it does not. The
//     controller adopts them once it takes the add-on (and only then:
//     addon-framework, which waits for that owner, then deploys them), and
//     they go with it. One that another object controls is not adopted,
//     and stays;
//   - a copy deleted with the orphan policy: its add-ons and works stay,
//     with no owner reference to it, and the controller deletes nothing;
//   - an add-on the controller does not take: its add-on made by hand is
//     never adopted or written, and stays when its ClusterManagementAddOn
//     goes.
func TestGarbageCollection(t *testing.T) {
	t.Parallel()
	// A hub of its own: the garbage collector acts on the whole hub.
	h, c := testhub.ForTestWithGC(t)
	e := &env{hub: h, c: c, names: seedNames()}
	o := seedHub(t, e, "30s")
	clusters := o.Clusters()
	const (
		foreground = "gc-foreground"
		orphan     = "gc-orphan"
		manual     = "gc-manual" // taken once the controller is running
		other      = "gc-other"  // never taken
		nobody     = "someone-else"
	)
	e.gcAddon(t, foreground, testhub.Lifecycle, false)
	e.gcAddon(t, orphan, testhub.Lifecycle, false)
	e.gcAddon(t, manual, nobody, true)
	e.gcAddon(t, other, nobody, true)
	e.byHand(t, manual, "dev-cluster", "stg-cluster")
	// prod-cluster's gc-manual is another controller's: it controls it.
	installer := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod-cluster", Name: "installer"}}
	require.NoError(t, e.c.Create(context.Background(), installer))
	installed := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "prod-cluster", Name: manual,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: installer.Name, UID: installer.UID, Controller: ptr.To(true)}}}}
	require.NoError(t, e.c.Create(context.Background(), installed))
	otherVersions := e.byHand(t, other, "dev-cluster")

	ctl := e.controller(t)
	e.workAgents(t, applyTime, nil)
	e.addonManagers(t, foreground, orphan, manual, other)
	e.installed(t, o, addonName, specHash(t, testhub.Image), 90*time.Second)
	for _, name := range []string{addonName, foreground, orphan} {
		e.deployed(t, name, clusters)
	}
	// Not taken (yet): not adopted, so addon-framework does not deploy them.
	for _, name := range []string{manual, other} {
		mcas, works := e.addonObjects(t, name)
		for _, m := range mcas {
			for _, ref := range m.OwnerReferences {
				assert.NotEqual(t, "ClusterManagementAddOn", ref.Kind, "%s/%s was adopted before it was taken", m.Namespace, name)
			}
		}
		assert.Empty(t, works, "%s was deployed", name)
	}

	// The controller takes gc-manual: it adopts the add-ons made by hand.
	var cma addonv1alpha1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: manual}, &cma))
	cma.Annotations[hubclient.LifecycleAnnotation] = testhub.Lifecycle
	require.NoError(t, e.c.Update(context.Background(), &cma))
	e.deployed(t, manual, []string{"dev-cluster", "stg-cluster"})

	start := time.Now()
	e.deleteAddon(t, addonName, nil)
	e.removed(t, addonName, false)
	t.Logf("background: %s's add-ons and works removed in %s", addonName, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	e.deleteAddon(t, foreground, ptr.To(metav1.DeletePropagationForeground))
	e.removed(t, foreground, true)
	t.Logf("foreground: %s removed, after its add-ons and works, in %s", foreground, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	e.deleteAddon(t, manual, nil)
	e.removed(t, manual, false, "prod-cluster")
	t.Logf("adopted add-ons made by hand (OCM issue 1156's symptom): %s removed in %s", manual, time.Since(start).Round(time.Millisecond))
	mcas, works := e.addonObjects(t, manual)
	assert.Equal(t, installed.OwnerReferences, mcas["prod-cluster"].OwnerReferences, "another controller's add-on was adopted")
	assert.Empty(t, works, "another controller's add-on was deployed")

	orphanCMA, _ := e.cmaExists(t, orphan)
	orphanWrites := ctl.writes.count("/managedclusteraddons/" + orphan)
	e.deleteAddon(t, orphan, ptr.To(metav1.DeletePropagationOrphan))
	e.deleteAddon(t, other, nil)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		_, exists := e.cmaExists(ct, orphan)
		mcas, _ := e.addonObjects(ct, orphan)
		for _, m := range mcas {
			for _, ref := range m.OwnerReferences {
				assert.NotEqual(ct, orphanCMA.UID, ref.UID, "%s: still owned", m.Namespace)
			}
		}
		assert.False(ct, exists, "the ClusterManagementAddOn is there")
	}, 60*time.Second, poll, "orphaned add-ons released")
	_, exists := e.cmaExists(t, other)
	require.False(t, exists)
	quiet(t, ctl, 2*time.Second)
	mcas, works = e.addonObjects(t, orphan)
	assert.Len(t, mcas, len(clusters), "orphan deletion: an add-on was deleted")
	assert.Len(t, works, len(clusters), "orphan deletion: a work was deleted")
	mcas, _ = e.addonObjects(t, other)
	require.Len(t, mcas, 1, "the add-on of an add-on not taken was deleted")
	assert.Equal(t, otherVersions["dev-cluster"], mcas["dev-cluster"].ResourceVersion, "the add-on of an add-on not taken was written")
	assert.Zero(t, ctl.writes.count("/"+other), "the controller wrote %s", other)
	assert.Equal(t, orphanWrites, ctl.writes.count("/managedclusteraddons/"+orphan), "the controller wrote %s's add-ons after the orphan deletion", orphan)
}
