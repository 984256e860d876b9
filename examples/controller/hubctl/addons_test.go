package hubctl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// The seed story's add-on and the namespace of its Placement.
const (
	seedAddonName = "cluster-proxy"
	seedNamespace = "open-cluster-management"
)

var proxyGR = addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}

var (
	seedRef       = addonv1beta1.PlacementRef{Namespace: seedNamespace, Name: "cluster-proxy-placement"}
	canaryRef     = addonv1beta1.PlacementRef{Namespace: seedNamespace, Name: "canary"}
	proxyGVK      = schema.GroupVersionKind{Group: proxyGR.Group, Version: "v1alpha1", Kind: "ManagedProxyConfiguration"}
	addonVersions = []string{hubclient.V1alpha1, hubclient.V1beta1}
)

// addonHub is an in-memory hub for the add-on reconcilers: a fake client
// with the status subresources and the name index the reconcilers need,
// a REST mapper that serves ManagedProxyConfigurations (cluster-scoped),
// and the add-on objects stored in one API version.
type addonHub struct {
	t       *testing.T
	version string
	api     hubclient.AddonAPI
	client  client.Client
	mapper  meta.RESTMapper
	// writes counts the writes sent to the hub, failed ones included.
	writes atomic.Int64
}

// writeHook is called before a write to the hub; verb is "create",
// "update", "patch", "delete", "status update" or "status patch".
type writeHook func(c client.Client, verb string, obj client.Object) error

// newAddonHub returns a hub holding objs, in which ClusterManagementAddOns
// and ManagedClusterAddOns are given in v1beta1 and stored in version.
// fail, when not nil, is called before every write with the hub's
// unintercepted client (to write as someone else would) and, when it
// returns an error, the write fails with it and changes nothing.
func newAddonHub(t *testing.T, version string, fail writeHook, objs ...client.Object) *addonHub {
	t.Helper()
	api, err := hubclient.NewAddonAPI(version)
	require.NoError(t, err)
	h := &addonHub{t: t, version: version, api: api}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{proxyGVK.GroupVersion()})
	mapper.AddSpecific(proxyGVK, proxyGVK.GroupVersion().WithResource(proxyGR.Resource),
		proxyGVK.GroupVersion().WithResource("managedproxyconfiguration"), meta.RESTScopeRoot)
	h.mapper = mapper
	// The fake client sets the resourceVersion of what it is given: give
	// it copies, since one test's objects may serve parallel subtests.
	stored := make([]client.Object, len(objs))
	for i, o := range objs {
		stored[i] = h.store(o.DeepCopyObject().(client.Object))
	}
	write := func(c client.Client, verb string, obj client.Object) error {
		h.writes.Add(1)
		if fail != nil {
			return fail(c, verb, obj)
		}
		return nil
	}
	h.client = hubtest.FakeHubBuilder(t, stored...).
		WithRESTMapper(mapper).
		WithStatusSubresource(api.NewMCA(), api.NewCMA(), &clusterv1beta1.Placement{}, &clusterv1beta1.PlacementDecision{},
			&v1alpha1.AddOnRollout{}, &v1alpha1.RolloutApproval{}).
		WithIndex(api.NewMCA(), hubclient.MCANameIndex, func(o client.Object) []string { return []string{o.GetName()} }).
		WithIndex(&v1alpha1.RolloutApproval{}, hubclient.ApprovalAddOnIndex, func(o client.Object) []string {
			return []string{o.(*v1alpha1.RolloutApproval).Spec.AddOn}
		}).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if err := write(c, "create", obj); err != nil {
					return err
				}
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if err := write(c, "update", obj); err != nil {
					return err
				}
				return c.Update(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if err := write(c, "patch", obj); err != nil {
					return err
				}
				return c.Patch(ctx, obj, patch, opts...)
			},
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				if err := write(c, "delete", obj); err != nil {
					return err
				}
				return c.Delete(ctx, obj, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				if err := write(c, sub+" update", obj); err != nil {
					return err
				}
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if err := write(c, sub+" patch", obj); err != nil {
					return err
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	return h
}

// store returns obj as the hub stores it: a v1beta1 add-on object in the
// hub's version, with v1alpha1's config names beside their hashes as OCM
// writes them; anything else as it is.
func (h *addonHub) store(obj client.Object) client.Object {
	h.t.Helper()
	if h.version != hubclient.V1alpha1 {
		return obj
	}
	switch o := obj.(type) {
	case *addonv1beta1.ClusterManagementAddOn:
		out := &addonv1alpha1.ClusterManagementAddOn{}
		require.NoError(h.t, addonv1beta1.Convert_v1beta1_ClusterManagementAddOn_To_v1alpha1_ClusterManagementAddOn(o.DeepCopy(), out, nil))
		return out
	case *addonv1beta1.ManagedClusterAddOn:
		out := &addonv1alpha1.ManagedClusterAddOn{}
		require.NoError(h.t, addonv1beta1.Convert_v1beta1_ManagedClusterAddOn_To_v1alpha1_ManagedClusterAddOn(o.DeepCopy(), out, nil))
		for i, r := range out.Status.ConfigReferences {
			if r.DesiredConfig != nil {
				out.Status.ConfigReferences[i].ConfigReferent = r.DesiredConfig.ConfigReferent
			}
		}
		return out
	}
	return obj
}

// addonReconciler returns an AddonReconciler of the hub as SetupWithManager
// would make it, without a manager: config kinds are mapped by the hub's
// mapper and never watched.
func (h *addonHub) addonReconciler(clk clock.PassiveClock, rec events.EventRecorder, lifecycles ...string) *AddonReconciler {
	return &AddonReconciler{Client: h.client, Clock: clk, Recorder: rec, Version: h.version, Lifecycles: lifecycles,
		api: h.api, phases: newPhaseLog(), rollouts: true,
		configs: newConfigWatches(h.client, h.mapper, func(schema.GroupVersionKind) error { return nil }, nil)}
}

// reconcileAddon runs one reconcile of the ClusterManagementAddOn name.
func reconcileAddon(r *AddonReconciler, name string) (ctrl.Result, error) {
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: name}})
}

