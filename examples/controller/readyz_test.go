package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// TestAPIServerAnswers: the readiness check passes while the API server
// answers its /readyz with 200, and fails when it answers otherwise or not
// at all.
func TestAPIServerAnswers(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(int(status.Load()))
	}))
	check, err := apiServerAnswers(&rest.Config{Host: srv.URL})
	require.NoError(t, err)
	probe := httptest.NewRequest(http.MethodGet, "/readyz", nil)

	assert.NoError(t, check(probe), "API server ready")
	status.Store(http.StatusInternalServerError) // as kube-apiserver answers while it shuts down
	assert.ErrorContains(t, check(probe), "the API server did not answer GET /readyz")
	srv.Close()
	assert.ErrorContains(t, check(probe), "the API server did not answer GET /readyz", "API server away")
}
