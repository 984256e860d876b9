package clientthrottle_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/clientthrottle"
)

// slowLimiter is a rate limiter whose every wait takes wait on clock.
type slowLimiter struct {
	flowcontrol.RateLimiter
	clock *fake.Clock
	wait  time.Duration
}

func (s slowLimiter) Wait(context.Context) error { s.clock.Step(s.wait); return nil }
func (s slowLimiter) Accept()                    { s.clock.Step(s.wait) }

// histogram reads h's count and sum.
func histogram(t *testing.T, h prometheus.Histogram) (uint64, float64) {
	t.Helper()
	var m dto.Metric
	require.NoError(t, h.Write(&m))
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

// TestLimiterObservesWaits: every Wait and Accept is observed, for as
// long as the wrapped limiter kept it.
func TestLimiterObservesWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		waits []time.Duration
		sum   float64
	}{
		{"no wait", []time.Duration{0}, 0},
		{"waits add up", []time.Duration{250 * time.Millisecond, 2 * time.Second}, 2.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := fake.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			h := clientthrottle.NewHistogram()
			for i, w := range tc.waits {
				l := &clientthrottle.Limiter{RateLimiter: slowLimiter{clock: clk, wait: w}, Observed: h, Clock: clk}
				if i%2 == 0 {
					require.NoError(t, l.Wait(context.Background()))
				} else {
					l.Accept()
				}
			}
			count, sum := histogram(t, h)
			assert.Equal(t, uint64(len(tc.waits)), count)
			assert.InDelta(t, tc.sum, sum, 1e-9)
		})
	}
}

// TestLimit: the config gets one limiter at its QPS and Burst, whose
// waits are observed on the registry, under MetricName; a second config
// limited on the same registry shares the histogram.
func TestLimit(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	first, second := &rest.Config{QPS: 20, Burst: 1}, &rest.Config{QPS: 20, Burst: 1}
	require.NoError(t, clientthrottle.Limit(first, clientthrottle.NewHistogram(), reg))
	require.NoError(t, clientthrottle.Limit(second, clientthrottle.NewHistogram(), reg))
	require.NotNil(t, first.RateLimiter)
	assert.InDelta(t, 20, first.RateLimiter.QPS(), 1e-9)
	for range 3 { // a burst of 1 at 20/s: the 2nd and 3rd wait about 50 ms each
		require.NoError(t, first.RateLimiter.Wait(context.Background()))
	}
	require.NoError(t, second.RateLimiter.Wait(context.Background()))
	assert.Equal(t, 1, testutil.CollectAndCount(reg, clientthrottle.MetricName))
	families, err := reg.Gather()
	require.NoError(t, err)
	require.Len(t, families, 1)
	h := families[0].GetMetric()[0].GetHistogram()
	assert.Equal(t, uint64(4), h.GetSampleCount())
	assert.Greater(t, h.GetSampleSum(), 0.05, "two waits of about 50 ms")
}