// addon returns the v1beta1 form of the add-on name on cluster, nil when
// the hub has none.
func (h *addonHub) addon(cluster, name string) *addonv1beta1.ManagedClusterAddOn {
	h.t.Helper()
	obj := h.api.NewMCA()
	err := h.client.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(h.t, err)
	m, err := h.api.Snapshot().MCA(obj)
	require.NoError(h.t, err)
	return m
}

// addonClusters returns the clusters with an add-on called name, sorted.
func (h *addonHub) addonClusters(name string) []string {
	h.t.Helper()
	list := h.api.NewMCAList()
	require.NoError(h.t, h.client.List(context.Background(), list, client.MatchingFields{hubclient.MCANameIndex: name}))
	out := []string{}
	for _, m := range h.api.MCAs(list) {
		out = append(out, m.GetNamespace())
	}
	slices.Sort(out)
	return out
}

// cma returns the v1beta1 form of the ClusterManagementAddOn name.
func (h *addonHub) cma(name string) *addonv1beta1.ClusterManagementAddOn {
	h.t.Helper()
	obj := h.api.NewCMA()
	require.NoError(h.t, h.client.Get(context.Background(), types.NamespacedName{Name: name}, obj))
	c, err := h.api.Snapshot().CMA(obj)
	require.NoError(h.t, err)
	return c
}

