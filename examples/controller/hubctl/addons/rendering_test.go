package addons

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// settled is the seed's add-on on cluster once the config at spec hash h
// has rolled out: handed and applied, Progressing Completed two hours
// before hubtest.Start.
func settled(cluster, h string) *addonv1beta1.ManagedClusterAddOn {
	m := hubtest.Handed(cluster, h)
	done := metav1.NewTime(hubtest.Start.Add(-2 * time.Hour))
	m.Status.Conditions = []metav1.Condition{
		{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
			Reason: addonv1beta1.ProgressingReasonCompleted, Message: "completed with no errors.", LastTransitionTime: done},
		{Type: addonv1beta1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue,
			Reason: addon.ReasonConfigured, Message: "Configurations configured", LastTransitionTime: done},
		{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue,
			Reason: "AddonManifestApplied", Message: "manifests of addon are applied successfully", LastTransitionTime: done},
	}
	return m
}

// heldBack is m with the work gate's record that it holds a new
// rendering of its cluster's work, as readyWork has it (of spec hash h).
func heldBack(t *testing.T, m *addonv1beta1.ManagedClusterAddOn, h string) *addonv1beta1.ManagedClusterAddOn {
	t.Helper()
	w := readyWork(t, m.Namespace, h)
	hold, _ := hubplan.WithHeld(nil, hubplan.HeldWrite{Work: w.Name, Content: hubplan.WorkContent(w),
		Reason: hubplan.HoldRenderingHeld, Key: "k", Why: "a new rendering of unchanged configs"}, hubtest.Start.Add(-time.Minute), nil)
	v, err := hold.Annotation()
	require.NoError(t, err)
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[hubplan.HoldAnnotation] = v
	return m
}

