package hubplan_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// unbalanced refuses a query whose parentheses do not pair up, as a
// stand-in for Prometheus's parser.
func unbalanced(q string) error {
	if strings.Count(q, "(") != strings.Count(q, ")") {
		return errors.New("1:20: unclosed left parenthesis")
	}
	return nil
}

// TestValidateSpec: every rule ValidateSpec applies, with the path, value
// and expectation of each problem; group names are not judged, and every
// spelling the window parser takes is taken.
func TestValidateSpec(t *testing.T) {
	t.Parallel()
	webhook := &v1alpha1.WebhookCheck{URL: "https://verifier.example:8443/verify"}
	prom := &v1alpha1.PrometheusCheck{Address: "http://prometheus.example:9090", Query: "max(up) > 0"}
	window := func(days []string, start, end, zone string) v1alpha1.AddOnRolloutSpec {
		return v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: days, Start: start, End: end, TimeZone: zone}}}
	}
	check := func(v v1alpha1.Verification) v1alpha1.AddOnRolloutSpec {
		return v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{v}}
	}
	d := func(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
	token := v1alpha1.SecretKeyRef{Namespace: "rolloutkit-system", Name: "verifier-token", Key: "token"}
	tests := []struct {
		name string
		spec v1alpha1.AddOnRolloutSpec
		want []string // the errors' texts
	}{
		{"empty", v1alpha1.AddOnRolloutSpec{}, nil},
		{"groups are not judged", v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"no-such-group"},
			Windows:       []v1alpha1.RolloutWindow{{Groups: []string{"later"}, Days: []string{"Mon"}, Start: "09:00", End: "17:00"}},
			Verifications: []v1alpha1.Verification{{Groups: []string{"later"}, Webhook: webhook}}}, nil},
		{"every spelling of days and times the parser takes",
			window([]string{"mon", "TUESDAY", "Wedn-Thurs", "Fri,sat", "Sun-Mon"}, "9:05", "0:00", "Europe/Berlin"), nil},
		{"an end past midnight in UTC", window([]string{"Sat,Sun"}, "22:00", "04:00", "UTC"), nil},
		{"no days", window(nil, "09:00", "17:00", ""),
			[]string{`spec.windows[0].days: Required value: at least one day, e.g. Mon or Mon-Fri`}},
		{"a day that is not one", window([]string{"Mon", "Fry-Sun", "Mo"}, "09:00", "17:00", ""), []string{
			`spec.windows[0].days[1]: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`,
			`spec.windows[0].days[2]: Invalid value: "Mo": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`}},
		{"times that are not HH:MM", window([]string{"Mon"}, "9am", "24:00", ""), []string{
			`spec.windows[0].start: Invalid value: "9am": want HH:MM from 00:00 to 23:59`,
			`spec.windows[0].end: Invalid value: "24:00": want HH:MM from 00:00 to 23:59`}},
		{"an end at the start, written otherwise", window([]string{"Mon"}, "9:05", "09:05", ""),
			[]string{`spec.windows[0].end: Invalid value: "09:05": want a time other than the start 9:05`}},
		{"a time zone that is not one", window([]string{"Mon"}, "09:00", "17:00", "Mars/Olympus"),
			[]string{`spec.windows[0].timeZone: Invalid value: "Mars/Olympus": want an IANA name such as Europe/Berlin or UTC`}},
		{"the machine's time zone", window([]string{"Mon"}, "09:00", "17:00", "Local"),
			[]string{`spec.windows[0].timeZone: Invalid value: "Local": want an IANA name such as Europe/Berlin or UTC`}},
		{"both webhook and prometheus", check(v1alpha1.Verification{Webhook: webhook, Prometheus: prom}),
			[]string{`spec.verifications[0].prometheus: Forbidden: set only one of webhook and prometheus`}},
		{"neither", check(v1alpha1.Verification{Name: "slo"}),
			[]string{`spec.verifications[0]: Required value: one of webhook and prometheus`}},
		{"a relative URL", check(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: "verifier.example/verify"}}),
			[]string{`spec.verifications[0].webhook.url: Invalid value: "verifier.example/verify": want an absolute http or https URL, e.g. http://verifier.example:8080/verify`}},
		{"an address of another scheme", check(v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: "ftp://prometheus", Query: "up"}}),
			[]string{`spec.verifications[0].prometheus.address: Invalid value: "ftp://prometheus": want an absolute http or https URL, e.g. http://verifier.example:8080/verify`}},
		{"a URL without a host", check(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: "http:///verify"}}),
			[]string{`spec.verifications[0].webhook.url: Invalid value: "http:///verify": want an absolute http or https URL, e.g. http://verifier.example:8080/verify`}},
		{"a query that does not parse", check(v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "sum(rate(x[5m]) < 1"}}),
			[]string{`spec.verifications[0].prometheus.query: Invalid value: "sum(rate(x[5m]) < 1": 1:20: unclosed left parenthesis`}},
		{"a blank query", check(v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: " "}}),
			[]string{`spec.verifications[0].prometheus.query: Invalid value: " ": want a PromQL expression, e.g. max(addon_error_ratio) < 0.01`}},
		{"non-positive interval and timeouts", v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
			{Name: "a", Interval: d(0), Webhook: &v1alpha1.WebhookCheck{URL: webhook.URL, Timeout: d(-time.Second)}},
			{Name: "b", Interval: d(-time.Second), Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "up", Timeout: d(0)}}}}, []string{
			`spec.verifications[0].interval: Invalid value: "0s": want a positive duration, e.g. 30s`,
			`spec.verifications[0].webhook.timeout: Invalid value: "-1s": want a positive duration, e.g. 30s`,
			`spec.verifications[1].interval: Invalid value: "-1s": want a positive duration, e.g. 30s`,
			`spec.verifications[1].prometheus.timeout: Invalid value: "0s": want a positive duration, e.g. 30s`}},
		{"credentials, a CA and headers", check(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: webhook.URL,
			HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: &token,
				TLS:     &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{ConfigMapKeyRef: &v1alpha1.ConfigMapKeyRef{Namespace: "rolloutkit-system", Name: "ca", Key: "ca.crt"}}, ServerName: "verifier.example"},
				Headers: []v1alpha1.HTTPHeader{{Name: "X-Scope-OrgID", Value: ptr.To("fleet")}, {Name: "X-Api-Key", ValueFrom: &token}}}}}), nil},
		{"basic auth for Prometheus", check(v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: "https://prometheus.example:9090", Query: "up",
			BasicAuth: &v1alpha1.BasicAuth{Username: "rolloutkit", Password: token}}}), nil},
		{"a password in the URL", check(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: "https://user:hunter2@verifier.example/verify"}}),
			[]string{`spec.verifications[0].webhook.url: Invalid value: "https://user:xxxxx@verifier.example/verify": want no user or password in the URL (it is quoted in the status): give them as basicAuth, bearerToken or a header from a Secret`}},
		{"references without their parts", check(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: webhook.URL,
			HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: &v1alpha1.SecretKeyRef{Name: "Token_Secret", Key: "a/b"},
				TLS: &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{}}}}}), []string{
			`spec.verifications[0].webhook.bearerToken.namespace: Required value: the namespace (the AddOnRollout is cluster-scoped)`,
			`spec.verifications[0].webhook.bearerToken.name: Invalid value: "Token_Secret": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.verifications[0].webhook.bearerToken.key: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
			`spec.verifications[0].webhook.tls.ca: Required value: one of configMapKeyRef and secretKeyRef`}},
		{"a CA from both", check(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: webhook.URL,
			HTTPClientConfig: v1alpha1.HTTPClientConfig{TLS: &v1alpha1.TLSConfig{CA: &v1alpha1.CABundle{SecretKeyRef: &token,
				ConfigMapKeyRef: &v1alpha1.ConfigMapKeyRef{Namespace: "rolloutkit-system", Name: "ca", Key: "ca.crt"}}}}}}),
			[]string{`spec.verifications[0].webhook.tls.ca.secretKeyRef: Forbidden: set only one of configMapKeyRef and secretKeyRef`}},
		{"headers the client sets, twice, with neither or both values", check(v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "up",
			HTTPClientConfig: v1alpha1.HTTPClientConfig{Headers: []v1alpha1.HTTPHeader{
				{Name: "authorization", Value: ptr.To("Bearer x")}, {Name: "X-Tenant", Value: ptr.To("a")}, {Name: "x-tenant", ValueFrom: &token},
				{Name: "X Bad", Value: ptr.To("a\nb")}, {Name: "X-None"}, {Name: "X-Both", Value: ptr.To("a"), ValueFrom: &token}}}}}), []string{
			`spec.verifications[0].prometheus.headers[0].name: Invalid value: "authorization": want a header the client does not set itself: give a token as bearerToken (or basicAuth for Prometheus)`,
			`spec.verifications[0].prometheus.headers[2].name: Duplicate value: "x-tenant"`,
			`spec.verifications[0].prometheus.headers[3].name: Invalid value: "X Bad": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`,
			`spec.verifications[0].prometheus.headers[3].value: Invalid value: "a\nb": want a header value without line breaks or NUL`,
			`spec.verifications[0].prometheus.headers[4]: Required value: one of value and valueFrom`,
			`spec.verifications[0].prometheus.headers[5].valueFrom: Forbidden: set only one of value and valueFrom`}},
		{"basic auth beside a token, without a user", check(v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: prom.Address, Query: "up",
			HTTPClientConfig: v1alpha1.HTTPClientConfig{BearerToken: &token}, BasicAuth: &v1alpha1.BasicAuth{Password: v1alpha1.SecretKeyRef{Namespace: "rolloutkit-system", Name: "p"}}}}), []string{
			`spec.verifications[0].prometheus.basicAuth: Forbidden: set at most one of bearerToken and basicAuth`,
			`spec.verifications[0].prometheus.basicAuth.username: Required value: the user's name`,
			`spec.verifications[0].prometheus.basicAuth.password.key: Required value: a key of the object's data`}},
		{"two of one name", v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
			{Name: "slo", Webhook: webhook}, {Name: "slo", Prometheus: prom}}},
			[]string{`spec.verifications[1].name: Duplicate value: "slo": want a name of its own (spec.verifications[0] has it)`}},
		{"a name that an unnamed check takes", v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
			{Name: "verifications[1]", Webhook: webhook}, {Prometheus: prom}}},
			[]string{`spec.verifications[1].name: Duplicate value: "verifications[1]": want a name of its own (spec.verifications[0] has it)`}},
		{"unnamed checks are named apart", v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
			{Webhook: webhook}, {Prometheus: prom}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}, Spec: tt.spec}
			before := ar.DeepCopy()
			errs := hubplan.ValidateSpec(ar, unbalanced)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, before, ar, "the object is not changed")
		})
	}
}

// TestValidateSpecNil: a nil object is a problem, not a panic.
func TestValidateSpecNil(t *testing.T) {
	t.Parallel()
	errs := hubplan.ValidateSpec(nil, nil)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec: Required value: an AddOnRollout, not nil", errs[0].Error())
}
