package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/seed"
)

// The seed's Placement.
const (
	seedNamespace = "open-cluster-management"
	seedPlacement = "cluster-proxy-placement"
)

// names are what one test's objects are called on its hub. On a hub of
// the test's own they are the seed's (seedNames). On the shared hub
// (tenantNames) every name but the Placement's has the test's prefix, so
// that no two tests meet: their ManagedClusters and namespaces, add-ons,
// config objects and approvals differ; each Placement selects its test's
// clusters alone, as a ManagedClusterSet of the test's own is the one
// bound in its namespace; and each test's controllers take its add-ons
// alone, by a lifecycle value of its own.
type names struct {
	prefix     string // of the test's own names: "" on a hub of its own
	addonName  string // the ClusterManagementAddOn, its ManagedClusterAddOns and AddOnRollout
	config     string // the ManagedProxyConfiguration of the add-on's default config
	namespace  string // the Placement's
	clusterSet string // the ManagedClusterSet bound in namespace
	lifecycle  string // the add-on's lifecycle annotation, which the test's controllers take
	// The seed's three clusters (SeedOptions.PerEnvironment 0 or 1).
	dev, stg, prod string
}

// seedNames are the names of the seed's story, as testhub.Seed writes it.
func seedNames() names {
	return names{addonName: addonName, config: addonName, namespace: seedNamespace, clusterSet: testhub.GlobalSetName,
		lifecycle: testhub.Lifecycle, dev: "dev-cluster", stg: "stg-cluster", prod: "prod-cluster"}
}

// tenantNames are the seed's names with the prefix id-, the cluster set
// id, and the lifecycle value rolloutkit-id.
func tenantNames(id string) names {
	n := names{prefix: id + "-", clusterSet: id, lifecycle: testhub.Lifecycle + "-" + id}
	s := seedNames()
	n.addonName, n.config, n.namespace = n.named(s.addonName), n.named(s.config), n.named(s.namespace)
	n.dev, n.stg, n.prod = n.named(s.dev), n.named(s.stg), n.named(s.prod)
	return n
}

// named returns what the test calls the object the seed's story, or the
// test on a hub of its own, calls name.
func (n names) named(name string) string { return n.prefix + name }

// seeded is the seed's story as written for a test.
type seeded struct {
	testhub.SeedOptions
	prefix string // the test's names.prefix
}

// Clusters returns the names of the test's clusters, in rollout order.
func (s seeded) Clusters() []string {
	out := s.SeedOptions.Clusters()
	for i := range out {
		out[i] = s.prefix + out[i]
	}
	return out
}

// seedHub writes the seed's story with a soak of 2s, the given deadline and
// failure budget 0, the add-on annotated for the test's controllers.
func seedHub(t testing.TB, e *env, deadline string) seeded {
	t.Helper()
	return e.seed(t, testhub.SeedOptions{Strategy: testhub.Strategy(soak.String(), deadline, 0)})
}

// seed writes the seed's story at o's scale, its add-on annotated with the
// test's lifecycle value (o.Lifecycle is replaced): on a hub of the test's
// own as testhub.Seed writes it; on the shared hub under the test's names
// (seedTenant), its namespaces then in the test's scope.
func (e *env) seed(t testing.TB, o testhub.SeedOptions) seeded {
	t.Helper()
	o.Lifecycle = e.lifecycle
	s := seeded{SeedOptions: o, prefix: e.prefix}
	if e.prefix == "" {
		require.NoError(t, testhub.Seed(context.Background(), e.c, o))
		return s
	}
	require.NoError(t, e.seedTenant(context.Background(), s))
	e.scope = append(e.scope, s.Clusters()...)
	return s
}