// readyWork is the add-on's work on cluster, rendered for the config at
// spec hash h, Applied and Available at its generation.
func readyWork(t *testing.T, cluster, h string) *workv1.ManifestWork {
	t.Helper()
	w := hubtest.AgentWork(t, hubtest.ImageV1, h)
	w.TypeMeta = metav1.TypeMeta{}
	w.Namespace = cluster
	w.Status.Conditions = []metav1.Condition{
		{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete", ObservedGeneration: w.Generation},
		{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, Reason: "ResourcesAvailable", ObservedGeneration: w.Generation},
	}
	return w
}

// TestAddonReconcileOpensRendering: the seed's config rollout is long
// done and the gate holds prod's work (new content under unchanged
// configs). One reconcile opens a rendering revision on the
// ClusterManagementAddOn and rolls it out ProgressivePerGroup: dev,
// whose work the gate does not hold, is released and done at once; stg
// and prod wait for dev's soak, unreleased. The install progressions are
// written in the same reconcile, with no conflict with the revision's own
// write. Once the status has caught up, a reconcile at the same time
// writes nothing.
func TestAddonReconcileOpensRendering(t *testing.T) {
	t.Parallel()
	cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
	h := hubtest.SpecHashOf(t, cfg)
	rev := hubplan.NewRenderingRevision(hubtest.Start)
	for _, tc := range []struct {
		name    string
		version string
		rollout *v1alpha1.AddOnRollout
	}{
		{name: "v1alpha1", version: hubclient.V1alpha1},
		{name: "v1beta1", version: hubclient.V1beta1},
		{name: "v1beta1 with an AddOnRollout", version: hubclient.V1beta1, rollout: hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			objs := hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfg}, hubtest.SeedPlacement(t), []client.Object{
				settled("dev-cluster", h), settled("stg-cluster", h), heldBack(t, settled("prod-cluster", h), h),
				readyWork(t, "dev-cluster", h), readyWork(t, "stg-cluster", h), readyWork(t, "prod-cluster", h)})
			if tc.rollout != nil {
				objs = append(objs, tc.rollout)
			}
			hub := hubtest.NewAddonHub(t, tc.version, nil, objs...)
			r := newAddonReconciler(hub, clockfake.New(hubtest.Start), nil)
			_, err := reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err, "the reconcile met a conflict")
			// The install progressions are written in the same reconcile
			// as the revision, on the resourceVersion its write returned.
			ip, _ := hubtest.ProgressionOf(t, hub.CMA(hubtest.SeedAddonName), hubtest.SeedRef)
			assert.NotEmpty(t, ip.Conditions, "the install progression was not written")

			got, ok := hubplan.ReadRenderingRevision(hub.CMA(hubtest.SeedAddonName))
			require.True(t, ok, "no rendering revision opened: annotations %v", hub.CMA(hubtest.SeedAddonName).Annotations)
			assert.Equal(t, rev.Revision, got.Revision)
			assert.True(t, rev.Since.Equal(&got.Since), "opened at %s, want %s", got.Since, rev.Since)
			dev, ok := hubplan.ReadRelease(hub.Addon("dev-cluster", hubtest.SeedAddonName))
			require.True(t, ok, "dev was not released")
			assert.Equal(t, rev.Revision, dev.Revision)
			assert.Equal(t, int64(3), dev.Generation, "the generation of dev's works at the release")
			devWork := readyWork(t, "dev-cluster", h)
			assert.Equal(t, map[string]string{devWork.Name: hubplan.WorkContent(devWork)}, dev.Works, "the content of dev's works at the release")
			assert.False(t, dev.Held)
			assert.True(t, dev.ReleasedAt.Time.Equal(hubtest.Start), "released at %s", dev.ReleasedAt)
			assert.Nil(t, dev.DoneAt, "dev, not held, was done at its release: its manager may not have tried it yet")
			// What the works say is published where the plan reads them, for
			// a viewer who may not read the works: dev's in its release's
			// write, prod's (held) on its own.
			for _, c := range []string{"dev-cluster", "prod-cluster"} {
				w := readyWork(t, c, h)
				published, ok := hubplan.PublishedWorks(hub.Addon(c, hubtest.SeedAddonName))
				require.True(t, ok, "%s's works not published", c)
				assert.Equal(t, hubplan.Works{Generation: w.Generation, Ready: true, Content: map[string]string{w.Name: hubplan.WorkContent(w)}}, published, c)
			}
			assert.NotContains(t, hub.Addon("stg-cluster", hubtest.SeedAddonName).Annotations, hubplan.WorksAnnotation, "no plan reads stg's works")
			for _, c := range []string{"stg-cluster", "prod-cluster"} {
				assert.NotContains(t, hub.Addon(c, hubtest.SeedAddonName).Annotations, hubplan.ReleaseAnnotation, "%s was released before dev soaked", c)
			}
			for _, c := range hubtest.SeedClusters {
				assert.Equal(t, h, hubtest.DesiredHash(t, hub.Addon(c, hubtest.SeedAddonName)), "%s's config changed", c)
			}

			// dev's release brings the add-on back: the AddOnRollout's
			// status then says dev is in flight, settling
			// (hubplan.DefaultReleaseSettle). Then nothing changes.
			_, err = reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			if tc.rollout != nil {
				var ar v1alpha1.AddOnRollout
				require.NoError(t, hub.Client.Get(context.Background(), types.NamespacedName{Name: hubtest.SeedAddonName}, &ar))
				require.Len(t, ar.Status.Placements, 1)
				ps := ar.Status.Placements[0]
				assert.Equal(t, hubplan.KindRendering, ps.Kind)
				assert.Equal(t, rev.Revision, ps.Rendering)
				assert.Equal(t, hubplan.CombinedRevision(addon.Revision(configsOf(t, hub, h)), rev.Revision), ps.Revision)
				require.Len(t, ps.Groups, 3)
				assert.Equal(t, int32(1), ps.Groups[0].Counts.Progressing, "dev, released, settles")
				assert.Equal(t, "Waiting", ps.Groups[2].Phase, "prod")
			}
			writes, rvs := hub.Writes.Load(), hub.ResourceVersions()
			_, err = reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, writes, hub.Writes.Load(), "a reconcile with nothing changed wrote")
			assert.Equal(t, rvs, hub.ResourceVersions())
			assert.NotContains(t, hub.Addon("prod-cluster", hubtest.SeedAddonName).Annotations, hubplan.ReleaseAnnotation)
		})
	}
}

