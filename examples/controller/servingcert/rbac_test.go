package servingcert_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
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
	var gate client.Object
	for _, o := range objs {
		switch {
		case o.GetKind() == "Namespace",
			o.GetName() == "rolloutkit-controller-webhook": // the ClusterRole, the Role and their bindings
			require.NoError(t, admin.Create(ctx, o.DeepCopy()), "%s %s", o.GetKind(), o.GetName())
		case o.GetKind() == "ValidatingWebhookConfiguration":
			gate = o
			require.NoError(t, admin.Create(ctx, o.DeepCopy()))
		}
	}
	require.NotNil(t, gate)
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
	o := servingcert.Options{Secret: secretKey, Hosts: hosts, CertDir: dir, Configuration: gate.GetName()}
	r, err := servingcert.New(sa, sa, o)
	require.NoError(t, err)
	res, err := r.Ensure(ctx)
	require.NoError(t, err)
	assert.Equal(t, servingcert.Created, res.Change)
	assert.True(t, res.Injected)

	informers, err := cache.New(cfg, cache.Options{Scheme: admin.Scheme(), ByObject: map[client.Object]cache.ByObject{
		&admissionregistrationv1.ValidatingWebhookConfiguration{}: {Field: fields.OneTermEqualSelector("metadata.name", gate.GetName())}}})
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, informers))
	go func() { _ = informers.Start(ctx) }()
	require.True(t, informers.WaitForCacheSync(ctx), "the ServiceAccount lists and watches the configuration by name")
	go func() { _ = r.Start(ctx) }()

	var s corev1.Secret
	require.NoError(t, admin.Get(ctx, secretKey, &s))
	require.NoError(t, admin.Delete(ctx, gate.DeepCopyObject().(client.Object)))
	replaced := gate.DeepCopyObject().(client.Object)
	replaced.SetResourceVersion("")
	require.NoError(t, admin.Create(ctx, replaced))
	require.Eventually(t, func() bool {
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		return admin.Get(ctx, types.NamespacedName{Name: gate.GetName()}, &vwc) == nil && bytes.Equal(vwc.Webhooks[0].ClientConfig.CABundle, s.Data["ca.crt"])
	}, 20*time.Second, 100*time.Millisecond, "the CA put back into the replaced configuration")

	for what, err := range map[string]error{
		"reading another Secret":         sa.Get(ctx, client.ObjectKeyFromObject(otherSecret), &corev1.Secret{}),
		"listing Secrets":                sa.List(ctx, &corev1.SecretList{}, client.InNamespace(secretKey.Namespace)),
		"patching another configuration": sa.Patch(ctx, other, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`))),
		"listing every configuration":    sa.List(ctx, &admissionregistrationv1.ValidatingWebhookConfigurationList{}),
		"updating another Secret":        sa.Update(ctx, otherSecret.DeepCopy()),
	} {
		assert.True(t, apierrors.IsForbidden(err), "%s: %v", what, err)
	}
}
