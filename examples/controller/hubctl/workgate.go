package hubctl

// WorkGatePath is the path the controller's webhook server serves the
// ManifestWork gate at: the clientConfig.service.path of the webhook in
// config/webhook/manifests.yaml.
const WorkGatePath = "/validate-work-open-cluster-management-io-v1-manifestwork"

// WorkGateWebhook is the name of the gate's webhook in its
// ValidatingWebhookConfiguration: the API server names it in every
// refusal ("admission webhook ... denied the request").
const WorkGateWebhook = "manifestworks.gate.rolloutkit.io"

// WorkGateConfiguration is the name of the ValidatingWebhookConfiguration
// that installs the gate on a hub.
const WorkGateConfiguration = "rolloutkit-work-gate"
