package main

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
)

// TestRunAdmission runs the controller as the Deployment does, but with
// -addons=false, on a hub where admission's shipped configurations are
// installed without a CA and calling it directly: the webhook server
// serves admission without the work gate, the controller puts its CA into
// both configurations (the default -webhook-configuration), and the API
// server then refuses an invalid AddOnRollout and records an approval's
// creator.
func TestRunAdmission(t *testing.T) {
	t.Parallel()
	kubeconfig, c := hubFor(t)
	ctx := context.Background()
	addr, probe := hubtest.FreeAddr(t), hubtest.FreeAddr(t)
	vwc, mwc, err := config.AdmissionAt("https://" + addr)
	require.NoError(t, err)
	require.NoError(t, c.Create(ctx, vwc))
	require.NoError(t, c.Create(ctx, mwc))

	logs, stop := startController(t, "-kubeconfig", kubeconfig, "-addons=false", "-placements", "-health-probe-bind-address", probe, "-webhook-bind-address", addr,
		"-webhook-cert-dir", filepath.Join(t.TempDir(), "certs"), "-webhook-cert-secret", "default/rolloutkit-webhook-cert", "-webhook-cert-hosts", "127.0.0.1")
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 60*time.Second, 200*time.Millisecond, "not ready within 60s: %s", logs.String())

	bad := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}, Spec: v1alpha1.AddOnRolloutSpec{
		Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Europe/Berln"}}}}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		err := c.Create(ctx, bad.DeepCopy())
		if assert.Error(ct, err) {
			assert.Contains(ct, err.Error(), `admission webhook "addonrollouts.rolloutkit.io" denied the request`)
			assert.Contains(ct, err.Error(), `spec.windows[0].timeZone: Invalid value: "Europe/Berln"`)
		}
	}, 30*time.Second, 200*time.Millisecond, "the AddOnRollouts' webhook answers: %s", logs.String())
	a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy", Group: "prod", Revision: "r1", Username: "someone-else"}}
	require.NoError(t, c.Create(ctx, a))
	assert.NotEqual(t, "someone-else", a.Spec.Username, "the approval records who created it")
	assert.NotEmpty(t, a.Spec.Username)

	var got admissionregistrationv1.MutatingWebhookConfiguration
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: rollouthook.AdmissionConfiguration}, &got))
	assert.NotEmpty(t, got.Webhooks[0].ClientConfig.CABundle, "the CA in the mutating configuration")
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: rollouthook.AdmissionConfiguration}, &v))
	assert.Equal(t, got.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle, "the same CA in the validating one")

	assert.Equal(t, 0, stop(), logs.String())
	assert.NotContains(t, logs.String(), gatehook.WorkGatePath, "no work gate without -addons")
}
