package rollouthook

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// namespaceErrors refuses every reference of spec's checks to a Secret or
// a ConfigMap in a namespace not in allowed: the controller would not
// read it, and the check would fail at every run.
func namespaceErrors(spec v1alpha1.AddOnRolloutSpec, allowed []string) field.ErrorList {
	var errs field.ErrorList
	refer := func(path *field.Path, namespace string) {
		if namespace != "" && !slices.Contains(allowed, namespace) { // an empty one is ValidateSpec's
			want := "none"
			if len(allowed) > 0 {
				want = strings.Join(allowed, ",")
			}
			errs = append(errs, field.Invalid(path.Child("namespace"), namespace,
				fmt.Sprintf("want a namespace the controller reads credentials from (-verification-secret-namespaces: %s)", want)))
		}
	}
	for i, v := range spec.Verifications {
		path := field.NewPath("spec", "verifications").Index(i)
		switch {
		case v.Webhook != nil:
			httpConfigRefs(path.Child("webhook"), v.Webhook.HTTPClientConfig, refer)
		case v.Prometheus != nil:
			p := path.Child("prometheus")
			httpConfigRefs(p, v.Prometheus.HTTPClientConfig, refer)
			if a := v.Prometheus.BasicAuth; a != nil {
				refer(p.Child("basicAuth", "password"), a.Password.Namespace)
			}
		}
	}
	return errs
}

// httpConfigRefs calls refer with the path and namespace of each
// reference of cfg, at path.
func httpConfigRefs(path *field.Path, cfg v1alpha1.HTTPClientConfig, refer func(*field.Path, string)) {
	if cfg.BearerToken != nil {
		refer(path.Child("bearerToken"), cfg.BearerToken.Namespace)
	}
	if cfg.TLS != nil && cfg.TLS.CA != nil {
		if r := cfg.TLS.CA.ConfigMapKeyRef; r != nil {
			refer(path.Child("tls", "ca", "configMapKeyRef"), r.Namespace)
		}
		if r := cfg.TLS.CA.SecretKeyRef; r != nil {
			refer(path.Child("tls", "ca", "secretKeyRef"), r.Namespace)
		}
	}
	for i, h := range cfg.Headers {
		if h.ValueFrom != nil {
			refer(path.Child("headers").Index(i).Child("valueFrom"), h.ValueFrom.Namespace)
		}
	}
}
