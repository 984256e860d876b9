package hubtest

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
)

// SeedAddonName and SeedNamespace are the seed story's add-on and the namespace of its Placement.
const (
	SeedAddonName = "cluster-proxy"
	SeedNamespace = "open-cluster-management"
)

// ProxyGR is the resource of the seed's add-on config.
var ProxyGR = addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}

// The seed's placement, another one, the config kind, and the add-on
// API versions a test runs in.
var (
	SeedRef       = addonv1beta1.PlacementRef{Namespace: SeedNamespace, Name: "cluster-proxy-placement"}
	CanaryRef     = addonv1beta1.PlacementRef{Namespace: SeedNamespace, Name: "canary"}
	ProxyGVK      = schema.GroupVersionKind{Group: ProxyGR.Group, Version: "v1alpha1", Kind: "ManagedProxyConfiguration"}
	AddonVersions = []string{hubclient.V1alpha1, hubclient.V1beta1}
)

// AddonHub is an in-memory hub for the add-on reconcilers: a fake client
// with the status subresources and the name index the reconcilers need,
// a REST mapper that serves ManagedProxyConfigurations (cluster-scoped),
// and the add-on objects stored in one API version.
type AddonHub struct {
	// T is the test the hub serves.
	T *testing.T
	// Version is the API version the add-on objects are stored in.
	Version string
	// API reads and writes the add-on objects in Version.
	API hubclient.AddonAPI
	// Client is the hub's client.
	Client client.Client
	// Mapper maps ManagedProxyConfigurations.
	Mapper meta.RESTMapper
	// Writes counts the writes sent to the hub, failed ones included.
	Writes atomic.Int64
}

// WriteHook is called before a write to the hub; verb is "create",
// "update", "patch", "delete", "status update" or "status patch".
type WriteHook func(c client.Client, verb string, obj client.Object) error

// NewAddonHub returns a hub holding objs, in which ClusterManagementAddOns
// and ManagedClusterAddOns are given in v1beta1 and stored in version.
// fail, when not nil, is called before every write with the hub's
// unintercepted client (to write as someone else would) and, when it
// returns an error, the write fails with it and changes nothing.
func NewAddonHub(t *testing.T, version string, fail WriteHook, objs ...client.Object) *AddonHub {
	t.Helper()
	api, err := hubclient.NewAddonAPI(version)
	require.NoError(t, err)
	h := &AddonHub{T: t, Version: version, API: api}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{ProxyGVK.GroupVersion()})
	mapper.AddSpecific(ProxyGVK, ProxyGVK.GroupVersion().WithResource(ProxyGR.Resource),
		ProxyGVK.GroupVersion().WithResource("managedproxyconfiguration"), meta.RESTScopeRoot)
	h.Mapper = mapper
	// The fake client sets the resourceVersion of what it is given: give
	// it copies, since one test's objects may serve parallel subtests.
	stored := make([]client.Object, len(objs))
	for i, o := range objs {
		stored[i] = h.Store(o.DeepCopyObject().(client.Object))
	}
	write := func(c client.Client, verb string, obj client.Object) error {
		h.Writes.Add(1)
		if fail != nil {
			return fail(c, verb, obj)
		}
		return nil
	}
	h.Client = FakeHubBuilder(t, stored...).
		WithRESTMapper(mapper).
		WithStatusSubresource(api.NewMCA(), api.NewCMA(), &clusterv1beta1.Placement{}, &clusterv1beta1.PlacementDecision{},
			&v1alpha1.AddOnRollout{}, &v1alpha1.RolloutApproval{}).
		WithIndex(api.NewMCA(), hubclient.MCANameIndex, func(o client.Object) []string { return []string{o.GetName()} }).
		WithIndex(&v1alpha1.RolloutApproval{}, hubclient.ApprovalAddOnIndex, func(o client.Object) []string {
			return []string{o.(*v1alpha1.RolloutApproval).Spec.AddOn}
		}).
		WithInterceptorFuncs(interceptWrites(write)).Build()
	return h
}

