package agent

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	fakeclock "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/hash"
)

const (
	cluster  = "dev-cluster"
	addonNm  = "cluster-proxy"
	oldImage = "quay.io/open-cluster-management/cluster-proxy:v0.9.0"
	newImage = "quay.io/open-cluster-management/cluster-proxy:v0.9.1"
	cfgGroup = "proxy.open-cluster-management.io"
	cfgRes   = "managedproxyconfigurations"
	hashKey  = cfgRes + "." + cfgGroup + "//cluster-proxy"
)

var (
	start    = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	proxyGVK = schema.GroupVersionKind{Group: cfgGroup, Version: "v1alpha1", Kind: "ManagedProxyConfiguration"}
)

func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, addonv1alpha1.Install(s))
	require.NoError(t, addonv1beta1.Install(s))
	require.NoError(t, workv1.Install(s))
	return s
}

// newClient returns a fake client holding objs, with the status
// subresources of add-ons and works.
func newClient(t testing.TB, objs ...client.Object) client.Client {
	t.Helper()
	return newClientWith(t, interceptor.Funcs{}, objs...)
}

// newClientWith is newClient whose calls go through funcs.
func newClientWith(t testing.TB, funcs interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	return fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(objs...).
		WithStatusSubresource(&addonv1alpha1.ManagedClusterAddOn{}, &workv1.ManifestWork{}).
		WithInterceptorFuncs(funcs).Build()
}

// proxyConfig is the seed's config object with that agent image, and its
// spec hash.
func proxyConfig(t testing.TB, image string) (*unstructured.Unstructured, string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"proxyAgent": map[string]any{"image": image, "replicas": int64(1)}},
	}}
	u.SetGroupVersionKind(proxyGVK)
	u.SetName("cluster-proxy")
	h, err := hash.Spec(u)
	require.NoError(t, err)
	return u, h
}

// mca is a v1alpha1 add-on on cluster whose desired config has specHash
// (none when empty).
func mca(specHash string) *addonv1alpha1.ManagedClusterAddOn {
	m := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: addonNm, UID: "mca-uid"}}
	ref := addonv1alpha1.ConfigReference{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: cfgGroup, Resource: cfgRes}}
	if specHash != "" {
		ref.DesiredConfig = &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: specHash}
	}
	m.Status.ConfigReferences = []addonv1alpha1.ConfigReference{ref}
	return m
}

func mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(proxyGVK, meta.RESTScopeRoot)
	m.Add(DeploymentConfigKind(), meta.RESTScopeNamespace)
	return m
}

func newDeployer(c client.Client) *Deployer {
	return &Deployer{Client: c, Mapper: mapper(), Version: "v1alpha1", Clock: fakeclock.New(start)}
}

func request(ns, name string) ctrl.Request {
	return ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

func getWork(t testing.TB, c client.Client) (*workv1.ManifestWork, bool) {
	t.Helper()
	w := &workv1.ManifestWork{}
	err := c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: WorkName(addonNm)}, w)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(t, err)
	return w, true
}

func getMCA(t testing.TB, c client.Client) *addonv1alpha1.ManagedClusterAddOn {
	t.Helper()
	m := &addonv1alpha1.ManagedClusterAddOn{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: addonNm}, m))
	return m
}

func annotation(t testing.TB, hashes map[string]string) string {
	t.Helper()
	b, err := json.Marshal(hashes)
	require.NoError(t, err)
	return string(b)
}
