package verify

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestVerifierPrometheusAnswers: what a Prometheus check makes of answers
// beyond an instant vector (TestVerifierPrometheus): a range vector's
// series pass; a string never does (the client refuses it); an answer
// that is not the API's, a server that is not there and one slower than
// the check's timeout fail, and the message says which.
func TestVerifierPrometheusAnswers(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ParseForm() != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch r.Form.Get("query") {
		case "matrix":
			_, _ = io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[`+
				`{"metric":{"a":"1"},"values":[[1,"1"]]},{"metric":{"a":"2"},"values":[[1,"2"]]}]}}`)
		case "string":
			_, _ = io.WriteString(w, `{"status":"success","data":{"resultType":"string","result":[1,"up"]}}`)
		case "nothing":
			_, _ = io.WriteString(w, `{"status":"success"}`)
		case "proxy":
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html>upstream gone</html>\n<body>")
		case "html":
			_, _ = io.WriteString(w, "<html>a login page</html>")
		case "slow":
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, tc := range []struct {
		name, address, query string
		passed               bool
		msg                  string
	}{
		{"range vector", srv.URL, "matrix", true, `query "matrix": 2 series`},
		{"string", srv.URL, "string", false, `200 OK: bad_response: unexpected value type "string"`},
		{"no result", srv.URL, "nothing", false, "a success without a result"},
		{"proxy error", srv.URL, "proxy", false, "502 Bad Gateway: not a Prometheus API answer: <html>upstream gone</html>"},
		{"not JSON", srv.URL, "html", false, "200 OK: bad_response: invalid character '<'"},
		{"no server", gone.URL, "up", false, "connection refused"},
		{"timeout", srv.URL, "slow", false, "context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := hubplan.Check{Verification: v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{
				Address: tc.address, Query: tc.query, Timeout: &metav1.Duration{Duration: 200 * time.Millisecond}}}}
			res := Verifier{}.Run(context.Background(), []hubplan.Check{c})
			require.Len(t, res, 1)
			assert.Equal(t, tc.passed, res[0].Passed, res[0].Message)
			assert.Contains(t, res[0].Message, "prometheus "+tc.address+" query ")
			assert.Contains(t, res[0].Message, tc.msg)
		})
	}
}
