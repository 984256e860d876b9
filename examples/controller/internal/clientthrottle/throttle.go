package clientthrottle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/rolloutkit/rolloutkit/clock"
)

// MetricName is the name of the histogram of the seconds requests waited
// on the client's rate limiter.
const MetricName = "rolloutkit_client_throttle_seconds"

// NewHistogram returns the histogram Limiter observes into, unregistered.
// Its buckets start at a millisecond, below which a wait is no wait, and
// end at a minute.
func NewHistogram() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    MetricName,
		Help:    "Seconds each request to the API server waited for the client's rate limiter (-kube-api-qps, -kube-api-burst).",
		Buckets: []float64{0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 60},
	})
}

// Limiter is a flowcontrol.RateLimiter that observes how long each Wait
// and Accept took.
type Limiter struct {
	flowcontrol.RateLimiter
	// Observed receives the seconds of every wait.
	Observed prometheus.Observer
	// Clock times the waits. Nil: the real clock.
	Clock clock.PassiveClock
}

var _ flowcontrol.RateLimiter = &Limiter{}

// Wait waits for a token as the wrapped limiter does, and observes how
// long that took, whether or not it got one.
func (l *Limiter) Wait(ctx context.Context) error {
	defer l.observe(l.clock().Now())
	return l.RateLimiter.Wait(ctx)
}

// Accept waits for a token as the wrapped limiter does, and observes how
// long that took.
func (l *Limiter) Accept() {
	defer l.observe(l.clock().Now())
	l.RateLimiter.Accept()
}

func (l *Limiter) observe(start time.Time) {
	l.Observed.Observe(l.clock().Since(start).Seconds())
}

// clock is l.Clock, or the real clock when that is nil.
func (l *Limiter) clock() clock.PassiveClock {
	if l.Clock == nil {
		return clock.Real{}
	}
	return l.Clock
}

// Limit sets cfg's rate limiter to a token bucket of cfg.QPS and
// cfg.Burst that observes its waits into h, and registers h with reg; if
// reg has a histogram of that name already, the waits go to that one.
// Every client made from cfg (or a copy) then shares the one limiter.
func Limit(cfg *rest.Config, h prometheus.Histogram, reg prometheus.Registerer) error {
	if err := reg.Register(h); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if !errors.As(err, &dup) {
			return fmt.Errorf("registering %s: %w", MetricName, err)
		}
		existing, ok := dup.ExistingCollector.(prometheus.Histogram)
		if !ok {
			return fmt.Errorf("registering %s: a collector of another kind has the name", MetricName)
		}
		h = existing
	}
	cfg.RateLimiter = &Limiter{RateLimiter: flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst), Observed: h}
	return nil
}
