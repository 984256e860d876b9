package config

import (
	_ "embed"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"
)

//go:embed webhook/manifests.yaml
var workGateFile []byte

// WorkGate returns the work gate's ValidatingWebhookConfiguration as
// webhook/manifests.yaml ships it, decoded afresh: the caller may modify
// it (a test hub points its clientConfig at a URL, say).
func WorkGate() (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := yaml.UnmarshalStrict(workGateFile, &vwc); err != nil {
		return nil, fmt.Errorf("config/webhook/manifests.yaml: %w", err)
	}
	return &vwc, nil
}

// WorkGateAt returns the work gate's configuration with every webhook
// calling base (such as https://127.0.0.1:9443) at its service's path
// instead of the in-cluster Service, and no CA: for a hub whose API
// server reaches the controller directly, where the controller puts its
// own CA in (-webhook-cert-secret).
func WorkGateAt(base string) (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	vwc, err := WorkGate()
	if err != nil {
		return nil, err
	}
	for i := range vwc.Webhooks {
		if err := callAt(base, vwc.Webhooks[i].Name, &vwc.Webhooks[i].ClientConfig); err != nil {
			return nil, err
		}
	}
	return vwc, nil
}
