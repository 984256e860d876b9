package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// readyTimeout bounds the readiness check's request to the API server; the
// probe's own timeout (the kubelet's timeoutSeconds) may cut it shorter.
const readyTimeout = 5 * time.Second

// apiServerAnswers returns the readiness check: the controller is ready
// while the API server answers a GET of its /readyz, which every
// authenticated user may read (the system:public-info-viewer role).
//
// During an API-server outage the controller cannot read or write
// anything, and its informers retry until the server is back: it is alive
// (the liveness probe stays a ping, so that the kubelet does not restart
// a controller that would only find the same outage), but not ready, and
// says so. The check has its own client, so that a probe never waits
// behind the controller's rate limiter.
func apiServerAnswers(cfg *rest.Config) (healthz.Checker, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = readyTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("readiness check: %w", err)
	}
	rc := dc.RESTClient()
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), readyTimeout)
		defer cancel()
		if _, err := rc.Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
			return fmt.Errorf("the API server did not answer GET /readyz: %w", err)
		}
		return nil
	}, nil
}
