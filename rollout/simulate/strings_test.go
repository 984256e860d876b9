package simulate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

func TestStrings(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Completed", simulate.Completed.String())
	assert.Equal(t, "TimeLimit", simulate.TimeLimit.String())
	assert.Equal(t, "Outcome(9)", simulate.Outcome(9).String())
	assert.Equal(t, "Outcome(-1)", simulate.Outcome(-1).String())
	kinds := []string{"Applied", "Progressing", "Succeeded", "Failed", "TimedOut", "Recovered",
		"GroupStarted", "GroupCompleted", "Breach", "GateHeld", "BreachCleared"}
	for k, want := range kinds {
		assert.Equal(t, want, simulate.EventKind(k).String())
	}
	assert.Equal(t, "EventKind(11)", simulate.EventKind(len(kinds)).String())
}

func TestTimeline(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	dev0 := grouping.GroupKey{Name: "dev", Index: 0}
	dev1 := grouping.GroupKey{Name: "dev", Index: 1}
	unnamed := grouping.GroupKey{Index: 2}
	r := simulate.Result{
		Start: start, End: start.Add(26*time.Hour + 3*time.Minute + 4*time.Second + 500*time.Millisecond),
		Outcome: simulate.Stuck, Reason: "stuck: example", Plans: 3,
		Groups: []simulate.GroupTimes{{GroupKey: dev0}, {GroupKey: dev1}, {GroupKey: unnamed}},
		Events: []simulate.Event{
			{At: start.Add(59*time.Minute + 59*time.Second), Kind: simulate.Applied, Cluster: "a", Group: dev0},
			{At: start.Add(time.Hour), Kind: simulate.GroupStarted, Group: dev1},
			{At: start.Add(2 * time.Hour), Kind: simulate.GateHeld, Group: unnamed, Detail: "paused"},
			{At: start.Add(2 * time.Hour), Kind: simulate.EventKind(42), Cluster: "b", Group: grouping.GroupKey{Name: "gone", Index: 7}},
		},
	}
	assert.Equal(t, strings.Join([]string{
		"+59:59 applied a (dev#0)",
		"+1:00:00 started group dev#1",
		"+2:00:00 held group #2: paused",
		"+2:00:00 EventKind(42) b (gone#7)",
		"+26:03:04 stuck: example (3 planner calls)",
		"",
	}, "\n"), r.Timeline())
}