// seedTenant writes what testhub.Seed writes, under the test's names: a
// namespace and a ManagedCluster (in the test's cluster set) for every
// cluster, the cluster set and its binding in the Placement's namespace,
// the seed's Placement there, the config object with the agent image
// testhub.Image, and the add-on (seedAddon).
func (e *env) seedTenant(ctx context.Context, s seeded) error {
	mcs, err := seed.ManagedClusters()
	if err != nil {
		return err
	}
	labels := make(map[string]map[string]string) // environment -> the seed's labels
	for _, mc := range mcs {
		labels[mc.Labels["environment"]] = mc.Labels
	}
	for _, name := range s.SeedOptions.Clusters() {
		environment, _, _ := strings.Cut(name, "-")
		mc := mcs[0].DeepCopy()
		mc.ObjectMeta = metav1.ObjectMeta{Name: e.named(name), Labels: e.clusterLabels(labels[environment])}
		if err := createAll(ctx, e.c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mc.Name}}, mc); err != nil {
			return err
		}
	}
	p, err := seed.Placement()
	if err != nil {
		return err
	}
	p.Namespace = e.namespace
	set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: e.clusterSet}, Spec: clusterv1beta2.ManagedClusterSetSpec{
		ClusterSelector: clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}}}
	cfg, err := testhub.ProxyConfig(testhub.Image)
	if err != nil {
		return err
	}
	cfg.SetName(e.config)
	cma, err := e.seedAddon(s.SeedOptions)
	if err != nil {
		return err
	}
	alpha, err := testhub.AddonV1alpha1(cma)
	if err != nil {
		return err
	}
	return createAll(ctx, e.c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.namespace}}, set, e.binding(e.namespace), p, cfg, alpha)
}

// seedAddon returns the seed's ClusterManagementAddOn under the test's
// names (its add-on name, config object, Placement namespace and
// lifecycle value), with o's rollout strategy when o has one.
func (e *env) seedAddon(o testhub.SeedOptions) (*addonv1beta1.ClusterManagementAddOn, error) {
	cma, err := seed.ClusterManagementAddOn()
	if err != nil {
		return nil, err
	}
	cma.Name = e.addonName
	cma.Spec.DefaultConfigs[0].Name = e.config
	cma.Spec.InstallStrategy.Placements[0].Namespace = e.namespace
	if o.Strategy.Type != "" {
		cma.Spec.InstallStrategy.Placements[0].RolloutStrategy = o.Strategy
	}
	cma.Annotations[hubclient.LifecycleAnnotation] = e.lifecycle
	return cma, nil
}

// clusterLabels returns labels, and on the shared hub the label that puts
// a cluster into the test's cluster set.
func (e *env) clusterLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	if e.prefix != "" {
		out[clusterv1beta2.ClusterSetLabel] = e.clusterSet
	}
	return out
}

// binding returns the ManagedClusterSetBinding of the test's cluster set
// (the global set on a hub of the test's own) in namespace.
func (e *env) binding(namespace string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: e.clusterSet},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: e.clusterSet},
	}
}

// ownNamespace returns the name of the test's namespace name and puts it
// into the test's scope, so that the managers the test starts from now on
// see its objects; it creates nothing.
func (e *env) ownNamespace(name string) string {
	ns := e.named(name)
	if e.scope != nil {
		e.scope = append(e.scope, ns)
	}
	return ns
}

// createAll creates objs: none may exist, or another test has the
// names.
func createAll(ctx context.Context, c client.Client, objs ...client.Object) error {
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %q: %w", o, o.GetNamespace()+"/"+o.GetName(), err)
		}
	}
	return nil
}

// proxyConfig returns the test's config object as the seed writes it,
// with both images set to image.
func (e *env) proxyConfig(t testing.TB, image string) *unstructured.Unstructured {
	t.Helper()
	u, err := testhub.ProxyConfig(image)
	require.NoError(t, err)
	u.SetName(e.config)
	return u
}

// setAgentImage changes spec.proxyAgent.image of the test's config
// object, the change the seed rolls out, as testhub.SetAgentImage does.
func (e *env) setAgentImage(t testing.TB, image string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"proxyAgent":{"image":%q}}}`, image)
	require.NoError(t, e.c.Patch(context.Background(), e.proxyConfig(t, image), client.RawPatch(types.MergePatchType, patch)))
}
