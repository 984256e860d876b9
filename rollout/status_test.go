package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestStatusString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   rollout.Status
		want string
	}{
		{rollout.ToApply, "ToApply"},
		{rollout.Progressing, "Progressing"},
		{rollout.Succeeded, "Succeeded"},
		{rollout.Failed, "Failed"},
		{rollout.TimeOut, "TimeOut"},
		{rollout.Skip, "Skip"},
		{rollout.Status(6), "Status(6)"},
		{rollout.Status(-1), "Status(-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.in.String())
		})
	}
}

func TestStatusOrderIsOCMs(t *testing.T) {
	t.Parallel()
	// OCM's sdk-go declares the statuses in this order (iota from 0).
	for i, s := range []rollout.Status{rollout.ToApply, rollout.Progressing, rollout.Succeeded, rollout.Failed, rollout.TimeOut, rollout.Skip} {
		assert.Equal(t, rollout.Status(i), s, s.String())
	}
}

func TestPhaseString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   rollout.Phase
		want string
	}{
		{rollout.Waiting, "Waiting"},
		{rollout.Active, "Active"},
		{rollout.Complete, "Complete"},
		{rollout.Blocked, "Blocked"},
		{rollout.Breached, "Breached"},
		{rollout.Phase(5), "Phase(5)"},
		{rollout.Phase(-2), "Phase(-2)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.in.String())
		})
	}
}