// resourceVersions returns the resourceVersion of every add-on object of
// the hub, by kind, namespace and name.
func (h *addonHub) resourceVersions() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	for _, l := range []client.ObjectList{h.api.NewCMAList(), h.api.NewMCAList()} {
		require.NoError(h.t, h.client.List(context.Background(), l))
		objs := append(h.api.CMAs(l), h.api.MCAs(l)...)
		for _, o := range objs {
			out[strings.Join([]string{o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName()}, "/")] = o.GetResourceVersion()
		}
	}
	return out
}

// progressionOf returns the install progression of ref in cma's status.
func progressionOf(t *testing.T, cma *addonv1beta1.ClusterManagementAddOn, ref addonv1beta1.PlacementRef) (addonv1beta1.InstallProgression, *metav1.Condition) {
	t.Helper()
	for _, ip := range cma.Status.InstallProgressions {
		if ip.PlacementRef == ref {
			return ip, meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		}
	}
	require.Failf(t, "no install progression", "%s/%s in %+v", ref.Namespace, ref.Name, cma.Status.InstallProgressions)
	return addonv1beta1.InstallProgression{}, nil
}

// desiredHash returns the desiredConfig spec hash of the add-on's only
// config, "" when it has none.
func desiredHash(t *testing.T, m *addonv1beta1.ManagedClusterAddOn) string {
	t.Helper()
	require.NotNil(t, m)
	if len(m.Status.ConfigReferences) == 0 || m.Status.ConfigReferences[0].DesiredConfig == nil {
		return ""
	}
	require.Len(t, m.Status.ConfigReferences, 1)
	return m.Status.ConfigReferences[0].DesiredConfig.SpecHash
}

// configuredStatus returns the status of the add-on's Configured condition, ""
// when it has none.
func configuredStatus(m *addonv1beta1.ManagedClusterAddOn) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionConfigured); c != nil {
		return c.Status
	}
	return ""
}

// seedAddon returns the seed's ClusterManagementAddOn with the lifecycle
// annotation set to lifecycle (none when empty), changed by each of with.
func seedAddon(t *testing.T, lifecycle string, with ...func(*addonv1beta1.ClusterManagementAddOn)) *addonv1beta1.ClusterManagementAddOn {
	t.Helper()
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	cma.UID = "cluster-proxy-uid"
	delete(cma.Annotations, hubclient.LifecycleAnnotation)
	if lifecycle != "" {
		cma.Annotations[hubclient.LifecycleAnnotation] = lifecycle
	}
	for _, w := range with {
		w(cma)
	}
	return cma
}

// alsoPlacing appends an install-strategy placement rolled out all at once,
// configured with the ManagedProxyConfiguration config when it is not
// empty.
func alsoPlacing(ref addonv1beta1.PlacementRef, config string) func(*addonv1beta1.ClusterManagementAddOn) {
	return func(cma *addonv1beta1.ClusterManagementAddOn) {
		ps := addonv1beta1.PlacementStrategy{PlacementRef: ref, RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}}
		if config != "" {
			ps.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: proxyGR, ConfigReferent: addonv1beta1.ConfigReferent{Name: config}}}
		}
		cma.Spec.InstallStrategy.Placements = append(cma.Spec.InstallStrategy.Placements, ps)
	}
}

// seedPlacement returns the seed's Placement and its three
// PlacementDecisions (dev, stg, prod, one cluster each).
func seedPlacement(t *testing.T) []client.Object {
	t.Helper()
	p, err := seed.Placement()
	require.NoError(t, err)
	p.UID = "cluster-proxy-placement-uid"
	out := []client.Object{p}
	ds, err := seed.PlacementDecisions()
	require.NoError(t, err)
	for _, d := range ds {
		out = append(out, d)
	}
	return out
}

