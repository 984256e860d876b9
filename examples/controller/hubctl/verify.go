package hubctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/clock"
)

// Verifier runs the verifications the library finds due (addonrollout.Check): a
// webhook or a Prometheus query. It is the only I/O of a verification;
// whether a result holds the rollout is the library's decision.
type Verifier struct {
	// HTTP is the client of both kinds of check. Nil: a client with no
	// timeout of its own (each check has its own).
	HTTP *http.Client
	// Clock stamps the results. Nil: the real clock.
	Clock clock.PassiveClock
}

// Run runs the checks at once, each bounded by its timeout, and returns
// their results in the checks' order.
func (v Verifier) Run(ctx context.Context, checks []addonrollout.Check) []addonrollout.CheckResult {
	out := make([]addonrollout.CheckResult, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			passed, msg := v.run(ctx, c)
			out[i] = addonrollout.CheckResult{Check: c, Passed: passed, Message: msg, At: clock.NowOf(v.Clock)}
		}()
	}
	wg.Wait()
	return out
}

// run runs one check: whether it passed, and its answer for people.
func (v Verifier) run(ctx context.Context, c addonrollout.Check) (bool, string) {
	switch spec := c.Verification; {
	case spec.Webhook != nil:
		ctx, cancel := context.WithTimeout(ctx, spec.Webhook.Timeout.Duration)
		defer cancel()
		return v.webhook(ctx, spec.Webhook.URL, c)
	case spec.Prometheus != nil:
		ctx, cancel := context.WithTimeout(ctx, spec.Prometheus.Timeout.Duration)
		defer cancel()
		return v.prometheus(ctx, spec.Prometheus.Address, spec.Prometheus.Query)
	}
	return false, "neither a webhook nor a Prometheus query"
}

func (v Verifier) client() *http.Client {
	if v.HTTP != nil {
		return v.HTTP
	}
	return http.DefaultClient
}

// webhook POSTs the check's request as JSON; a 2xx answer passes.
func (v Verifier) webhook(ctx context.Context, target string, c addonrollout.Check) (bool, string) {
	body, err := json.Marshal(c.Request)
	if err != nil {
		return false, fmt.Sprintf("webhook %s: %v", target, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Sprintf("webhook %s: %v", target, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := v.client().Do(req)
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

// promResponse is the Prometheus HTTP API's answer to an instant query.
type promResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string            `json:"resultType"`
		Result     []json.RawMessage `json:"result"`
	} `json:"data"`
}

// prometheus runs an instant query; it passes when the query returns at
// least one series. A scalar or a string is not a series: such a query
// can never pass, and its message says so.
func (v Verifier) prometheus(ctx context.Context, address, query string) (bool, string) {
	what := fmt.Sprintf("prometheus %s query %q", address, query)
	u, err := url.JoinPath(address, "/api/v1/query")
	if err != nil {
		return false, fmt.Sprintf("%s: %v", what, err)
	}
	form := url.Values{"query": {query}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return false, fmt.Sprintf("%s: %v", what, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := v.client().Do(req)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", what, err)
	}
	defer resp.Body.Close()
	var pr promResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&pr); err != nil {
		return false, fmt.Sprintf("%s: %s: not a Prometheus API answer: %v", what, resp.Status, err)
	}
	switch {
	case pr.Status != "success":
		return false, fmt.Sprintf("%s: %s: %s: %s", what, resp.Status, pr.ErrorType, pr.Error)
	case pr.Data.ResultType != "vector" && pr.Data.ResultType != "matrix":
		return false, fmt.Sprintf("%s: a %s result: want a vector (a filter such as x < 0.01)", what, pr.Data.ResultType)
	case len(pr.Data.Result) == 0:
		return false, what + ": no series"
	}
	return true, fmt.Sprintf("%s: %d series", what, len(pr.Data.Result))
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
