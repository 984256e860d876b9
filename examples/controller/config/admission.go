package config

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

//go:embed webhook/admission.yaml
var admissionFile []byte

// Admission returns admission's two webhook configurations as
// webhook/admission.yaml ships them, decoded afresh: the AddOnRollouts'
// validation and the RolloutApprovals' approver. The caller may modify
// them.
func Admission() (*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration, error) {
	const file = "config/webhook/admission.yaml"
	var vwc *admissionregistrationv1.ValidatingWebhookConfiguration
	var mwc *admissionregistrationv1.MutatingWebhookConfiguration
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(admissionFile)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		switch meta.Kind {
		case "ValidatingWebhookConfiguration":
			vwc = &admissionregistrationv1.ValidatingWebhookConfiguration{}
			err = yaml.UnmarshalStrict(doc, vwc)
		case "MutatingWebhookConfiguration":
			mwc = &admissionregistrationv1.MutatingWebhookConfiguration{}
			err = yaml.UnmarshalStrict(doc, mwc)
		default:
			err = fmt.Errorf("unexpected kind %q: want the two webhook configurations", meta.Kind)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	if vwc == nil || mwc == nil {
		return nil, nil, fmt.Errorf("%s: want a ValidatingWebhookConfiguration and a MutatingWebhookConfiguration", file)
	}
	return vwc, mwc, nil
}

// AdmissionAt returns admission's configurations with every webhook
// calling base (such as https://127.0.0.1:9443) at its service's path
// instead of the in-cluster Service, and no CA, as WorkGateAt does the
// work gate's.
func AdmissionAt(base string) (*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration, error) {
	vwc, mwc, err := Admission()
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	for i := range vwc.Webhooks {
		errs = append(errs, callAt(base, vwc.Webhooks[i].Name, &vwc.Webhooks[i].ClientConfig))
	}
	for i := range mwc.Webhooks {
		errs = append(errs, callAt(base, mwc.Webhooks[i].Name, &mwc.Webhooks[i].ClientConfig))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return vwc, mwc, nil
}

// callAt points cc, the client config of the webhook name, at base and
// its service's path.
func callAt(base, name string, cc *admissionregistrationv1.WebhookClientConfig) error {
	if cc.Service == nil || cc.Service.Path == nil {
		return fmt.Errorf("config/webhook: webhook %s calls no service path", name)
	}
	url := base + *cc.Service.Path
	*cc = admissionregistrationv1.WebhookClientConfig{URL: &url}
	return nil
}