// placementWith returns a Placement ref and one PlacementDecision (group 0,
// unnamed) that selects clusters.
func placementWith(ref addonv1beta1.PlacementRef, clusters ...string) []client.Object {
	d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: ref.Name, clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	for _, c := range clusters {
		d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return []client.Object{hubtest.PlacementIn(ref.Namespace, ref.Name), d}
}

// proxyConfig returns the seed's ManagedProxyConfiguration named name, with
// both images at tag.
func proxyConfig(t *testing.T, name, tag string) *unstructured.Unstructured {
	t.Helper()
	u, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	u.SetName(name)
	for _, part := range []string{"proxyServer", "proxyAgent"} {
		require.NoError(t, unstructured.SetNestedField(u.Object, "quay.io/open-cluster-management/cluster-proxy:"+tag, "spec", part, "image"))
	}
	return u
}

func specHashOf(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	h, err := hash.Spec(u)
	require.NoError(t, err)
	return h
}

// freshAddon is the add-on name on cluster as the controller creates it,
// before anyone has written its status.
func freshAddon(cluster, name string) *addonv1beta1.ManagedClusterAddOn {
	return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
}

func freshAddons(name string, clusters ...string) []client.Object {
	out := make([]client.Object, len(clusters))
	for i, c := range clusters {
		out[i] = freshAddon(c, name)
	}
	return out
}

// hubObjects concatenates object lists.
func hubObjects(lists ...[]client.Object) []client.Object {
	return slices.Concat(lists...)
}

// seedClusters are the clusters of the seed's PlacementDecisions, in
// rollout order.
var seedClusters = []string{"dev-cluster", "stg-cluster", "prod-cluster"}

// TestAddonReconcileLifecycle: the controller takes a ClusterManagementAddOn
// only when its lifecycle annotation is one of the values it is given
// (rolloutkit when none), so that it never fights OCM's add-on manager
// (addon-manager, or no annotation) or addon-framework (self). One
// it does not take is not read into a plan: no add-on is created and
// nothing is written.
func TestAddonReconcileLifecycle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		annotation string // "" for none
		lifecycles []string
		taken      bool
	}{
		{name: "rolloutkit, by default", annotation: hubclient.DefaultLifecycle, taken: true},
		{name: "addon-manager: OCM's add-on manager's", annotation: "addon-manager"},
		{name: "self: the add-on's own", annotation: "self"},
		{name: "no annotation: OCM's add-on manager's", annotation: ""},
		{name: "no annotation, when the controller is given addon-manager", annotation: "", lifecycles: []string{"addon-manager"}, taken: true},
		{name: "self, when the controller is given addon-manager", annotation: "self", lifecycles: []string{"addon-manager"}},
		{name: "addon-manager, when the controller is given it", annotation: "addon-manager", lifecycles: []string{"addon-manager"}, taken: true},
		{name: "rolloutkit, when the controller is given only addon-manager", annotation: hubclient.DefaultLifecycle, lifecycles: []string{"addon-manager"}},
	} {
		for _, version := range addonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := newAddonHub(t, version, nil, hubObjects(
					[]client.Object{seedAddon(t, tc.annotation), proxyConfig(t, "cluster-proxy", "v1.0.0")}, seedPlacement(t))...)
				before := h.resourceVersions()
				rec := events.NewFakeRecorder(10)
				res, err := reconcileAddon(h.addonReconciler(clockfake.New(hubtest.Start), rec, tc.lifecycles...), seedAddonName)
				require.NoError(t, err)
				if !tc.taken {
					assert.Zero(t, res)
					assert.Empty(t, h.addonClusters(seedAddonName), "add-ons were created")
					assert.Zero(t, h.writes.Load(), "something was written")
					assert.Equal(t, before, h.resourceVersions())
					assert.Empty(t, h.cma(seedAddonName).Status.InstallProgressions)
					assert.Empty(t, rec.Events)
					return
				}
				assert.ElementsMatch(t, seedClusters, h.addonClusters(seedAddonName))
				_, cond := progressionOf(t, h.cma(seedAddonName), seedRef)
				require.NotNil(t, cond)
			})
		}
	}
}

