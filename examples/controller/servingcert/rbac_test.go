package servingcert_test

import (
	"context"
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/manifests"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/servingcert"
)

// TestShippedRBAC runs a Rotator as the controller's ServiceAccount under
// the roles config/default ships for it (webhook_role.yaml) alone, on a
// test hub with the shipped gate: it creates the Secret, injects the CA,
// and, through a cache that lists and watches the configuration by name
// only, puts the CA back into a replaced configuration; it may not read
// or list other Secrets, nor patch another configuration.
func TestShippedRBAC(t *testing.T) {
	t.Parallel()
	h, admin := testhub.ForTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs, err := manifests.Render("../config/default")
	require.NoError(t, err)
	var configs []*unstructured.Unstructured // the shipped webhook configurations
	for _, o := range objs {
		switch {
		case o.GetKind() == "Namespace",
			o.GetName() == "rolloutkit-controller-webhook": // the ClusterRole, the Role and their bindings
			require.NoError(t, admin.Create(ctx, o.DeepCopy()), "%s %s", o.GetKind(), o.GetName())
		case o.GetKind() == "ValidatingWebhookConfiguration", o.GetKind() == "MutatingWebhookConfiguration":
			configs = append(configs, o)
			require.NoError(t, admin.Create(ctx, o.DeepCopy()))
		}
	}
	require.Len(t, configs, 3, "the work gate's, and admission's validating and mutating ones")
	names := []string{}
	for _, o := range configs {
		if !slices.Contains(names, o.GetName()) {
			names = append(names, o.GetName())
		}
	}
	other := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "another-gate"}}
	require.NoError(t, admin.Create(ctx, other))
	otherSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretKey.Namespace, Name: "hub-credentials"}, StringData: map[string]string{"token": "x"}}
	require.NoError(t, admin.Create(ctx, otherSecret))

	kc, err := h.KubeConfigAs("system:serviceaccount:rolloutkit-system:rolloutkit-controller", "system:serviceaccounts", "system:authenticated")
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	require.NoError(t, err)
	sa, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	require.NoError(t, err)

	dir := t.TempDir()
	o := servingcert.Options{Secret: secretKey, Hosts: hosts, CertDir: dir, Configurations: names}
	r, err := servingcert.New(sa, sa, o)
	require.NoError(t, err)
	res, err := r.Ensure(ctx)
	require.NoError(t, err)
	assert.Equal(t, servingcert.Created, res.Change)
	assert.True(t, res.Injected)
	assert.Empty(t, res.Missing)

	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	require.NoError(t, r.Watch(cs))
	go func() { _ = r.Start(ctx) }()

	var s corev1.Secret
	require.NoError(t, admin.Get(ctx, secretKey, &s))
	for _, c := range configs {
		assert.Equal(t, everyHook(c, s.Data["ca.crt"]), caBundles(t, admin, c), "%s %s", c.GetKind(), c.GetName())
	}
	// Each is replaced, without its CA, and gets it back.
	for _, c := range configs {
		require.NoError(t, admin.Delete(ctx, c.DeepCopy()))
		replaced := c.DeepCopy()
		replaced.SetResourceVersion("")
		require.NoError(t, admin.Create(ctx, replaced))
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			assert.Equal(ct, everyHook(c, s.Data["ca.crt"]), caBundles(ct, admin, c))
		}, 20*time.Second, 100*time.Millisecond, "the CA put back into the replaced %s %s: the ServiceAccount watches it by name", c.GetKind(), c.GetName())
	}

	for what, err := range map[string]error{
		"reading another Secret":         sa.Get(ctx, client.ObjectKeyFromObject(otherSecret), &corev1.Secret{}),
		"listing Secrets":                sa.List(ctx, &corev1.SecretList{}, client.InNamespace(secretKey.Namespace)),
		"patching another configuration": sa.Patch(ctx, other, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`))),
		"listing every configuration":    sa.List(ctx, &admissionregistrationv1.ValidatingWebhookConfigurationList{}),
		"listing every mutating one":     sa.List(ctx, &admissionregistrationv1.MutatingWebhookConfigurationList{}),
		"updating another Secret":        sa.Update(ctx, otherSecret.DeepCopy()),
	} {
		assert.True(t, apierrors.IsForbidden(err), "%s: %v", what, err)
	}
}

// caBundles reads o's configuration (its kind and name) with c, and
// returns the caBundle of each of its webhooks.
// everyHook is ca once for each webhook of the configuration c (the work
// gate's has two: its updates' and its deletions').
func everyHook(c *unstructured.Unstructured, ca []byte) [][]byte {
	hooks, _, _ := unstructured.NestedSlice(c.Object, "webhooks")
	return slices.Repeat([][]byte{ca}, len(hooks))
}

func caBundles(t require.TestingT, c client.Reader, o client.Object) [][]byte {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind(o.GetObjectKind().GroupVersionKind().Kind))
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(o), u))
	hooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
	require.NoError(t, err)
	var out [][]byte
	for _, h := range hooks {
		ca, _, err := unstructured.NestedString(h.(map[string]any), "clientConfig", "caBundle")
		require.NoError(t, err)
		raw, err := base64.StdEncoding.DecodeString(ca)
		require.NoError(t, err)
		out = append(out, raw)
	}
	return out
}
