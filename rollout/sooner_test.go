package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestSooner: the smaller positive recheck time; 0 (or less) is none.
func TestSooner(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b, want time.Duration
	}{
		{0, 0, 0},
		{0, time.Minute, time.Minute},
		{time.Minute, 0, time.Minute},
		{time.Minute, time.Second, time.Second},
		{time.Second, time.Minute, time.Second},
		{-time.Second, 0, 0},
		{-time.Second, time.Minute, time.Minute},
		{time.Minute, -time.Second, time.Minute},
	} {
		assert.Equal(t, tt.want, rollout.Sooner(tt.a, tt.b), "Sooner(%v, %v)", tt.a, tt.b)
		assert.Equal(t, tt.want, rollout.Sooner(tt.b, tt.a), "Sooner(%v, %v)", tt.b, tt.a)
	}
}
