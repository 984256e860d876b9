package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestSeedTimeline replays the seed's dev -> stg -> prod rollout
// (ProgressivePerGroup, minSuccessTime 5m, progressDeadline 15m,
// maxFailures 0) on one fake clock, including the stg timeout, the halt and
// the recovery. The steps share the clock, so they run in order.
func TestSeedTimeline(t *testing.T) {
	t.Parallel()
	s := strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "15m", maxFail: intstr.FromInt32(0)})
	clk := fake.New(t0())
	p := rollout.Planner{Clock: clk}
	m := time.Minute
	dev := func(st rollout.Status, ltt time.Duration) rollout.ClusterStatus {
		return status("dev-cluster", st, at(ltt))
	}
	stg := func(st rollout.Status, ltt time.Duration) rollout.ClusterStatus {
		return status("stg-cluster", st, at(ltt))
	}
	prod := func(st rollout.Status, ltt time.Duration) rollout.ClusterStatus {
		return status("prod-cluster", st, at(ltt))
	}
	steps := []struct {
		name     string
		now      time.Duration
		statuses []rollout.ClusterStatus
		list     []string // brief(ToRollout)
		timed    []string // brief(TimedOut)
		breach   bool
		recheck  time.Duration
		phases   []string
		reasons  map[string]string
	}{
		{
			name: "12:00 the new spec hash: dev starts", now: 0,
			list:   []string{"dev-cluster ToApply"},
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
			reasons: map[string]string{
				"dev":  "rolling out: 1 starting now",
				"stg":  `waiting for group "dev": "dev-cluster" starting now`,
				"prod": `waiting for group "dev": "dev-cluster" starting now`,
			},
		},
		{
			name: "12:00 dev applied", now: 0, statuses: []rollout.ClusterStatus{dev(rollout.Progressing, 0)},
			list: []string{"dev-cluster Progressing until 15m0s"}, recheck: 15 * m,
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
			reasons: map[string]string{
				"dev":  `rolling out: 1 progressing; "dev-cluster" progressing, deadline 12:15:00 (15m0s left)`,
				"stg":  `waiting for group "dev": "dev-cluster" progressing, deadline 12:15:00 (15m0s left)`,
				"prod": `waiting for group "dev": "dev-cluster" progressing, deadline 12:15:00 (15m0s left)`,
			},
		},
		{
			name: "12:02 dev succeeded: it soaks for 5 minutes", now: 2 * m, statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m)},
			list: []string{"dev-cluster Succeeded until 7m0s"}, recheck: 5 * m,
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
			reasons: map[string]string{
				"dev":  `rolling out: 1 soaking; "dev-cluster" soaking until 12:07:00 (5m0s left)`,
				"stg":  `waiting for group "dev": "dev-cluster" soaking until 12:07:00 (5m0s left)`,
				"prod": `waiting for group "dev": "dev-cluster" soaking until 12:07:00 (5m0s left)`,
			},
		},
		{
			name: "12:06:59 still soaking", now: 7*m - time.Second, statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m)},
			list: []string{"dev-cluster Succeeded until 7m0s"}, recheck: time.Second,
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
		},
		{
			name: "12:07 dev soaked: stg starts", now: 7 * m, statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m)},
			list:   []string{"stg-cluster ToApply"},
			phases: []string{"dev Complete", "stg Active", "prod Waiting"},
			reasons: map[string]string{
				"dev":  "complete: 1 succeeded",
				"stg":  "rolling out: 1 starting now",
				"prod": `waiting for group "stg": "stg-cluster" starting now`,
			},
		},
		{
			name: "12:21 stg still progressing", now: 21 * m, statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Progressing, 7*m)},
			list: []string{"stg-cluster Progressing until 22m0s"}, recheck: m,
			phases: []string{"dev Complete", "stg Active", "prod Waiting"},
			reasons: map[string]string{
				"prod": `waiting for group "stg": "stg-cluster" progressing, deadline 12:22:00 (1m0s left)`,
			},
		},
		{
			name: "12:22 stg exceeds its 15-minute deadline: timed out, breach, halt", now: 22 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Progressing, 7*m)},
			timed:    []string{"stg-cluster TimeOut until 22m0s"}, breach: true,
			phases: []string{"dev Complete", "stg Breached", "prod Waiting"},
			reasons: map[string]string{
				"stg":  `halted: 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 12:22:00`,
				"prod": "halted: the failure budget is exceeded, nothing new starts",
			},
		},
		{
			name: "12:30 still halted: prod does not start", now: 30 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Progressing, 7*m)},
			timed:    []string{"stg-cluster TimeOut until 22m0s"}, breach: true,
			phases: []string{"dev Complete", "stg Breached", "prod Waiting"},
		},
		{
			name: "12:30 the caller records TimeOut: still halted", now: 30 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.TimeOut, 22*m)},
			breach:   true,
			phases:   []string{"dev Complete", "stg Breached", "prod Waiting"},
			reasons: map[string]string{
				"stg": `halted: 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out`,
			},
		},
		{
			name: "12:31 stg recovers: it soaks", now: 31 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Succeeded, 31*m)},
			list:     []string{"stg-cluster Succeeded until 36m0s"}, recheck: 5 * m,
			phases: []string{"dev Complete", "stg Active", "prod Waiting"},
			reasons: map[string]string{
				"prod": `waiting for group "stg": "stg-cluster" soaking until 12:36:00 (5m0s left)`,
			},
		},
		{
			name: "12:36 stg soaked: prod starts", now: 36 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Succeeded, 31*m)},
			list:     []string{"prod-cluster ToApply"},
			phases:   []string{"dev Complete", "stg Complete", "prod Active"},
		},
		{
			name: "12:40 prod succeeded: it soaks", now: 40 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Succeeded, 31*m), prod(rollout.Succeeded, 40*m)},
			list:     []string{"prod-cluster Succeeded until 45m0s"}, recheck: 5 * m,
			phases: []string{"dev Complete", "stg Complete", "prod Active"},
		},
		{
			name: "12:45 everything complete", now: 45 * m,
			statuses: []rollout.ClusterStatus{dev(rollout.Succeeded, 2*m), stg(rollout.Succeeded, 31*m), prod(rollout.Succeeded, 40*m)},
			phases:   []string{"dev Complete", "stg Complete", "prod Complete"},
			reasons: map[string]string{
				"dev":  "complete: 1 succeeded",
				"stg":  "complete: 1 succeeded",
				"prod": "complete: 1 succeeded",
			},
		},
	}
	for _, st := range steps {
		clk.SetTime(at(st.now))
		res, err := p.Plan(s, seedGroups(), st.statuses)
		require.NoError(t, err, st.name)
		assert.Equal(t, st.list, brief(res.ToRollout), "%s: ToRollout", st.name)
		assert.Equal(t, st.timed, brief(res.TimedOut), "%s: TimedOut", st.name)
		assert.Equal(t, st.breach, res.MaxFailureBreach, "%s: MaxFailureBreach", st.name)
		assert.Equal(t, st.recheck, res.RecheckAfter, "%s: RecheckAfter", st.name)
		assert.Equal(t, st.phases, phases(res.Groups), "%s: phases", st.name)
		got := reasons(res.Groups)
		for g, want := range st.reasons {
			assert.Equal(t, want, got[g], "%s: reason of %q", st.name, g)
		}
		assert.Empty(t, res.Warnings, st.name)
		assert.Empty(t, res.Removed, st.name)
	}
}