// TestAddonReconcileInstall: an add-on is created on every cluster the
// placements select, controlled by its ClusterManagementAddOn, and deleted
// from a cluster no placement selects any more; with a Manual install
// strategy the controller installs and removes nothing.
func TestAddonReconcileInstall(t *testing.T) {
	t.Parallel()
	for _, version := range addonVersions {
		t.Run("placements/"+version, func(t *testing.T) {
			t.Parallel()
			h := newAddonHub(t, version, nil, hubObjects(
				[]client.Object{seedAddon(t, hubclient.DefaultLifecycle), proxyConfig(t, "cluster-proxy", "v1.0.0")},
				seedPlacement(t), freshAddons(seedAddonName, "dev-cluster", "gone-cluster"))...)
			_, err := reconcileAddon(h.addonReconciler(clockfake.New(hubtest.Start), nil), seedAddonName)
			require.NoError(t, err)
			assert.Equal(t, []string{"dev-cluster", "prod-cluster", "stg-cluster"}, h.addonClusters(seedAddonName))
			for _, c := range []string{"stg-cluster", "prod-cluster"} {
				owner := metav1.GetControllerOf(h.addon(c, seedAddonName))
				require.NotNil(t, owner, "%s: no controller owner reference", c)
				assert.Equal(t, metav1.OwnerReference{
					APIVersion: addonv1beta1.GroupName + "/" + version, Kind: "ClusterManagementAddOn",
					Name: seedAddonName, UID: "cluster-proxy-uid",
					Controller: hubtest.PtrTo(true), BlockOwnerDeletion: hubtest.PtrTo(true),
				}, *owner, c)
			}
		})
		t.Run("manual/"+version, func(t *testing.T) {
			t.Parallel()
			manual := func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
			}
			cfg := proxyConfig(t, "cluster-proxy", "v1.0.0")
			h := newAddonHub(t, version, nil, hubObjects(
				[]client.Object{seedAddon(t, hubclient.DefaultLifecycle, manual), cfg},
				seedPlacement(t), freshAddons(seedAddonName, "gone-cluster"))...)
			res, err := reconcileAddon(h.addonReconciler(clockfake.New(hubtest.Start), nil), seedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.Equal(t, []string{"gone-cluster"}, h.addonClusters(seedAddonName), "nothing installed or removed")
			// The add-on made by hand is configured with the default
			// config, at once, as OCM's add-on manager's defaults node
			// does; there is no install progression.
			gone := h.addon("gone-cluster", seedAddonName)
			assert.Equal(t, specHashOf(t, cfg), desiredHash(t, gone))
			assert.Equal(t, int64(2), h.writes.Load(), "two writes: the add-on's adoption (owner.go) and its status")
			assert.Empty(t, h.cma(seedAddonName).Status.InstallProgressions)
		})
	}
}

