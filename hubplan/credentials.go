package hubplan

import (
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// reservedHeader is whether a check may not set the header of canonical
// name h in headers: one of the connection and the body, which the HTTP
// client sets, or of authentication, which bearerToken and basicAuth set.
// They are the generic part of Prometheus's
// (common/config.ReservedHeaders), which the controller's client refuses
// too.
func reservedHeader(h string) bool {
	switch h {
	case "Authorization", "Proxy-Authorization", "Host", "Content-Encoding", "Content-Length", "Content-Type",
		"User-Agent", "Connection", "Keep-Alive", "Proxy-Authenticate", "Www-Authenticate", "Accept-Encoding",
		"Transfer-Encoding":
		return true
	}
	return false
}

// endpointErrors returns the problems of a check's endpoint at path: its
// URL (at path.urlField) and its HTTP client configuration.
func endpointErrors(path *field.Path, urlField, target string, cfg v1alpha1.HTTPClientConfig) []error {
	var errs []error
	if msg := httpURL(target); msg != "" {
		errs = append(errs, field.Invalid(path.Child(urlField), target, msg))
	} else if u, _ := url.Parse(target); u.User != nil { // parsed without an error by httpURL
		// Not the URL's text: it holds the password. A URL is quoted in
		// check results, which are written to the status.
		errs = append(errs, field.Invalid(path.Child(urlField), u.Redacted(),
			"want no user or password in the URL (it is quoted in the status): give them as basicAuth, bearerToken or a header from a Secret"))
	}
	if cfg.BearerToken != nil {
		errs = append(errs, secretRefErrors(path.Child("bearerToken"), *cfg.BearerToken)...)
	}
	if t := cfg.TLS; t != nil {
		errs = append(errs, tlsErrors(path.Child("tls"), *t)...)
	}
	seen := make(map[string]bool, len(cfg.Headers))
	for i, h := range cfg.Headers {
		errs = append(errs, headerErrors(path.Child("headers").Index(i), h, seen)...)
	}
	return errs
}

// basicAuthErrors returns the problems of a Prometheus check's basic
// authentication at path, beside its bearer token (nil: none).
func basicAuthErrors(path *field.Path, a *v1alpha1.BasicAuth, token *v1alpha1.SecretKeyRef) []error {
	if a == nil {
		return nil
	}
	var errs []error
	if token != nil {
		errs = append(errs, field.Forbidden(path, "set at most one of bearerToken and basicAuth"))
	}
	if a.Username == "" {
		errs = append(errs, field.Required(path.Child("username"), "the user's name"))
	}
	return append(errs, secretRefErrors(path.Child("password"), a.Password)...)
}

// tlsErrors returns the problems of a check's TLS configuration at path.
func tlsErrors(path *field.Path, t v1alpha1.TLSConfig) []error {
	var errs []error
	if t.ServerName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(t.ServerName) {
			errs = append(errs, field.Invalid(path.Child("serverName"), t.ServerName, msg))
		}
	}
	if t.CA == nil {
		return errs
	}
	p := path.Child("ca")
	switch ca := t.CA; {
	case ca.ConfigMapKeyRef == nil && ca.SecretKeyRef == nil:
		errs = append(errs, field.Required(p, "one of configMapKeyRef and secretKeyRef"))
	case ca.ConfigMapKeyRef != nil && ca.SecretKeyRef != nil:
		errs = append(errs, field.Forbidden(p.Child("secretKeyRef"), "set only one of configMapKeyRef and secretKeyRef"))
	case ca.ConfigMapKeyRef != nil:
		r := ca.ConfigMapKeyRef
		errs = append(errs, refErrors(p.Child("configMapKeyRef"), r.Namespace, r.Name, r.Key)...)
	default:
		errs = append(errs, secretRefErrors(p.Child("secretKeyRef"), *ca.SecretKeyRef)...)
	}
	return errs
}

// headerErrors returns the problems of header h at path; seen holds the
// canonical names of the headers before it, and gets h's.
func headerErrors(path *field.Path, h v1alpha1.HTTPHeader, seen map[string]bool) []error {
	var errs []error
	canonical := http.CanonicalHeaderKey(h.Name)
	switch msgs := validation.IsHTTPHeaderName(h.Name); {
	case len(msgs) > 0:
		errs = append(errs, field.Invalid(path.Child("name"), h.Name, strings.Join(msgs, "; ")))
	case reservedHeader(canonical):
		errs = append(errs, field.Invalid(path.Child("name"), h.Name,
			"want a header the client does not set itself: give a token as bearerToken (or basicAuth for Prometheus)"))
	case seen[canonical]:
		errs = append(errs, field.Duplicate(path.Child("name"), h.Name))
	}
	seen[canonical] = true
	switch {
	case h.Value == nil && h.ValueFrom == nil:
		errs = append(errs, field.Required(path, "one of value and valueFrom"))
	case h.Value != nil && h.ValueFrom != nil:
		errs = append(errs, field.Forbidden(path.Child("valueFrom"), "set only one of value and valueFrom"))
	case h.Value != nil && strings.ContainsAny(*h.Value, "\r\n\x00"):
		errs = append(errs, field.Invalid(path.Child("value"), *h.Value, "want a header value without line breaks or NUL"))
	case h.ValueFrom != nil:
		errs = append(errs, secretRefErrors(path.Child("valueFrom"), *h.ValueFrom)...)
	}
	return errs
}

// secretRefErrors returns the problems of a reference to a Secret's key.
func secretRefErrors(path *field.Path, r v1alpha1.SecretKeyRef) []error {
	return refErrors(path, r.Namespace, r.Name, r.Key)
}

// refErrors returns the problems of a reference to a key of a namespaced
// object at path: each part is required and must be a valid name.
func refErrors(path *field.Path, namespace, name, key string) []error {
	var errs []error
	check := func(child, value, what string, valid func(string) []string) {
		p := path.Child(child)
		if value == "" {
			errs = append(errs, field.Required(p, what))
			return
		}
		for _, msg := range valid(value) {
			errs = append(errs, field.Invalid(p, value, msg))
		}
	}
	check("namespace", namespace, "the namespace (the AddOnRollout is cluster-scoped)", validation.IsDNS1123Label)
	check("name", name, "the object's name", validation.IsDNS1123Subdomain)
	check("key", key, "a key of the object's data", validation.IsConfigMapKey)
	return errs
}
