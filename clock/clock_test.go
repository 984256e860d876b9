package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/clock/fake"
)

func TestOr(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := fake.New(start)
	tests := []struct {
		name string
		in   clock.PassiveClock
		want func(t *testing.T, c clock.PassiveClock)
	}{
		{"nil is the real clock", nil, func(t *testing.T, c clock.PassiveClock) {
			assert.IsType(t, clock.Real{}, c)
			assert.WithinDuration(t, time.Now(), c.Now(), time.Minute)
		}},
		{"a fake stays itself", f, func(t *testing.T, c clock.PassiveClock) {
			assert.Equal(t, start, c.Now())
			assert.Equal(t, start, clock.NowOf(c))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.want(t, clock.Or(tt.in))
		})
	}
}