// TestAddonReconcileSeedRollout: the seed's story with its add-ons freshly
// created. ProgressivePerGroup starts dev alone: dev is given the config's
// spec hash and Configured True, stg and prod are told they are not
// configured yet, and the install progression says 1/3. Nothing waits on
// the clock (dev has not started), so the reconcile asks for no requeue:
// dev's own write brings it back. The next reconcile, with nothing changed,
// writes nothing and comes back at dev's progress deadline (15m).
func TestAddonReconcileSeedRollout(t *testing.T) {
	t.Parallel()
	for _, version := range addonVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			cfg := proxyConfig(t, "cluster-proxy", "v1.0.0")
			h := newAddonHub(t, version, nil, hubObjects(
				[]client.Object{seedAddon(t, hubclient.DefaultLifecycle), cfg},
				seedPlacement(t), freshAddons(seedAddonName, seedClusters...))...)
			rec := events.NewFakeRecorder(10)
			r := h.addonReconciler(clockfake.New(hubtest.Start), rec)
			res, err := reconcileAddon(r, seedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res.RequeueAfter)

			dev := h.addon("dev-cluster", seedAddonName)
			assert.Equal(t, specHashOf(t, cfg), desiredHash(t, dev))
			assert.Equal(t, metav1.ConditionTrue, configuredStatus(dev))
			assert.Nil(t, dev.Status.ConfigReferences[0].LastAppliedConfig, "the agent's lastAppliedConfig was invented")
			for _, c := range []string{"stg-cluster", "prod-cluster"} {
				m := h.addon(c, seedAddonName)
				assert.Empty(t, desiredHash(t, m), c)
				assert.Equal(t, metav1.ConditionFalse, configuredStatus(m), c)
			}
			if version == hubclient.V1alpha1 {
				var raw addonv1alpha1.ManagedClusterAddOn
				require.NoError(t, h.client.Get(context.Background(), types.NamespacedName{Namespace: "dev-cluster", Name: seedAddonName}, &raw))
				assert.Equal(t, "cluster-proxy", raw.Status.ConfigReferences[0].Name, "v1alpha1 names the config beside its hashes")
			}

			ip, cond := progressionOf(t, h.cma(seedAddonName), seedRef)
			require.NotNil(t, cond)
			assert.Equal(t, metav1.ConditionTrue, cond.Status)
			assert.Equal(t, "selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout.", cond.Message)
			require.Len(t, ip.ConfigReferences, 1)
			assert.Equal(t, specHashOf(t, cfg), ip.ConfigReferences[0].DesiredConfig.SpecHash)
			assert.Empty(t, rec.Events)

			before, rvs := h.writes.Load(), h.resourceVersions()
			res, err = reconcileAddon(r, seedAddonName)
			require.NoError(t, err)
			assert.Equal(t, 15*time.Minute, res.RequeueAfter, "dev's progress deadline")
			assert.Equal(t, before, h.writes.Load(), "a reconcile with nothing changed wrote")
			assert.Equal(t, rvs, h.resourceVersions())
		})
	}
}

// TestAddonReconcileOverlappingPlacements: a cluster two placements select
// belongs to the last of them, which alone rolls it out, with its own
// configs and strategy.
func TestAddonReconcileOverlappingPlacements(t *testing.T) {
	t.Parallel()
	seedCfg, canaryCfg := proxyConfig(t, "cluster-proxy", "v1.0.0"), proxyConfig(t, "cluster-proxy-canary", "v1.1.0")
	canaryFirst := func(cma *addonv1beta1.ClusterManagementAddOn) {
		ps := cma.Spec.InstallStrategy.Placements
		ps[0], ps[1] = ps[1], ps[0]
	}
	for _, tc := range []struct {
		name   string
		with   []func(*addonv1beta1.ClusterManagementAddOn)
		stg    string // stg-cluster's desired hash
		seeded string // the seed placement's progression
		canary string // the canary placement's progression
	}{
		{name: "canary last: it rolls stg out at once, with its config",
			with: []func(*addonv1beta1.ClusterManagementAddOn){alsoPlacing(canaryRef, canaryCfg.GetName())}, stg: specHashOf(t, canaryCfg),
			seeded: "selected clusters 2. configured addons 1/2 progressing..., 0 failed 0 timeout.",
			canary: "selected clusters 1. configured addons 1/1 progressing..., 0 failed 0 timeout."},
		{name: "seed last: stg waits for dev",
			with: []func(*addonv1beta1.ClusterManagementAddOn){alsoPlacing(canaryRef, canaryCfg.GetName()), canaryFirst}, stg: "",
			seeded: "selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout.",
			canary: "selected clusters 0. configured addons 0/0 progressing..., 0 failed 0 timeout."}, // an empty placement never completes, as in OCM
	} {
		for _, version := range addonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := newAddonHub(t, version, nil, hubObjects(
					[]client.Object{seedAddon(t, hubclient.DefaultLifecycle, tc.with...), seedCfg, canaryCfg},
					seedPlacement(t), placementWith(canaryRef, "stg-cluster"), freshAddons(seedAddonName, seedClusters...))...)
				_, err := reconcileAddon(h.addonReconciler(clockfake.New(hubtest.Start), nil), seedAddonName)
				require.NoError(t, err)
				assert.Equal(t, specHashOf(t, seedCfg), desiredHash(t, h.addon("dev-cluster", seedAddonName)))
				assert.Equal(t, tc.stg, desiredHash(t, h.addon("stg-cluster", seedAddonName)))
				assert.Empty(t, desiredHash(t, h.addon("prod-cluster", seedAddonName)))
				cma := h.cma(seedAddonName)
				for ref, want := range map[addonv1beta1.PlacementRef]string{seedRef: tc.seeded, canaryRef: tc.canary} {
					_, cond := progressionOf(t, cma, ref)
					require.NotNil(t, cond)
					assert.Equal(t, want, cond.Message, ref.Name)
				}
			})
		}
	}
}

