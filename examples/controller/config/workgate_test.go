package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/workgate"
)

func TestWorkGate(t *testing.T) {
	t.Parallel()
	vwc, err := config.WorkGate()
	require.NoError(t, err)
	assert.Equal(t, gatehook.WorkGateConfiguration, vwc.Name)
	require.Len(t, vwc.Webhooks, 2)
	gate, deletions := vwc.Webhooks[0], vwc.Webhooks[1]
	assert.Equal(t, gatehook.WorkGateWebhook, gate.Name)
	assert.Equal(t, gatehook.WorkGateDeletionWebhook, deletions.Name)
	for _, w := range vwc.Webhooks {
		require.NotNil(t, w.ClientConfig.Service, w.Name)
		assert.Equal(t, gatehook.WorkGatePath, ptr.Deref(w.ClientConfig.Service.Path, ""), w.Name)
		assert.Equal(t, workgate.Scope(nil), w.ObjectSelector, "%s: as shipped, no work until the controller scopes it", w.Name)
		assert.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, ptr.Deref(w.SideEffects, ""), w.Name)
	}
	ops := func(w admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.OperationType {
		require.Len(t, w.Rules, 1, w.Name)
		return w.Rules[0].Operations
	}
	assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, ops(gate))
	assert.Equal(t, admissionregistrationv1.Fail, ptr.Deref(gate.FailurePolicy, ""), "a taken add-on's content waits for the gate")
	assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}, ops(deletions))
	assert.Equal(t, admissionregistrationv1.Ignore, ptr.Deref(deletions.FailurePolicy, ""), "a delete passes without the gate")
	require.Len(t, gate.MatchConditions, 1)
	assert.Equal(t, "content-or-owner-changes", gate.MatchConditions[0].Name)
	assert.Empty(t, deletions.MatchConditions)

	at, err := config.WorkGateAt("https://127.0.0.1:9443")
	require.NoError(t, err)
	for i, w := range at.Webhooks {
		assert.Equal(t, admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:9443" + gatehook.WorkGatePath)}, w.ClientConfig)
		shipped := vwc.Webhooks[i]
		shipped.ClientConfig = w.ClientConfig
		assert.Equal(t, shipped, w, "only the client config changes")
	}
	scoped, changed, err := workgate.Scoped(vwc, []string{gatehook.WorkGateWebhook, gatehook.WorkGateDeletionWebhook}, []string{"cluster-proxy"})
	require.NoError(t, err)
	assert.True(t, changed)
	guarded, msg := workgate.Guards(scoped, gatehook.WorkGateWebhook, "cluster-proxy")
	assert.True(t, guarded, "the shipped gate, once scoped, guards a taken add-on: %s", msg)
}
