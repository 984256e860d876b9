package simulate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// weekdays9to5 is a gate that admits groups Monday to Friday, 09:00-17:00
// UTC.
func weekdays9to5(t *testing.T) rollout.Gate {
	t.Helper()
	g, err := rollout.Window(time.UTC, []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}, 9*time.Hour, 17*time.Hour)
	require.NoError(t, err)
	return g
}

func TestRunWindowGate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		start   time.Time
		applied []string // RFC 3339 time and cluster of every Applied event
		held    []string // group of every GateHeld event
	}{
		{
			name:    "started on a Saturday: nothing before Monday 09:00",
			start:   time.Date(2026, 1, 10, 10, 0, 0, 0, time.UTC),
			applied: []string{"2026-01-12T09:00:00Z dev-cluster", "2026-01-12T09:07:00Z stg-cluster", "2026-01-12T09:14:00Z prod-cluster"},
			held:    []string{"dev"},
		},
		{
			name:  "stg soaks past 17:00: prod waits for Tuesday 09:00",
			start: time.Date(2026, 1, 12, 16, 50, 0, 0, time.UTC),
			applied: []string{"2026-01-12T16:50:00Z dev-cluster", "2026-01-12T16:57:00Z stg-cluster",
				"2026-01-13T09:00:00Z prod-cluster"},
			held: []string{"prod"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := simulate.Run(simulate.Options{Strategy: seedStrategy(), Start: tt.start,
				Planner: rollout.Planner{Gates: []rollout.Gate{weekdays9to5(t)}}},
				simulate.Fleet{Groups: seedGroups(), Default: apply(2 * time.Minute)})
			require.NoError(t, err)
			require.Equal(t, simulate.Completed, r.Outcome, r.Timeline())
			var applied, held []string
			for _, e := range r.Events {
				switch e.Kind {
				case simulate.Applied:
					applied = append(applied, e.At.Format(time.RFC3339)+" "+e.Cluster)
					wd, h := e.At.Weekday(), e.At.Hour()
					assert.True(t, wd >= time.Monday && wd <= time.Friday && h >= 9 && h < 17, "%s applied outside the window at %s", e.Cluster, e.At)
				case simulate.GateHeld:
					held = append(held, e.Group.Name)
					assert.Contains(t, e.Detail, "outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 UTC")
				}
			}
			assert.Equal(t, tt.applied, applied)
			assert.Equal(t, tt.held, held)
		})
	}
}

func TestRunTimeLimit(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 10, 10, 0, 0, 0, time.UTC) // a Saturday
	r, err := simulate.Run(simulate.Options{Strategy: seedStrategy(), Start: start, Limit: time.Hour,
		Planner: rollout.Planner{Gates: []rollout.Gate{weekdays9to5(t)}}},
		simulate.Fleet{Groups: seedGroups()})
	require.NoError(t, err)
	assert.Equal(t, simulate.TimeLimit, r.Outcome)
	assert.Equal(t, start.Add(time.Hour), r.End)
	assert.Equal(t, `time limit: not complete after 1h0m0s: group "dev": held: outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 UTC; it opens Mon 2026-01-12 09:00 UTC`, r.Reason)
	assert.Equal(t, 1, r.Plans)
}
