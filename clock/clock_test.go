package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/clock/fake"
)

func TestNowOf(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		in   clock.PassiveClock
		want func(t *testing.T, now time.Time)
	}{
		{"nil is the real clock, without its monotonic reading", nil, func(t *testing.T, now time.Time) {
			assert.WithinDuration(t, time.Now(), now, time.Minute)
			assert.Equal(t, now, now.Round(0), "monotonic reading kept")
		}},
		{"the real clock", clock.Real{}, func(t *testing.T, now time.Time) {
			assert.WithinDuration(t, time.Now(), now, time.Minute)
			assert.Equal(t, now, now.Round(0), "monotonic reading kept")
		}},
		{"a fake reads its time", fake.New(start), func(t *testing.T, now time.Time) {
			assert.Equal(t, start, now)
		}},
		{"At reads its time, always", clock.At(start), func(t *testing.T, now time.Time) {
			assert.Equal(t, start, now)
			assert.Equal(t, time.Hour, clock.At(start).Since(start.Add(-time.Hour)))
		}},
		{"the location is the clock's", fake.New(start.In(berlin)), func(t *testing.T, now time.Time) {
			assert.Equal(t, berlin, now.Location())
			assert.True(t, start.Equal(now))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.want(t, clock.NowOf(tt.in))
		})
	}
}
