package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestEvaluateOneCluster checks docs/semantics.md §3.3, one cluster at a
// time, for every strategy type. (A status value outside the six is an
// error: TestPlanRejectsInputs.) Now is 13:00 (t0 + 1h); times in the wants are
// offsets from t0.
func TestEvaluateOneCluster(t *testing.T) {
	t.Parallel()
	now := at(time.Hour)
	none := rollout.ClusterStatus{}
	tests := []struct {
		name      string
		in        rollout.ClusterStatus // Cluster "" means: no status entry
		c         cfg
		wantList  []string
		wantTimed []string
		recheck   time.Duration
		failure   bool // counted against maxFailures (0): a breach for the progressive types
		soak      bool // a soak: type All, where minSuccessTime does not apply, lists nothing
	}{
		{name: "untouched", in: none, wantList: []string{"c ToApply"}},
		{name: "ToApply entry", in: status("c", rollout.ToApply, at(10*time.Minute)), c: cfg{deadline: "15m"}, wantList: []string{"c ToApply"}},
		{name: "progressing, deadline empty", in: status("c", rollout.Progressing, at(0)), wantList: []string{"c Progressing"}},
		{name: "progressing, deadline None", in: status("c", rollout.Progressing, at(0)), c: cfg{deadline: "None"}, wantList: []string{"c Progressing"}},
		{name: "progressing, 90s, 30s left", in: status("c", rollout.Progressing, at(59*time.Minute)), c: cfg{deadline: "90s"},
			wantList: []string{"c Progressing until 1h0m30s"}, recheck: 30 * time.Second},
		{name: "progressing, 90s, at the deadline", in: status("c", rollout.Progressing, at(58*time.Minute+30*time.Second)), c: cfg{deadline: "90s"},
			wantTimed: []string{"c TimeOut until 1h0m0s"}, failure: true},
		{name: "progressing, 1h30m, 30m left", in: status("c", rollout.Progressing, at(0)), c: cfg{deadline: "1h30m"},
			wantList: []string{"c Progressing until 1h30m0s"}, recheck: 30 * time.Minute},
		{name: "progressing, 1h30m, after the deadline", in: status("c", rollout.Progressing, at(-31*time.Minute)), c: cfg{deadline: "1h30m"},
			wantTimed: []string{"c TimeOut until 59m0s"}, failure: true},
		{name: "progressing, 0s: times out at once", in: status("c", rollout.Progressing, now), c: cfg{deadline: "0s"},
			wantTimed: []string{"c TimeOut until 1h0m0s"}, failure: true},
		{name: "failed within the deadline: listed and a failure", in: status("c", rollout.Failed, at(50*time.Minute)), c: cfg{deadline: "15m"},
			wantList: []string{"c Failed until 1h5m0s"}, recheck: 5 * time.Minute, failure: true},
		{name: "failed, no deadline", in: status("c", rollout.Failed, at(0)), c: cfg{deadline: "None"},
			wantList: []string{"c Failed"}, failure: true},
		{name: "failed after the deadline", in: status("c", rollout.Failed, at(40*time.Minute)), c: cfg{deadline: "15m"},
			wantTimed: []string{"c TimeOut until 55m0s"}, failure: true},
		{name: "TimeOut input: a failure, not re-listed", in: status("c", rollout.TimeOut, at(0)), c: cfg{deadline: "15m"}, failure: true},
		{name: "TimeOut input without a deadline", in: status("c", rollout.TimeOut, at(59*time.Minute)), failure: true},
		{name: "skip is done", in: status("c", rollout.Skip, at(0)), c: cfg{deadline: "15m"}},
		{name: "succeeded, soaking", in: status("c", rollout.Succeeded, at(58*time.Minute)), c: cfg{soak: 5 * time.Minute, deadline: "15m"},
			wantList: []string{"c Succeeded until 1h3m0s"}, recheck: 3 * time.Minute, soak: true},
		{name: "succeeded, soak ends now", in: status("c", rollout.Succeeded, at(55*time.Minute)), c: cfg{soak: 5 * time.Minute}},
		{name: "succeeded, no soak", in: status("c", rollout.Succeeded, now), c: cfg{deadline: "15m"}},
		{name: "succeeded long after the deadline is done", in: status("c", rollout.Succeeded, at(0)), c: cfg{soak: 5 * time.Minute, deadline: "15m"}},
		{name: "unknown LTT: deadline from now", in: status("c", rollout.Progressing, time.Time{}), c: cfg{deadline: "15m"},
			wantList: []string{"c Progressing until 1h15m0s"}, recheck: 15 * time.Minute},
		{name: "unknown LTT: soak from now", in: status("c", rollout.Succeeded, time.Time{}), c: cfg{soak: 5 * time.Minute},
			wantList: []string{"c Succeeded until 1h5m0s"}, recheck: 5 * time.Minute, soak: true},
	}
	for _, tt := range tests {
		for _, kind := range kinds() {
			t.Run(string(kind)+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				var statuses []rollout.ClusterStatus
				if tt.in.Cluster != "" {
					statuses = []rollout.ClusterStatus{tt.in}
				}
				res, err := plannerAt(now).Plan(strategy(kind, tt.c), []grouping.Group{group("g", 0, "c")}, statuses)
				require.NoError(t, err)
				wantList, recheck := tt.wantList, tt.recheck
				if tt.soak && kind == all {
					wantList, recheck = nil, 0
				}
				assert.Equal(t, wantList, brief(res.ToRollout), "ToRollout")
				assert.Equal(t, tt.wantTimed, brief(res.TimedOut), "TimedOut")
				assert.Equal(t, recheck, res.RecheckAfter, "RecheckAfter")
				assert.Equal(t, tt.failure && kind != all, res.MaxFailureBreach, "MaxFailureBreach")
				assert.Empty(t, res.Removed)
				for _, cs := range append(res.ToRollout, res.TimedOut...) {
					assert.Equal(t, key("g", 0), cs.Group, "Group")
					assert.Equal(t, tt.in.LastTransitionTime, cs.LastTransitionTime, "LastTransitionTime is the input's")
				}
			})
		}
	}
}