// TestWorkMoved: a work's update passes when its generation changes (new
// content) or its readiness does, not when its status changes otherwise;
// creations and deletions pass.
func TestWorkMoved(t *testing.T) {
	t.Parallel()
	ready := readyWork(t, "dev-cluster", "h")
	bumped := ready.DeepCopy()
	bumped.Generation++
	unavailable := ready.DeepCopy()
	meta.SetStatusCondition(&unavailable.Status.Conditions, metav1.Condition{Type: workv1.WorkAvailable,
		Status: metav1.ConditionFalse, Reason: "ResourcesNotAvailable", ObservedGeneration: ready.Generation})
	chatty := ready.DeepCopy()
	chatty.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{ResourceMeta: workv1.ManifestResourceMeta{
		Group: "apps", Kind: "Deployment", Name: "cluster-proxy-proxy-agent"}}}
	meta.SetStatusCondition(&chatty.Status.Conditions, metav1.Condition{Type: workv1.WorkApplied,
		Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete", Message: "Apply manifest work complete", ObservedGeneration: ready.Generation})
	catchingUp := bumped.DeepCopy() // the agent has applied the new generation
	for i := range catchingUp.Status.Conditions {
		catchingUp.Status.Conditions[i].ObservedGeneration = catchingUp.Generation
	}
	p := workMoved()
	for _, tc := range []struct {
		name     string
		old, new client.Object
		want     bool
	}{
		{name: "new content", old: ready, new: bumped, want: true},
		{name: "no longer available", old: ready, new: unavailable, want: true},
		{name: "ready again at the new generation", old: bumped, new: catchingUp, want: true},
		{name: "status changed, still ready", old: ready, new: chatty, want: false},
		{name: "nothing changed", old: ready, new: ready.DeepCopy(), want: false},
		{name: "not works", old: &clusterv1beta1.Placement{}, new: &clusterv1beta1.Placement{}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, p.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}))
		})
	}
	t.Run("create and delete", func(t *testing.T) {
		t.Parallel()
		assert.True(t, p.Create(event.CreateEvent{Object: ready}))
		assert.True(t, p.Delete(event.DeleteEvent{Object: ready}))
	})
}

// TestCmaOfWork: a work is mapped to the ClusterManagementAddOn its
// addon-name label names; a work of no add-on to none.
func TestCmaOfWork(t *testing.T) {
	t.Parallel()
	w := readyWork(t, "prod-cluster", "h")
	for _, tc := range []struct {
		name string
		work *workv1.ManifestWork
		want []reconcile.Request
	}{
		{name: "an add-on's work", work: w, want: []reconcile.Request{{NamespacedName: types.NamespacedName{Name: hubtest.SeedAddonName}}}},
		{name: "a hosted add-on's work", work: func() *workv1.ManifestWork {
			h := w.DeepCopy()
			h.Namespace = "hosting-cluster"
			h.Labels[addonv1beta1.AddonNamespaceLabelKey] = "prod-cluster"
			return h
		}(), want: []reconcile.Request{{NamespacedName: types.NamespacedName{Name: hubtest.SeedAddonName}}}},
		{name: "a work of no add-on", work: hubtest.Unlabelled(w), want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, cmaOfWork(context.Background(), tc.work))
		})
	}
}

// configsOf is the seed placement's desired configs on hub, the config
// at spec hash h.
func configsOf(t *testing.T, hub *hubtest.AddonHub, h string) []addon.Config {
	t.Helper()
	configs, err := addon.PlacementConfigs(hub.CMA(hubtest.SeedAddonName), hubtest.SeedRef, func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
		return h, nil
	})
	require.NoError(t, err)
	return configs
}
