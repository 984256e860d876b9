package testhub

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/addonversion"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/seed"
)

// Image is the agent image the seed's hub starts with.
const Image = "quay.io/open-cluster-management/cluster-proxy:v0.9.0"

// SeedOptions scale the seed's story for a hub.
type SeedOptions struct {
	// PerEnvironment is the number of clusters in each of dev, stg and
	// prod; 0 or 1 gives the seed's dev-cluster, stg-cluster and
	// prod-cluster, more gives dev-0001, dev-0002, ...
	PerEnvironment int
	// Sizes, when set, are the numbers of dev, stg and prod clusters
	// (named as for PerEnvironment > 1); they win over PerEnvironment.
	Sizes [3]int
	// Strategy replaces the seed's rollout strategy when its type is set
	// (tests scale the soak and the deadline down to seconds).
	Strategy clusterv1alpha1.RolloutStrategy
	// Addon names the ClusterManagementAddOn; empty: cluster-proxy.
	Addon string
	// Lifecycle replaces the value of the ClusterManagementAddOn's
	// annotation addon.open-cluster-management.io/lifecycle, which decides
	// which add-on manager takes it. Empty: the seed's own value,
	// addon-manager (OCM's add-on manager). The controller takes only the
	// values of its -lifecycle flag (rolloutkit by default).
	Lifecycle string
}

// Lifecycle is the value of the lifecycle annotation that the controller
// takes by default.
const Lifecycle = hubclient.DefaultLifecycle

// Clusters returns the cluster names of the seed's story at that scale, in
// rollout order: dev, then stg, then prod.
func (o SeedOptions) Clusters() []string {
	var out []string
	for k, env := range []string{"dev", "stg", "prod"} {
		n := o.PerEnvironment
		if o.Sizes != [3]int{} {
			n = o.Sizes[k]
		} else if n <= 1 {
			out = append(out, env+"-cluster")
			continue
		}
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Sprintf("%s-%04d", env, i))
		}
	}
	return out
}

// Seed writes the seed's story to the hub through c: a namespace and a
// ManagedCluster for every cluster, the global ManagedClusterSet and its
// binding in the Placement's namespace (as OCM's hub has them: without a
// binding a Placement selects nothing), the cluster-proxy Placement, the
// ClusterManagementAddOn (written in v1alpha1, the version OCM's CRDs store,
// converted from the seed's v1beta1 with the API module's own conversion, so
// that its default config also survives a hub without a conversion webhook) and
// the ManagedProxyConfiguration with the agent image Image. The
// ClusterManagementAddOn keeps the seed's lifecycle annotation
// (addon-manager) unless o.Lifecycle replaces it.
func Seed(ctx context.Context, c client.Client, o SeedOptions) error {
	mcs, err := seed.ManagedClusters()
	if err != nil {
		return err
	}
	labels := make(map[string]map[string]string)
	for _, mc := range mcs {
		labels[mc.Labels["environment"]] = mc.Labels
	}
	for _, name := range o.Clusters() {
		env := name[:3]
		if env == "pro" {
			env = "prod"
		}
		mc := mcs[0].DeepCopy()
		mc.ObjectMeta = metav1.ObjectMeta{Name: name, Labels: labels[env]}
		if err := createAll(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, mc); err != nil {
			return err
		}
	}
	p, err := seed.Placement()
	if err != nil {
		return err
	}
	if err := createAll(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}, GlobalSet(), GlobalBinding(p.Namespace), p); err != nil {
		return err
	}
	cfg, err := ProxyConfig(Image)
	if err != nil {
		return err
	}
	if err := createAll(ctx, c, cfg); err != nil {
		return err
	}
	cma, err := seed.ClusterManagementAddOn()
	if err != nil {
		return err
	}
	if o.Addon != "" {
		cma.Name = o.Addon
	}
	if o.Strategy.Type != "" {
		cma.Spec.InstallStrategy.Placements[0].RolloutStrategy = o.Strategy
	}
	if o.Lifecycle != "" {
		if cma.Annotations == nil {
			cma.Annotations = map[string]string{}
		}
		cma.Annotations[hubclient.LifecycleAnnotation] = o.Lifecycle
	}
	alpha, err := AddonV1alpha1(cma)
	if err != nil {
		return err
	}
	return createAll(ctx, c, alpha)
}

// GlobalSetName is the name of the ManagedClusterSet that holds every
// cluster of an OCM hub.
const GlobalSetName = "global"

// GlobalSet returns the global ManagedClusterSet as OCM's registration
// controller creates it on every hub: a label selector that selects every
// cluster.
func GlobalSet() *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: GlobalSetName},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType:  clusterv1beta2.LabelSelector,
			LabelSelector: &metav1.LabelSelector{},
		}},
	}
}

// GlobalBinding returns the ManagedClusterSetBinding that binds the global
// set to namespace, so that the Placements there can select any cluster.
func GlobalBinding(namespace string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: GlobalSetName},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: GlobalSetName},
	}
}

// AddonV1alpha1 converts a v1beta1 ClusterManagementAddOn to v1alpha1 as
// the hub's conversion webhook does (addonversion).
func AddonV1alpha1(cma *addonv1beta1.ClusterManagementAddOn) (*addonv1alpha1.ClusterManagementAddOn, error) {
	return addonversion.ClusterManagementAddOnToV1alpha1(cma)
}

// ProxyConfig returns the seed's ManagedProxyConfiguration with both images
// set to image.
func ProxyConfig(image string) (*unstructured.Unstructured, error) {
	u, err := seed.ManagedProxyConfiguration()
	if err != nil {
		return nil, err
	}
	for _, part := range []string{"proxyServer", "proxyAgent"} {
		if err := unstructured.SetNestedField(u.Object, image, "spec", part, "image"); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// WithAgentImage returns the seed's ManagedProxyConfiguration as the hub
// has it after SetAgentImage(image): the server image is still Image.
func WithAgentImage(image string) (*unstructured.Unstructured, error) {
	u, err := ProxyConfig(Image)
	if err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedField(u.Object, image, "spec", "proxyAgent", "image"); err != nil {
		return nil, err
	}
	return u, nil
}

// SetAgentImage changes spec.proxyAgent.image of the seed's
// ManagedProxyConfiguration, the change the seed rolls out.
func SetAgentImage(ctx context.Context, c client.Client, image string) error {
	u, err := ProxyConfig(image)
	if err != nil {
		return err
	}
	patch := []byte(fmt.Sprintf(`{"spec":{"proxyAgent":{"image":%q}}}`, image))
	return c.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch))
}

// Strategy is the seed's ProgressivePerGroup strategy with the given soak,
// deadline and failure budget.
func Strategy(soak, deadline string, maxFailures int) clusterv1alpha1.RolloutStrategy {
	d, err := parseDuration(soak)
	if err != nil {
		panic(err)
	}
	return clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
			RolloutConfig: clusterv1alpha1.RolloutConfig{
				MinSuccessTime:   d,
				ProgressDeadline: deadline,
				MaxFailures:      intstr.FromInt32(int32(maxFailures)),
			},
		},
	}
}

func createAll(ctx context.Context, c client.Client, objs ...client.Object) error {
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %q: %w", o, o.GetNamespace()+"/"+o.GetName(), err)
		}
	}
	return nil
}

func parseDuration(s string) (metav1.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return metav1.Duration{}, err
	}
	return metav1.Duration{Duration: d}, nil
}