// TestAddonReconcileBadInput: a placement that cannot be planned (a rollout
// strategy that does not validate, a config object or a Placement that is
// missing) gets a Progressing False condition whose reason says why and
// whose message names the field or the object, and a Warning event; its
// add-ons are not written. The add-on's other placement still rolls out,
// and the reconcile comes back within notPlannedRetry.
func TestAddonReconcileBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		spoil  func(*addonv1beta1.ClusterManagementAddOn)
		addons []string // the clusters with an add-on
		ref    addonv1beta1.PlacementRef
		reason string
		names  string // what the message and the event must name
	}{
		{name: "invalid rollout strategy",
			spoil: func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy.Placements[0].RolloutStrategy.ProgressivePerGroup.ProgressDeadline = "10mfoo"
			},
			addons: seedClusters, ref: seedRef, reason: ReasonInvalidRolloutStrategy,
			names: "spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline"},
		{name: "missing config object",
			spoil: func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy.Placements[0].Configs = []addonv1beta1.AddOnConfig{
					{ConfigGroupResource: proxyGR, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy-v2"}}}
			},
			addons: seedClusters, ref: seedRef, reason: addon.ReasonConfigurationError, names: "cluster-proxy-v2"},
		{name: "missing placement",
			spoil: func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy.Placements[0].Name = "gone"
			},
			// A missing Placement selects nothing: an add-on on dev or
			// prod would be removed, so there is none.
			addons: []string{"stg-cluster"}, ref: addonv1beta1.PlacementRef{Namespace: seedNamespace, Name: "gone"},
			reason: addon.ReasonPlacementNotFound, names: `"open-cluster-management/gone"`},
	} {
		for _, version := range addonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				cfg := proxyConfig(t, "cluster-proxy", "v1.0.0")
				h := newAddonHub(t, version, nil, hubObjects(
					[]client.Object{seedAddon(t, hubclient.DefaultLifecycle, alsoPlacing(canaryRef, ""), tc.spoil), cfg},
					seedPlacement(t), placementWith(canaryRef, "stg-cluster"), freshAddons(seedAddonName, tc.addons...))...)
				before := h.resourceVersions()
				rec := events.NewFakeRecorder(10)
				res, err := reconcileAddon(h.addonReconciler(clockfake.New(hubtest.Start), rec), seedAddonName)
				require.NoError(t, err)
				assert.Equal(t, notPlannedRetry, res.RequeueAfter)

				cma := h.cma(seedAddonName)
				_, cond := progressionOf(t, cma, tc.ref)
				require.NotNil(t, cond)
				assert.Equal(t, metav1.ConditionFalse, cond.Status)
				assert.Equal(t, tc.reason, cond.Reason)
				assert.Contains(t, cond.Message, tc.names)
				require.Len(t, rec.Events, 1)
				event := <-rec.Events
				assert.True(t, strings.HasPrefix(event, "Warning "+tc.reason+" placement "+tc.ref.Namespace+"/"+tc.ref.Name+": "), event)
				assert.Contains(t, event, tc.names)

				assert.ElementsMatch(t, tc.addons, h.addonClusters(seedAddonName), "add-ons were installed or removed")
				for _, c := range tc.addons {
					key := strings.Join([]string{"ManagedClusterAddOn", c, seedAddonName}, "/")
					if c != "stg-cluster" {
						assert.Equal(t, before[key], h.resourceVersions()[key], "%s was written", c)
					}
				}
				stg := h.addon("stg-cluster", seedAddonName)
				assert.Equal(t, specHashOf(t, cfg), desiredHash(t, stg), "the other placement was not rolled out")
				assert.Equal(t, metav1.ConditionTrue, configuredStatus(stg))
				_, canary := progressionOf(t, cma, canaryRef)
				assert.Equal(t, "selected clusters 1. configured addons 1/1 progressing..., 0 failed 0 timeout.", canary.Message)
			})
		}
	}
}

