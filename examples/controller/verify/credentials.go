package verify

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/common/config"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// CredentialLabel is the label a Secret must have, with the value "true",
// for a check to use it. Whoever may write AddOnRollouts may send a
// credential to any URL they name; the label keeps the other Secrets of
// an allowed namespace (the webhook server's key, say) out of their reach.
const CredentialLabel = "rolloutkit.io/verification-credential"

// Credentials reads the Secrets and ConfigMaps that checks reference, by
// name, in the namespaces it allows, and makes the HTTP client of a check
// from them with Prometheus's http_config (github.com/prometheus/common/
// config).
type Credentials struct {
	// Reader reads the objects: an uncached one (a manager's
	// GetAPIReader), so that reading a Secret needs only get, and no
	// Secret the checks do not name is listed, watched or kept in memory.
	Reader client.Reader
	// Namespaces are the namespaces references may name
	// (-verification-secret-namespaces). None: no reference is read.
	Namespaces []string
}

// secrets are the credential values read for one check, which its
// message must never quote.
type secrets []string

// redact replaces every credential value in msg, in case an endpoint
// echoes one back in the answer a message quotes.
func (s secrets) redact(msg string) string {
	for _, v := range s {
		if v != "" {
			msg = strings.ReplaceAll(msg, v, "<redacted>")
		}
	}
	return msg
}

// httpClient is the client of a check whose endpoint takes cfg (and basic,
// for Prometheus; nil: none): the credentials and CA read from the
// references, sent only to the URL the check names (no redirect is
// followed). The error names the reference that could not be read.
func (c Credentials) httpClient(ctx context.Context, cfg v1alpha1.HTTPClientConfig, basic *v1alpha1.BasicAuth) (*http.Client, secrets, error) {
	pc := config.DefaultHTTPClientConfig
	pc.FollowRedirects = false
	var read secrets
	secret := func(path string, r v1alpha1.SecretKeyRef) (config.Secret, error) {
		v, err := c.secret(ctx, r)
		read = append(read, v)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return config.Secret(v), nil
	}
	var err error
	if cfg.BearerToken != nil {
		pc.Authorization = &config.Authorization{Type: "Bearer"}
		if pc.Authorization.Credentials, err = secret("bearerToken", *cfg.BearerToken); err != nil {
			return nil, read, err
		}
	}
	if basic != nil {
		pc.BasicAuth = &config.BasicAuth{Username: basic.Username}
		if pc.BasicAuth.Password, err = secret("basicAuth.password", basic.Password); err != nil {
			return nil, read, err
		}
	}
	if pc.TLSConfig, err = c.tls(ctx, cfg.TLS); err != nil {
		return nil, read, err
	}
	if len(cfg.Headers) > 0 {
		pc.HTTPHeaders = &config.Headers{Headers: make(map[string]config.Header, len(cfg.Headers))}
	}
	for i, h := range cfg.Headers {
		var hv config.Header
		if h.ValueFrom == nil {
			hv.Values = []string{ptrValue(h.Value)}
		} else {
			v, err := secret(fmt.Sprintf("headers[%d].valueFrom", i), *h.ValueFrom)
			if err != nil {
				return nil, read, err
			}
			hv.Secrets = []config.Secret{v}
		}
		pc.HTTPHeaders.Headers[h.Name] = hv
	}
	return c.newClient(ctx, pc, read)
}

// newClient makes the client of pc, whose credentials are read.
func (Credentials) newClient(ctx context.Context, pc config.HTTPClientConfig, read secrets) (*http.Client, secrets, error) {
	if err := pc.Validate(); err != nil {
		return nil, read, err
	}
	rt, err := config.NewRoundTripperFromConfigWithContext(ctx, pc, "rolloutkit-verification")
	if err != nil {
		return nil, read, err
	}
	return &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, read, nil
}

// tls is the TLS configuration of t (nil: the system roots).
func (c Credentials) tls(ctx context.Context, t *v1alpha1.TLSConfig) (config.TLSConfig, error) {
	if t == nil {
		return config.TLSConfig{}, nil
	}
	out := config.TLSConfig{ServerName: t.ServerName}
	var err error
	switch ca := t.CA; {
	case ca == nil:
	case ca.ConfigMapKeyRef != nil:
		out.CA, err = c.configMap(ctx, *ca.ConfigMapKeyRef)
	case ca.SecretKeyRef != nil:
		out.CA, err = c.secret(ctx, *ca.SecretKeyRef)
	}
	if err != nil {
		return out, fmt.Errorf("tls.ca: %w", err)
	}
	return out, nil
}

// secret is the value of r's key, from a Secret labelled CredentialLabel.
func (c Credentials) secret(ctx context.Context, r v1alpha1.SecretKeyRef) (string, error) {
	var s corev1.Secret
	if err := c.get(ctx, "secret", r.Namespace, r.Name, &s); err != nil {
		return "", err
	}
	if s.Labels[CredentialLabel] != "true" {
		return "", fmt.Errorf("secret %s/%s: want the label %s=true on it: a check uses only a Secret meant for checks", r.Namespace, r.Name, CredentialLabel)
	}
	v, ok := s.Data[r.Key]
	if !ok {
		return "", fmt.Errorf("secret %s/%s has no key %q", r.Namespace, r.Name, r.Key)
	}
	return string(v), nil
}

// configMap is the value of r's key.
func (c Credentials) configMap(ctx context.Context, r v1alpha1.ConfigMapKeyRef) (string, error) {
	var cm corev1.ConfigMap
	if err := c.get(ctx, "configmap", r.Namespace, r.Name, &cm); err != nil {
		return "", err
	}
	v, ok := cm.Data[r.Key]
	if !ok {
		return "", fmt.Errorf("configmap %s/%s has no key %q", r.Namespace, r.Name, r.Key)
	}
	return v, nil
}

// get reads the object kind namespace/name into obj, if its namespace is
// allowed. The errors are the API server's, which quote no data.
func (c Credentials) get(ctx context.Context, kind, namespace, name string, obj client.Object) error {
	if !slices.Contains(c.Namespaces, namespace) {
		return fmt.Errorf("%s %s/%s: namespace %q is not one the controller reads credentials from (-verification-secret-namespaces: %s)",
			kind, namespace, name, namespace, allowedText(c.Namespaces))
	}
	if c.Reader == nil {
		return fmt.Errorf("%s %s/%s: the controller reads no credentials", kind, namespace, name)
	}
	err := c.Reader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, obj)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s %s/%s not found", kind, namespace, name)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s %s/%s: the controller may not get it (its Role in %s): %w", kind, namespace, name, namespace, err)
	case err != nil:
		return fmt.Errorf("%s %s/%s: %w", kind, namespace, name, err)
	}
	return nil
}

// allowedText lists the allowed namespaces for a message.
func allowedText(namespaces []string) string {
	if len(namespaces) == 0 {
		return "none"
	}
	return strings.Join(namespaces, ",")
}

// ptrValue is *s, or "" for nil.
func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