// Store returns obj as the hub stores it: a v1beta1 add-on object in the
// hub's version, with v1alpha1's config names beside their hashes as OCM
// writes them; anything else as it is.
func (h *AddonHub) Store(obj client.Object) client.Object {
	h.T.Helper()
	if h.Version != hubclient.V1alpha1 {
		return obj
	}
	switch o := obj.(type) {
	case *addonv1beta1.ClusterManagementAddOn:
		out := &addonv1alpha1.ClusterManagementAddOn{}
		require.NoError(h.T, addonv1beta1.Convert_v1beta1_ClusterManagementAddOn_To_v1alpha1_ClusterManagementAddOn(o.DeepCopy(), out, nil))
		return out
	case *addonv1beta1.ManagedClusterAddOn:
		out := &addonv1alpha1.ManagedClusterAddOn{}
		require.NoError(h.T, addonv1beta1.Convert_v1beta1_ManagedClusterAddOn_To_v1alpha1_ManagedClusterAddOn(o.DeepCopy(), out, nil))
		for i, r := range out.Status.ConfigReferences {
			if r.DesiredConfig != nil {
				out.Status.ConfigReferences[i].ConfigReferent = r.DesiredConfig.ConfigReferent
			}
		}
		return out
	}
	return obj
}

// Addon returns the v1beta1 form of the add-on name on cluster, nil when
// the hub has none.
func (h *AddonHub) Addon(cluster, name string) *addonv1beta1.ManagedClusterAddOn {
	h.T.Helper()
	obj := h.API.NewMCA()
	err := h.Client.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(h.T, err)
	m, err := h.API.Snapshot().MCA(obj)
	require.NoError(h.T, err)
	return m
}

// AddonClusters returns the clusters with an add-on called name, sorted.
func (h *AddonHub) AddonClusters(name string) []string {
	h.T.Helper()
	list := h.API.NewMCAList()
	require.NoError(h.T, h.Client.List(context.Background(), list, client.MatchingFields{hubclient.MCANameIndex: name}))
	out := []string{}
	for _, m := range h.API.MCAs(list) {
		out = append(out, m.GetNamespace())
	}
	slices.Sort(out)
	return out
}

// CMA returns the v1beta1 form of the ClusterManagementAddOn name.
func (h *AddonHub) CMA(name string) *addonv1beta1.ClusterManagementAddOn {
	h.T.Helper()
	obj := h.API.NewCMA()
	require.NoError(h.T, h.Client.Get(context.Background(), types.NamespacedName{Name: name}, obj))
	c, err := h.API.Snapshot().CMA(obj)
	require.NoError(h.T, err)
	return c
}

// ResourceVersions returns the resourceVersion of every add-on object of
// the hub, by kind, namespace and name.
func (h *AddonHub) ResourceVersions() map[string]string {
	h.T.Helper()
	out := map[string]string{}
	for _, l := range []client.ObjectList{h.API.NewCMAList(), h.API.NewMCAList()} {
		require.NoError(h.T, h.Client.List(context.Background(), l))
		objs := append(h.API.CMAs(l), h.API.MCAs(l)...)
		for _, o := range objs {
			out[strings.Join([]string{o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName()}, "/")] = o.GetResourceVersion()
		}
	}
	return out
}

// ProgressionOf returns the install progression of ref in cma's status.
func ProgressionOf(t *testing.T, cma *addonv1beta1.ClusterManagementAddOn, ref addonv1beta1.PlacementRef) (addonv1beta1.InstallProgression, *metav1.Condition) {
	t.Helper()
	for _, ip := range cma.Status.InstallProgressions {
		if ip.PlacementRef == ref {
			return ip, meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		}
	}
	require.Failf(t, "no install progression", "%s/%s in %+v", ref.Namespace, ref.Name, cma.Status.InstallProgressions)
	return addonv1beta1.InstallProgression{}, nil
}

// DesiredHash returns the desiredConfig spec hash of the add-on's only
// config, "" when it has none.
func DesiredHash(t *testing.T, m *addonv1beta1.ManagedClusterAddOn) string {
	t.Helper()
	require.NotNil(t, m)
	if len(m.Status.ConfigReferences) == 0 || m.Status.ConfigReferences[0].DesiredConfig == nil {
		return ""
	}
	require.Len(t, m.Status.ConfigReferences, 1)
	return m.Status.ConfigReferences[0].DesiredConfig.SpecHash
}

