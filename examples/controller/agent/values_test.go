package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/hash"
)

// deploymentConfig is an AddOnDeploymentConfig in the add-on's namespace
// with spec, and its spec hash.
func deploymentConfig(t testing.TB, spec addonv1alpha1.AddOnDeploymentConfigSpec) (*unstructured.Unstructured, string) {
	t.Helper()
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: map[string]any{"spec": raw}}
	u.SetGroupVersionKind(DeploymentConfigKind())
	u.SetNamespace(cluster)
	u.SetName("agent-settings")
	h, err := hash.Spec(u)
	require.NoError(t, err)
	return u, h
}

// TestValuesOfADeploymentConfig: an AddOnDeploymentConfig's customized
// variables become the agent's environment, in order; its node placement
// the pod's; its registries mirror the image.
func TestValuesOfADeploymentConfig(t *testing.T) {
	t.Parallel()
	tolerations := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "addons", Effect: corev1.TaintEffectNoSchedule}}
	for _, tc := range []struct {
		name  string
		spec  addonv1alpha1.AddOnDeploymentConfigSpec
		image string
		env   []corev1.EnvVar
		nodes map[string]string
		tol   []corev1.Toleration
	}{
		{name: "empty", image: oldImage},
		{name: "variables", spec: addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1alpha1.CustomizedVariable{
			{Name: "LOG_LEVEL", Value: "4"}, {Name: "CLUSTER_NAME", Value: "dev"}}},
			image: oldImage, env: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "4"}, {Name: "CLUSTER_NAME", Value: "dev"}}},
		{name: "node placement", spec: addonv1alpha1.AddOnDeploymentConfigSpec{NodePlacement: &addonv1alpha1.NodePlacement{
			NodeSelector: map[string]string{"node-role.kubernetes.io/infra": ""}, Tolerations: tolerations}},
			image: oldImage, nodes: map[string]string{"node-role.kubernetes.io/infra": ""}, tol: tolerations},
		{name: "a mirror of the image's registry", spec: addonv1alpha1.AddOnDeploymentConfigSpec{Registries: []addonv1alpha1.ImageMirror{
			{Source: "quay.io/other", Mirror: "mirror.example/other"}, {Source: "quay.io/open-cluster-management", Mirror: "mirror.example/ocm"}}},
			image: "mirror.example/ocm/cluster-proxy:v0.9.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy, _ := proxyConfig(t, oldImage)
			adc, _ := deploymentConfig(t, tc.spec)
			var v values
			require.NoError(t, v.add(proxy))
			require.NoError(t, v.add(adc))
			pod := agentDeployment(addonNm, v, 1).Spec.Template.Spec
			assert.Equal(t, tc.image, pod.Containers[0].Image)
			assert.Equal(t, tc.env, pod.Containers[0].Env)
			assert.Equal(t, tc.nodes, pod.NodeSelector)
			assert.Equal(t, tc.tol, pod.Tolerations)
		})
	}
}

// TestDeployerRendersADeploymentConfigChange: an add-on whose configs are
// the proxy config and an AddOnDeploymentConfig gets a work whose agent
// carries the ADC's variables; when the ADC's desired spec changes, the
// work's content changes with it, not only its config-spec-hash
// annotation, so the work agent applies something.
func TestDeployerRendersADeploymentConfigChange(t *testing.T) {
	t.Parallel()
	proxy, proxyHash := proxyConfig(t, oldImage)
	before, beforeHash := deploymentConfig(t, addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1alpha1.CustomizedVariable{{Name: "LOG_LEVEL", Value: "2"}}})
	after, afterHash := deploymentConfig(t, addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1alpha1.CustomizedVariable{{Name: "LOG_LEVEL", Value: "4"}}})
	withADC := func(adcHash string) *addonv1alpha1.ManagedClusterAddOn {
		m := mca(proxyHash)
		m.Status.ConfigReferences = append(m.Status.ConfigReferences, addonv1alpha1.ConfigReference{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"},
			DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: cluster, Name: "agent-settings"}, SpecHash: adcHash},
		})
		return m
	}
	ctx := context.Background()
	c := newClient(t, proxy, before, withADC(beforeHash))
	_, err := newDeployer(c).Reconcile(ctx, request(cluster, addonNm))
	require.NoError(t, err)
	first, ok := getWork(t, c)
	require.True(t, ok, "no work rendered")
	deployments, err := workDeployments(first)
	require.NoError(t, err)
	require.Len(t, deployments, 1)
	assert.Equal(t, []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "2"}}, deployments[0].Spec.Template.Spec.Containers[0].Env)

	stored := before.DeepCopy()
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(before), stored))
	stored.Object["spec"] = after.Object["spec"]
	require.NoError(t, c.Update(ctx, stored))
	m := getMCA(t, c)
	m.Status.ConfigReferences[1].DesiredConfig.SpecHash = afterHash
	require.NoError(t, c.Status().Update(ctx, m))
	_, err = newDeployer(c).Reconcile(ctx, request(cluster, addonNm))
	require.NoError(t, err)
	second, _ := getWork(t, c)
	deployments, err = workDeployments(second)
	require.NoError(t, err)
	assert.Equal(t, []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "4"}}, deployments[0].Spec.Template.Spec.Containers[0].Env)
	assert.NotEqual(t, first.Spec, second.Spec, "the ADC's change changed the work's content")
	images, err := WorkImages(second)
	require.NoError(t, err)
	assert.Equal(t, []string{oldImage}, images, "the image is the proxy config's still")
}