// TestAddonReconcileConflict: a status write that meets a conflict
// (someone wrote the object since it was read) is returned as the
// reconcile's error, for the controller's rate limiter to retry on fresh
// data, with no event, and the newer data is never overwritten.
func TestAddonReconcileConflict(t *testing.T) {
	t.Parallel()
	agentCondition := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: "WaitingForManifestApplied", LastTransitionTime: metav1.NewTime(hubtest.Start)}
	for _, tc := range []struct {
		name  string
		hook  func(t *testing.T, api hubclient.AddonAPI) writeHook
		agent bool // whether the agent's write is on the hub
	}{
		{name: "the API server answers Conflict", hook: func(*testing.T, hubclient.AddonAPI) writeHook {
			return func(_ client.Client, verb string, obj client.Object) error {
				if verb != "status patch" {
					return nil
				}
				return apierrors.NewConflict(schema.GroupResource{Group: addonv1beta1.GroupName, Resource: "managedclusteraddons"},
					obj.GetName(), errors.New("the object has been modified; please apply your changes to the latest version and try again"))
			}
		}},
		{name: "the agent wrote dev's add-on after the read", hook: func(t *testing.T, api hubclient.AddonAPI) writeHook {
			return func(c client.Client, verb string, obj client.Object) error {
				if verb != "status patch" || obj.GetNamespace() != "dev-cluster" {
					return nil
				}
				cur := api.NewMCA()
				require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), cur))
				next, err := api.WithAddonStatus(cur, nil, []metav1.Condition{agentCondition})
				require.NoError(t, err)
				require.NoError(t, c.Status().Update(context.Background(), next))
				return nil
			}
		}, agent: true},
	} {
		for _, version := range addonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				api, err := hubclient.NewAddonAPI(version)
				require.NoError(t, err)
				h := newAddonHub(t, version, tc.hook(t, api), hubObjects(
					[]client.Object{seedAddon(t, hubclient.DefaultLifecycle), proxyConfig(t, "cluster-proxy", "v1.0.0")},
					seedPlacement(t), freshAddons(seedAddonName, seedClusters...))...)
				rec := events.NewFakeRecorder(10)
				_, err = reconcileAddon(h.addonReconciler(clockfake.New(hubtest.Start), rec), seedAddonName)
				require.Error(t, err)
				assert.True(t, onlyConflicts(err), "not a conflict: %v", err)
				assert.Empty(t, rec.Events, "a conflict is not worth an event")
				dev := h.addon("dev-cluster", seedAddonName)
				assert.Empty(t, desiredHash(t, dev), "dev was written over newer data")
				if tc.agent {
					got := meta.FindStatusCondition(dev.Status.Conditions, agentCondition.Type)
					require.NotNil(t, got, "the agent's write was lost")
					assert.Equal(t, agentCondition.Reason, got.Reason)
				}
			})
		}
	}
}
