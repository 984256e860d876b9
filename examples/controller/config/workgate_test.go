package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
)

func TestWorkGate(t *testing.T) {
	t.Parallel()
	vwc, err := config.WorkGate()
	require.NoError(t, err)
	assert.Equal(t, hubctl.WorkGateConfiguration, vwc.Name)
	require.Len(t, vwc.Webhooks, 1)
	assert.Equal(t, hubctl.WorkGateWebhook, vwc.Webhooks[0].Name)
	require.NotNil(t, vwc.Webhooks[0].ClientConfig.Service)
	assert.Equal(t, hubctl.WorkGatePath, ptr.Deref(vwc.Webhooks[0].ClientConfig.Service.Path, ""))

	at, err := config.WorkGateAt("https://127.0.0.1:9443")
	require.NoError(t, err)
	assert.Equal(t, admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:9443" + hubctl.WorkGatePath)}, at.Webhooks[0].ClientConfig)
	assert.Equal(t, vwc.Webhooks[0].Rules, at.Webhooks[0].Rules, "only the client config changes")
	assert.Equal(t, vwc.Webhooks[0].ObjectSelector, at.Webhooks[0].ObjectSelector)
}
