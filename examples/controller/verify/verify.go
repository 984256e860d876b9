package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// Verifier runs the verifications the library finds due (hubplan.Check): a
// webhook or a Prometheus query. It is the only I/O of a verification;
// whether a result holds the rollout is the library's decision.
type Verifier struct {
	// HTTP is the client of both kinds of check. Nil: a client with no
	// timeout of its own (each check has its own).
	HTTP *http.Client
	// Clock stamps the results. Nil: the real clock.
	Clock clock.PassiveClock
	// Credentials reads what a check with credentials, a CA or headers
	// references, and makes its client in place of HTTP. Its zero value
	// reads nothing: such a check fails, naming the reference.
	Credentials Credentials
}

// Run runs the checks at once, each bounded by its timeout, and returns
// their results in the checks' order.
func (v Verifier) Run(ctx context.Context, checks []hubplan.Check) []hubplan.CheckResult {
	out := make([]hubplan.CheckResult, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			passed, msg := v.run(ctx, c)
			out[i] = hubplan.CheckResult{Check: c, Passed: passed, Message: msg, At: clock.NowOf(v.Clock)}
		}()
	}
	wg.Wait()
	return out
}

// run runs one check: whether it passed, and its answer for people,
// which quotes no credential.
func (v Verifier) run(ctx context.Context, c hubplan.Check) (bool, string) {
	switch spec := c.Verification; {
	case spec.Webhook != nil:
		ctx, cancel := context.WithTimeout(ctx, spec.Webhook.Timeout.Duration)
		defer cancel()
		hc, read, err := v.clientFor(ctx, spec.Webhook.HTTPClientConfig, nil)
		if err != nil {
			return false, read.redact(fmt.Sprintf("webhook %s: %v", spec.Webhook.URL, err))
		}
		defer hc.CloseIdleConnections()
		passed, msg := v.webhook(ctx, hc, spec.Webhook.URL, c)
		return passed, read.redact(msg)
	case spec.Prometheus != nil:
		p := spec.Prometheus
		ctx, cancel := context.WithTimeout(ctx, p.Timeout.Duration)
		defer cancel()
		hc, read, err := v.clientFor(ctx, p.HTTPClientConfig, p.BasicAuth)
		if err != nil {
			return false, read.redact(fmt.Sprintf("prometheus %s query %q: %v", p.Address, p.Query, err))
		}
		defer hc.CloseIdleConnections()
		passed, msg := v.prometheus(ctx, hc, p.Address, p.Query)
		return passed, read.redact(msg)
	}
	return false, "neither a webhook nor a Prometheus query"
}

// clientFor is the client of a check whose endpoint takes cfg and basic:
// v's own when it takes neither, else one Credentials makes, with the
// credential values it read.
func (v Verifier) clientFor(ctx context.Context, cfg v1alpha1.HTTPClientConfig, basic *v1alpha1.BasicAuth) (*http.Client, secrets, error) {
	if basic == nil && cfg.BearerToken == nil && cfg.TLS == nil && len(cfg.Headers) == 0 {
		return v.client(), nil, nil
	}
	return v.Credentials.httpClient(ctx, cfg, basic)
}

func (v Verifier) client() *http.Client {
	if v.HTTP != nil {
		return v.HTTP
	}
	return http.DefaultClient
}

// webhook POSTs the check's request as JSON; a 2xx answer passes.
func (v Verifier) webhook(ctx context.Context, hc *http.Client, target string, c hubplan.Check) (bool, string) {
	body, err := json.Marshal(c.Request)
	if err != nil {
		return false, fmt.Sprintf("webhook %s: %v", target, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Sprintf("webhook %s: %v", target, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Sprintf("webhook %s: %v", target, err)
	}
	defer resp.Body.Close()
	answer := firstLine(resp.Body)
	msg := fmt.Sprintf("webhook %s: %s", target, resp.Status)
	if answer != "" {
		msg += ": " + answer
	}
	return resp.StatusCode >= 200 && resp.StatusCode < 300, msg
}

// prometheus runs an instant query; it passes when the query returns at
// least one series. A scalar or a string is not a series: such a query
// can never pass, and its message says so (for a string, the client's
// bad_response). A failure quotes the server's answer: its HTTP status
// and the API's error type and message.
func (Verifier) prometheus(ctx context.Context, hc *http.Client, address, query string) (bool, string) {
	what := fmt.Sprintf("prometheus %s query %q", address, query)
	c, err := api.NewClient(api.Config{Address: address, Client: hc})
	if err != nil {
		return false, fmt.Sprintf("%s: %v", what, err)
	}
	status := &statusOf{Client: c}
	value, _, _, err := promv1.NewAPI(status).Query(ctx, query, time.Time{}) // without its warnings and infos
	if err != nil {
		return false, fmt.Sprintf("%s: %s", what, status.explain(err))
	}
	var series int
	switch value := value.(type) {
	case model.Vector:
		series = len(value)
	case model.Matrix:
		series = len(value)
	case nil:
		return false, what + ": a success without a result"
	default:
		return false, fmt.Sprintf("%s: a %s result: want a vector (a filter such as x < 0.01)", what, value.Type())
	}
	if series == 0 {
		return false, what + ": no series"
	}
	return true, fmt.Sprintf("%s: %d series", what, series)
}

// statusOf is an api.Client that keeps the HTTP status of the last
// answer, which the v1 API does not return and a check's message quotes.
type statusOf struct {
	api.Client
	status string
}

// Do sends req, as api.Client does, and keeps the answer's status.
func (s *statusOf) Do(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	resp, body, err := s.Client.Do(ctx, req)
	if resp != nil {
		s.status = resp.Status
	}
	return resp, body, err
}

// explain describes a failed query: the answer's status and the API's
// error (bad_response for a body the client cannot read, such as a string
// result), or the first line of an answer that is not the API's (a
// proxy's error page, say).
func (s *statusOf) explain(err error) string {
	var apiErr *promv1.Error
	switch {
	case !errors.As(err, &apiErr):
		return err.Error() // no answer: the request failed or timed out
	case apiErr.Detail != "":
		return fmt.Sprintf("%s: not a Prometheus API answer: %s", s.status, firstLine(strings.NewReader(apiErr.Detail)))
	}
	return fmt.Sprintf("%s: %v", s.status, err)
}

// firstLine is the first line of an answer's body, at most 200 bytes.
func firstLine(r io.Reader) string {
	b, err := io.ReadAll(io.LimitReader(r, 200))
	if err != nil && len(b) == 0 {
		return ""
	}
	s, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(s)
}