// ConfiguredStatus returns the status of the add-on's Configured condition, ""
// when it has none.
func ConfiguredStatus(m *addonv1beta1.ManagedClusterAddOn) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionConfigured); c != nil {
		return c.Status
	}
	return ""
}

// SeedAddon returns the seed's ClusterManagementAddOn with the lifecycle
// annotation set to lifecycle (none when empty), changed by each of with.
func SeedAddon(t *testing.T, lifecycle string, with ...func(*addonv1beta1.ClusterManagementAddOn)) *addonv1beta1.ClusterManagementAddOn {
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

// AlsoPlacing appends an install-strategy placement rolled out all at once,
// configured with the ManagedProxyConfiguration config when it is not
// empty.
func AlsoPlacing(ref addonv1beta1.PlacementRef, config string) func(*addonv1beta1.ClusterManagementAddOn) {
	return func(cma *addonv1beta1.ClusterManagementAddOn) {
		ps := addonv1beta1.PlacementStrategy{PlacementRef: ref, RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}}
		if config != "" {
			ps.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: ProxyGR, ConfigReferent: addonv1beta1.ConfigReferent{Name: config}}}
		}
		cma.Spec.InstallStrategy.Placements = append(cma.Spec.InstallStrategy.Placements, ps)
	}
}

// SeedPlacement returns the seed's Placement and its three
// PlacementDecisions (dev, stg, prod, one cluster each).
func SeedPlacement(t *testing.T) []client.Object {
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

// PlacementWith returns a Placement ref and one PlacementDecision (group 0,
// unnamed) that selects clusters.
func PlacementWith(ref addonv1beta1.PlacementRef, clusters ...string) []client.Object {
	d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: ref.Name, clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	for _, c := range clusters {
		d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return []client.Object{PlacementIn(ref.Namespace, ref.Name), d}
}

// ProxyConfig returns the seed's ManagedProxyConfiguration named name, with
// both images at tag.
func ProxyConfig(t *testing.T, name, tag string) *unstructured.Unstructured {
	t.Helper()
	u, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	u.SetName(name)
	for _, part := range []string{"proxyServer", "proxyAgent"} {
		require.NoError(t, unstructured.SetNestedField(u.Object, "quay.io/open-cluster-management/cluster-proxy:"+tag, "spec", part, "image"))
	}
	return u
}

// SpecHashOf is hash.Spec of u.
func SpecHashOf(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	h, err := hash.Spec(u)
	require.NoError(t, err)
	return h
}

// FreshAddon is the add-on name on cluster as the controller creates it,
// before anyone has written its status.
func FreshAddon(cluster, name string) *addonv1beta1.ManagedClusterAddOn {
	return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
}

// FreshAddons are FreshAddon name on each of clusters.
func FreshAddons(name string, clusters ...string) []client.Object {
	out := make([]client.Object, len(clusters))
	for i, c := range clusters {
		out[i] = FreshAddon(c, name)
	}
	return out
}

// HubObjects concatenates object lists.
func HubObjects(lists ...[]client.Object) []client.Object {
	return slices.Concat(lists...)
}

// SeedClusters are the clusters of the seed's PlacementDecisions, in
// rollout order.
var SeedClusters = []string{"dev-cluster", "stg-cluster", "prod-cluster"}

// SeedRollout returns the seed add-on's AddOnRollout with spec.
func SeedRollout(spec v1alpha1.AddOnRolloutSpec) *v1alpha1.AddOnRollout {
	return &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: SeedAddonName, Generation: 1}, Spec: spec}
}

// interceptWrites returns the interceptors of a fake client that call
// write (with the unintercepted client, the verb and the object) before
// every write, and fail the write with its error.
func interceptWrites(write func(c client.Client, verb string, obj client.Object) error) interceptor.Funcs {
	return interceptor.Funcs{
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
	}
}
