package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
)

// Names of the seed's story.
const (
	addonName = "cluster-proxy"
	hubNS     = "open-cluster-management"
	placeName = "cluster-proxy-placement"
)

// now is when the fake hub is read: dev and stg have applied the config
// and soaked (5m), prod is next.
var now = time.Date(2026, 11, 30, 12, 30, 0, 0, time.UTC)

// proxyGVK is the kind of the seed's config object.
var proxyGVK = schema.GroupVersionKind{Group: "proxy.open-cluster-management.io", Version: "v1alpha1", Kind: "ManagedProxyConfiguration"}

// seedHub returns the objects of the seed's hub (add-ons in v1alpha1, the
// version its CRDs store, as on an OCM hub) where dev and stg have applied
// the config and soaked, and prod has not been given it: prod is next. The
// ClusterManagementAddOn is annotated for the controller.
func seedHub(t *testing.T) []client.Object {
	t.Helper()
	var objs []client.Object
	mcs, err := seed.ManagedClusters()
	require.NoError(t, err)
	for _, mc := range mcs {
		objs = append(objs, mc)
	}
	p, err := seed.Placement()
	require.NoError(t, err)
	ds, err := seed.PlacementDecisions()
	require.NoError(t, err)
	objs = append(objs, p)
	for _, d := range ds {
		objs = append(objs, d)
	}
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	cma.Annotations[hubclient.LifecycleAnnotation] = hubclient.DefaultLifecycle
	cfg, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	specHash, err := hash.Spec(cfg)
	require.NoError(t, err)
	alpha := &addonv1alpha1.ClusterManagementAddOn{}
	require.NoError(t, addonv1beta1.Convert_v1beta1_ClusterManagementAddOn_To_v1alpha1_ClusterManagementAddOn(cma, alpha, nil))
	objs = append(objs, alpha, cfg)
	for _, m := range []*addonv1beta1.ManagedClusterAddOn{
		completed("dev-cluster", specHash, now.Add(-25*time.Minute)),
		completed("stg-cluster", specHash, now.Add(-15*time.Minute)),
		completed("prod-cluster", "old-hash", now.Add(-3*time.Hour)),
	} {
		alpha := &addonv1alpha1.ManagedClusterAddOn{}
		require.NoError(t, addonv1beta1.Convert_v1beta1_ManagedClusterAddOn_To_v1alpha1_ManagedClusterAddOn(m, alpha, nil))
		objs = append(objs, alpha)
	}
	for _, plural := range []string{"clustermanagementaddons", "managedclusteraddons"} {
		objs = append(objs, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + "." + addonv1beta1.GroupName},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: hubclient.V1alpha1, Served: true, Storage: true}, {Name: hubclient.V1beta1, Served: true},
			}},
		})
	}
	return objs
}

// completed is the add-on on cluster, done applying the config at
// specHash since since.
func completed(cluster, specHash string, since time.Time) *addonv1beta1.ManagedClusterAddOn {
	ref := addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: addonName}, SpecHash: specHash}
	m := &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: addonName}}
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{
		ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: proxyGVK.Group, Resource: "managedproxyconfigurations"},
		DesiredConfig:       ref.DeepCopy(), LastAppliedConfig: ref.DeepCopy(),
	}}
	m.Status.Conditions = []metav1.Condition{{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: addonv1beta1.ProgressingReasonCompleted, LastTransitionTime: metav1.NewTime(since)}}
	return m
}

// rollout is the seed add-on's AddOnRollout of spec, at generation 2, its
// status last written for generation 1.
func rollout(spec v1alpha1.AddOnRolloutSpec) *v1alpha1.AddOnRollout {
	return &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName, Generation: 2}, Spec: spec,
		Status: v1alpha1.AddOnRolloutStatus{ObservedGeneration: 1}}
}

// fakeHub is a client of an in-memory hub holding objs, whose RESTMapper
// knows the config objects' kind and, when served is true,
// rolloutkit.io's.
func fakeHub(t *testing.T, served bool, objs ...client.Object) client.Client {
	t.Helper()
	if !served {
		return fakeHubWith(t, false, notServed(), objs...)
	}
	return fakeHubWith(t, true, interceptor.Funcs{}, objs...)
}

// fakeHubWith is fakeHub whose requests go through funcs.
func fakeHubWith(t *testing.T, served bool, funcs interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	s, err := hubclient.NewScheme()
	require.NoError(t, err)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.AddSpecific(proxyGVK, proxyGVK.GroupVersion().WithResource("managedproxyconfigurations"),
		proxyGVK.GroupVersion().WithResource("managedproxyconfiguration"), meta.RESTScopeRoot)
	if served {
		for _, kind := range []string{"AddOnRollout", "RolloutApproval"} {
			mapper.Add(v1alpha1.GroupVersion().WithKind(kind), meta.RESTScopeRoot)
		}
	}
	stored := make([]client.Object, len(objs))
	for i, o := range objs {
		stored[i] = o.DeepCopyObject().(client.Object)
	}
	b := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(mapper).WithObjects(stored...).
		WithStatusSubresource(&v1alpha1.AddOnRollout{}, &v1alpha1.RolloutApproval{}).WithInterceptorFuncs(funcs)
	return b.Build()
}

// notServed makes a fake client answer every request about rolloutkit.io's
// kinds as an API server without their CRDs does: no kind match.
func notServed() interceptor.Funcs {
	refuse := func(o runtime.Object) error {
		switch o.(type) {
		case *v1alpha1.AddOnRollout, *v1alpha1.AddOnRolloutList, *v1alpha1.RolloutApproval, *v1alpha1.RolloutApprovalList:
			return &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: v1alpha1.Group, Kind: fmt.Sprintf("%T", o)}, SearchedVersions: []string{v1alpha1.Version}}
		}
		return nil
	}
	return interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := refuse(obj); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := refuse(list); err != nil {
				return err
			}
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := refuse(obj); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if err := refuse(obj); err != nil {
				return err
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
	}
}

// testEnv is the program's environment at now, named rolloutctl, its
// outputs discarded, with c as the hub (none when nil: connecting fails).
func testEnv(c client.Client) env {
	return env{name: "rolloutctl", stdout: io.Discard, stderr: io.Discard, now: func() time.Time { return now },
		connect: func(restConfigGetter) (client.Client, error) {
			if c == nil {
				return nil, errors.New("no hub in this test")
			}
			return c, nil
		}}
}

// runWith runs rolloutctl with args against c at now.
func runWith(t *testing.T, c client.Client, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := testEnv(c)
	e.stdout, e.stderr = &out, &errOut
	code = run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// lineWith returns the first line of text that holds every part, or "".
func lineWith(text string, parts ...string) string {
	for _, l := range strings.Split(text, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	return ""
}
