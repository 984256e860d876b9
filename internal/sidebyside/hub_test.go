package sidebyside

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
)

// The two sides, by the lifecycle annotation value that hands an add-on to
// each, and the name of the add-on each rolls out.
const (
	lifecycleOCM  = addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue
	lifecycleOurs = "rolloutkit"
	addonOCM      = "proxy-ocm"
	addonOurs     = "proxy-rolloutkit"
)

// side is one of the two add-on managers compared.
type side struct {
	name      string // how reports name it
	addon     string // the ClusterManagementAddOn it rolls out
	lifecycle string
}

var (
	ocmSide  = side{name: "OCM", addon: addonOCM, lifecycle: lifecycleOCM}
	oursSide = side{name: "rolloutkit", addon: addonOurs, lifecycle: lifecycleOurs}
	sides    = []side{ocmSide, oursSide}
)

// The seed's objects, by name.
const (
	placementNamespace = "open-cluster-management"
	placementName      = "cluster-proxy-placement"
	configName         = "cluster-proxy"
	globalSet          = "global"
)

var proxyConfigs = schema.GroupVersionResource{Group: "proxy.open-cluster-management.io", Version: "v1alpha1", Resource: "managedproxyconfigurations"}

// image is the agent image of config version v.
func image(v string) string { return "quay.io/open-cluster-management/cluster-proxy:" + v }

// hub is a running test hub and the clients the test drives it with.
type hub struct {
	cfg     *rest.Config
	kube    kubernetes.Interface
	cluster clusterclient.Interface
	addon   addonclient.Interface
	work    workclient.Interface
	dyn     dynamic.Interface
	// kubeconfig is the file every side reads.
	kubeconfig string
}

// newHub builds the test's clients of the hub in kubeconfig. They are not
// rate-limited on the client: the test seeds thousands of objects.
func newHub(tb testing.TB, kubeconfig string) *hub {
	tb.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 2000, 4000
	h := &hub{cfg: cfg, kubeconfig: kubeconfig}
	if h.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		tb.Fatal(err)
	}
	if h.cluster, err = clusterclient.NewForConfig(cfg); err != nil {
		tb.Fatal(err)
	}
	if h.addon, err = addonclient.NewForConfig(cfg); err != nil {
		tb.Fatal(err)
	}
	if h.work, err = workclient.NewForConfig(cfg); err != nil {
		tb.Fatal(err)
	}
	if h.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		tb.Fatal(err)
	}
	return h
}

// environments are the seed's decision groups, in rollout order.
var environments = []string{"dev", "stg", "prod"}

// clusterNames names sizes[i] clusters of environment i, as the test hub
// names them: dev-0001, dev-0002, ...
func clusterNames(sizes [3]int) [][]string {
	out := make([][]string, len(environments))
	for i, env := range environments {
		for j := 1; j <= sizes[i]; j++ {
			out[i] = append(out[i], fmt.Sprintf("%s-%04d", env, j))
		}
	}
	return out
}

// environmentLabels returns the seed's labels of a cluster of env.
func environmentLabels(env string) (map[string]string, error) {
	mcs, err := seed.ManagedClusters()
	if err != nil {
		return nil, err
	}
	for _, mc := range mcs {
		if mc.Labels["environment"] == env {
			out := make(map[string]string, len(mc.Labels))
			for k, v := range mc.Labels {
				out[k] = v
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("the seed has no %s cluster", env)
}

// addCluster creates a cluster of env: its namespace and its
// ManagedCluster with the seed's labels.
func (h *hub) addCluster(ctx context.Context, name, env string) error {
	labels, err := environmentLabels(env)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := h.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	mc := &clusterv1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: 60},
	}
	if _, err := h.cluster.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating managedcluster %s: %w", name, err)
	}
	return nil
}

// removeCluster deletes a cluster's ManagedCluster: it leaves the fleet
// (its namespace stays, as it does on a hub until the cluster is cleaned
// up).
func (h *hub) removeCluster(ctx context.Context, name string) error {
	return h.cluster.ClusterV1().ManagedClusters().Delete(ctx, name, metav1.DeleteOptions{})
}

