package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0m"},
		{30 * time.Second, "30s"},
		{7 * time.Minute, "7m"},
		{7*time.Minute + 30*time.Second, "7m30s"},
		{7*time.Minute + 400*time.Millisecond, "7m"},
		{time.Hour, "1h00m"},
		{time.Hour + 5*time.Minute, "1h05m"},
		{64*time.Hour + 10*time.Minute + 5*time.Second, "64h10m05s"},
		{-2 * time.Minute, "-2m"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, duration(tt.in))
			assert.Equal(t, "+"+tt.want, offset(tt.in))
		})
	}
}