// seedFleet creates the clusters, eight at a time.
func (h *hub) seedFleet(ctx context.Context, sizes [3]int) error {
	type job struct{ name, env string }
	jobs := make(chan job)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := h.addCluster(ctx, j.name, j.env); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i, names := range clusterNames(sizes) {
		for _, n := range names {
			jobs <- job{n, environments[i]}
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// seedHub writes what both add-ons share: the clusters, the global
// ManagedClusterSet bound in the Placement's namespace, the seed's
// Placement (changed by edit, when given) and the ManagedProxyConfiguration
// with the agent image of version v1.
func (h *hub) seedHub(ctx context.Context, sizes [3]int, edit func(*clusterv1beta1.Placement)) error {
	if err := h.seedFleet(ctx, sizes); err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: placementNamespace}}
	if _, err := h.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	set := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: globalSet},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
		}},
	}
	if _, err := h.cluster.ClusterV1beta2().ManagedClusterSets().Create(ctx, set, metav1.CreateOptions{}); err != nil {
		return err
	}
	binding := &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: placementNamespace, Name: globalSet},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: globalSet},
	}
	if _, err := h.cluster.ClusterV1beta2().ManagedClusterSetBindings(placementNamespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return err
	}
	p, err := seed.Placement()
	if err != nil {
		return err
	}
	if edit != nil {
		edit(p)
	}
	if _, err := h.cluster.ClusterV1beta1().Placements(placementNamespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return err
	}
	cfg, err := proxyConfig("v1")
	if err != nil {
		return err
	}
	_, err = h.dyn.Resource(proxyConfigs).Create(ctx, cfg, metav1.CreateOptions{})
	return err
}

// proxyConfig is the seed's ManagedProxyConfiguration with both images at
// version v.
func proxyConfig(v string) (*unstructured.Unstructured, error) {
	u, err := seed.ManagedProxyConfiguration()
	if err != nil {
		return nil, err
	}
	for _, part := range []string{"proxyServer", "proxyAgent"} {
		if err := unstructured.SetNestedField(u.Object, image(v), "spec", part, "image"); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// configHash is the spec hash of the config at agent image version v (the
// server image stays at v1, as setAgentImage leaves it).
func configHash(tb testing.TB, v string) string {
	tb.Helper()
	u, err := proxyConfig("v1")
	if err != nil {
		tb.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, image(v), "spec", "proxyAgent", "image"); err != nil {
		tb.Fatal(err)
	}
	h, err := hash.Spec(u)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// setAgentImage changes spec.proxyAgent.image of the config to version v:
// the change both add-ons roll out.
func (h *hub) setAgentImage(ctx context.Context, v string) error {
	patch := fmt.Appendf(nil, `{"spec":{"proxyAgent":{"image":%q}}}`, image(v))
	_, err := h.dyn.Resource(proxyConfigs).Patch(ctx, configName, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// createAddons creates the ClusterManagementAddOns of the sides given: the
// seed's, named for each side and annotated with its lifecycle value,
// installing with strategy. They are written in v1alpha1, the version
// OCM's CRDs store (the test hub converts through its webhook, as OCM's
// does), converted from the seed's v1beta1 by the api module's conversion
// (this module may not import addonversion).
func (h *hub) createAddons(ctx context.Context, strategy clusterv1alpha1.RolloutStrategy, of ...side) error {
	for _, s := range of {
		cma, err := seed.ClusterManagementAddOn()
		if err != nil {
			return err
		}
		cma.Name = s.addon
		cma.Annotations = map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: s.lifecycle}
		cma.Spec.InstallStrategy.Placements[0].RolloutStrategy = strategy
		alpha := &addonv1alpha1.ClusterManagementAddOn{}
		if err := addonv1beta1.Convert_v1beta1_ClusterManagementAddOn_To_v1alpha1_ClusterManagementAddOn(cma, alpha, nil); err != nil {
			return err
		}
		if _, err := h.addon.AddonV1alpha1().ClusterManagementAddOns().Create(ctx, alpha, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating clustermanagementaddon %s: %w", s.addon, err)
		}
	}
	return nil
}
