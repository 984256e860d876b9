package rollout_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin and America/New_York on machines without tzdata

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func berlin(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	return loc
}

func weekdays() []time.Weekday {
	return []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
}

func everyDay() []time.Weekday {
	return []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
}

func hm(h, m int) time.Duration { return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute }

func TestPaused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason, want string
	}{
		{"change freeze", "rollout paused: change freeze"},
		{"", "rollout paused"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			g := rollout.Paused(tt.reason)
			for _, k := range []grouping.GroupKey{key("dev", 0), key("", 7)} {
				assert.Equal(t, rollout.Admission{Reason: tt.want}, g.Admit(k, t0()))
			}
		})
	}
}

func TestApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		approved []grouping.GroupKey
		group    grouping.GroupKey
		admitted bool
	}{
		{"name only: that name", []grouping.GroupKey{{Name: "prod"}}, key("prod", 2), true},
		{"name only: every group of that name", []grouping.GroupKey{{Name: "prod"}}, key("prod", 5), true},
		{"name only: not another name", []grouping.GroupKey{{Name: "prod"}}, key("stg", 0), false},
		{"index only: that index", []grouping.GroupKey{{Index: 2}}, key("prod", 2), true},
		{"index only: an unnamed group", []grouping.GroupKey{{Index: 2}}, key("", 2), true},
		{"index only: not another index", []grouping.GroupKey{{Index: 2}}, key("prod", 3), false},
		{"index 0 only", []grouping.GroupKey{{}}, key("dev", 0), true},
		{"index 0 only: not index 1", []grouping.GroupKey{{}}, key("stg", 1), false},
		{"both: the group with both", []grouping.GroupKey{{Name: "prod", Index: 2}}, key("prod", 2), true},
		{"both: not the name at another index", []grouping.GroupKey{{Name: "prod", Index: 2}}, key("prod", 3), false},
		{"both: not another name at the index", []grouping.GroupKey{{Name: "prod", Index: 2}}, key("stg", 2), false},
		{"an empty name never matches by name", []grouping.GroupKey{{Index: 4}}, key("", 3), false},
		{"several keys", []grouping.GroupKey{{Name: "dev"}, {Index: 3}, {Name: "prod", Index: 2}}, key("x", 3), true},
		{"nothing approved", nil, key("dev", 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := rollout.Approval(tt.approved...).Admit(tt.group, t0())
			assert.Equal(t, tt.admitted, a.Admitted)
			assert.Zero(t, a.RecheckAfter, "only an outside change approves")
			if !tt.admitted {
				assert.Contains(t, a.Reason, "waiting for approval of ")
			}
		})
	}
	assert.Equal(t, `waiting for approval of group "prod"`, rollout.Approval().Admit(key("prod", 2), t0()).Reason)
	assert.Equal(t, `waiting for approval of unnamed group #3`, rollout.Approval().Admit(key("", 3), t0()).Reason)
}

func TestWindowRejects(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	tests := []struct {
		name       string
		loc        *time.Location
		days       []time.Weekday
		start, end time.Duration
		want       []string
	}{
		{"nil location", nil, weekdays(), hm(9, 0), hm(17, 0),
			[]string{`window gate: loc: Required value: a time zone, e.g. time.LoadLocation("Europe/Berlin")`}},
		{"no days", loc, nil, hm(9, 0), hm(17, 0),
			[]string{`window gate: days: Required value: at least one weekday`}},
		{"a day out of range", loc, []time.Weekday{time.Monday, 7}, hm(9, 0), hm(17, 0),
			[]string{`window gate: days[1]: Invalid value: 7: want a weekday from Sunday (0) to Saturday (6)`}},
		{"negative start", loc, weekdays(), -time.Hour, hm(17, 0),
			[]string{`window gate: start: Invalid value: "-1h0m0s": want a time of day in [0, 24h)`}},
		{"start at 24h", loc, weekdays(), 24 * time.Hour, hm(17, 0),
			[]string{`window gate: start: Invalid value: "24h0m0s": want a time of day in [0, 24h)`}},
		{"end at 24h", loc, weekdays(), hm(9, 0), 24 * time.Hour,
			[]string{`window gate: end: Invalid value: "24h0m0s": want a time of day in [0, 24h)`}},
		{"end negative", loc, weekdays(), hm(9, 0), -time.Minute,
			[]string{`window gate: end: Invalid value: "-1m0s": want a time of day in [0, 24h)`}},
		{"start == end", loc, weekdays(), hm(9, 0), hm(9, 0),
			[]string{`window gate: end: Invalid value: "9h0m0s": want a time of day other than the start 9h0m0s`}},
		{"everything at once", nil, nil, 25 * time.Hour, 25 * time.Hour, []string{
			`window gate: loc: Required value: a time zone, e.g. time.LoadLocation("Europe/Berlin")`,
			`window gate: days: Required value: at least one weekday`,
			`window gate: start: Invalid value: "25h0m0s": want a time of day in [0, 24h)`,
			`window gate: end: Invalid value: "25h0m0s": want a time of day in [0, 24h)`,
			`window gate: end: Invalid value: "25h0m0s": want a time of day other than the start 25h0m0s`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := rollout.Window(tt.loc, tt.days, tt.start, tt.end)
			assert.Nil(t, g)
			assert.Equal(t, tt.want, messages(t, err))
		})
	}
}

// TestWindowAdmit checks when a window admits and the exact RecheckAfter:
// the time until it next opens when it holds, until it closes when it
// admits, across midnight, weekends, time zones and DST changes in
// Europe/Berlin (2026: summer time from Sunday 29 March 02:00 CET, winter
// time from Sunday 25 October 03:00 CEST).
func TestWindowAdmit(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	in := func(y int, mo time.Month, d, h, mi int) time.Time { return time.Date(y, mo, d, h, mi, 0, 0, loc) }
	tests := []struct {
		name       string
		days       []time.Weekday
		start, end time.Duration
		now        time.Time
		admitted   bool
		recheck    time.Duration
		reason     string
	}{
		{name: "Friday 17:30 CET: opens Monday 09:00", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 11, 27, 17, 30), recheck: 63*time.Hour + 30*time.Minute,
			reason: "outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-11-30 09:00 CET"},
		{name: "inside: closes in 7h", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 11, 25, 10, 0), admitted: true, recheck: 7 * time.Hour},
		{name: "at the opening time", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 11, 25, 9, 0), admitted: true, recheck: 8 * time.Hour},
		{name: "at the closing time: opens tomorrow", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 11, 25, 17, 0), recheck: 16 * time.Hour},
		{name: "one second before opening", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 11, 25, 9, 0).Add(-time.Second), recheck: time.Second},
		{name: "Saturday noon: opens Monday", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 11, 28, 12, 0), recheck: 45 * time.Hour},
		{name: "now in UTC", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: time.Date(2026, 11, 27, 16, 30, 0, 0, time.UTC), recheck: 63*time.Hour + 30*time.Minute},
		{name: "now in New York", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: time.Date(2026, 11, 27, 11, 30, 0, 0, ny), recheck: 63*time.Hour + 30*time.Minute},
		{name: "a weekend across the March DST change", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 3, 27, 17, 30), recheck: 62*time.Hour + 30*time.Minute,
			reason: "outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-03-30 09:00 CEST"},
		{name: "a weekend across the October DST change", days: weekdays(), start: hm(9, 0), end: hm(17, 0),
			now: in(2026, 10, 23, 17, 30), recheck: 64*time.Hour + 30*time.Minute},
		{name: "across midnight: before it opens", days: everyDay(), start: hm(22, 0), end: hm(6, 0),
			now: in(2026, 3, 28, 21, 0), recheck: time.Hour},
		{name: "across midnight: the March night is an hour shorter", days: everyDay(), start: hm(22, 0), end: hm(6, 0),
			now: in(2026, 3, 29, 1, 30), admitted: true, recheck: 3*time.Hour + 30*time.Minute},
		{name: "across midnight: the October night is an hour longer", days: everyDay(), start: hm(22, 0), end: hm(6, 0),
			now: time.Date(2026, 10, 24, 23, 30, 0, 0, time.UTC), admitted: true, recheck: 5*time.Hour + 30*time.Minute},
		{name: "March night: 03:00 comes 30 minutes after 01:30", days: everyDay(), start: hm(3, 0), end: hm(4, 0),
			now: in(2026, 3, 29, 1, 30), recheck: 30 * time.Minute},
		{name: "October night: 03:00 comes 2h30m after 01:30", days: everyDay(), start: hm(3, 0), end: hm(4, 0),
			now: time.Date(2026, 10, 24, 23, 30, 0, 0, time.UTC), recheck: 2*time.Hour + 30*time.Minute},
		{name: "October night: the window opens at the first 02:00", days: everyDay(), start: hm(2, 0), end: hm(4, 0),
			now: in(2026, 10, 24, 23, 0), recheck: 3 * time.Hour,
			reason: "outside the time window Sun,Mon,Tue,Wed,Thu,Fri,Sat 02:00-04:00 Europe/Berlin; it opens Sun 2026-10-25 02:00 CEST"},
		{name: "October night: 02:30 summer time is inside", days: everyDay(), start: hm(2, 0), end: hm(4, 0),
			now: time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), admitted: true, recheck: 2*time.Hour + 30*time.Minute},
		{name: "March night: 02:00 does not exist, the window opens at 03:00", days: everyDay(), start: hm(2, 0), end: hm(4, 0),
			now: in(2026, 3, 28, 23, 0), recheck: 3 * time.Hour},
		{name: "March night: a window from 02:30 is open at 03:10", days: everyDay(), start: hm(2, 30), end: hm(4, 0),
			now: in(2026, 3, 29, 3, 10), admitted: true, recheck: 50 * time.Minute},
		{name: "March night: a window from 02:30 opens when the clock jumps to 03:00", days: everyDay(), start: hm(2, 30), end: hm(4, 0),
			now: in(2026, 3, 29, 1, 45), recheck: 15 * time.Minute},
		{name: "March night: a window until 02:30 closes when the clock jumps", days: everyDay(), start: hm(1, 0), end: hm(2, 30),
			now: in(2026, 3, 29, 1, 45), admitted: true, recheck: 15 * time.Minute},
		{name: "Friday night only: Saturday 01:00 is inside", days: []time.Weekday{time.Friday}, start: hm(22, 0), end: hm(2, 0),
			now: in(2026, 11, 28, 1, 0), admitted: true, recheck: time.Hour},
		{name: "Friday night only: Saturday 03:00 waits a week", days: []time.Weekday{time.Friday}, start: hm(22, 0), end: hm(2, 0),
			now: in(2026, 11, 28, 3, 0), recheck: 163 * time.Hour},
		{name: "weeknights: Saturday 05:00 is Friday's night", days: weekdays(), start: hm(22, 0), end: hm(6, 0),
			now: in(2026, 11, 28, 5, 0), admitted: true, recheck: time.Hour},
		{name: "weeknights: Sunday 23:00 waits for Monday 22:00", days: weekdays(), start: hm(22, 0), end: hm(6, 0),
			now: in(2026, 11, 29, 23, 0), recheck: 23 * time.Hour},
		{name: "weeknights: Monday 05:00 is Sunday's night, not in the window", days: weekdays(), start: hm(22, 0), end: hm(6, 0),
			now: in(2026, 11, 30, 5, 0), recheck: 17 * time.Hour},
		{name: "midnight start", days: []time.Weekday{time.Tuesday}, start: 0, end: hm(1, 0),
			now: in(2026, 11, 30, 23, 0), recheck: time.Hour},
		{name: "midnight end", days: []time.Weekday{time.Monday}, start: hm(23, 0), end: 0,
			now: in(2026, 11, 30, 23, 15), admitted: true, recheck: 45 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := rollout.Window(loc, tt.days, tt.start, tt.end)
			require.NoError(t, err)
			a := g.Admit(key("prod", 2), tt.now)
			assert.Equal(t, tt.admitted, a.Admitted, "Admitted")
			assert.Equal(t, tt.recheck, a.RecheckAfter, "RecheckAfter")
			if tt.reason != "" {
				assert.Equal(t, tt.reason, a.Reason)
			}
			if tt.admitted {
				assert.Empty(t, a.Reason)
			}
		})
	}
}

// holdAll is a gate that holds every group with a fixed reason and recheck.
func holdAll(reason string, recheck time.Duration) rollout.Gate {
	return rollout.GateFunc(func(grouping.GroupKey, time.Time) rollout.Admission {
		return rollout.Admission{Reason: reason, RecheckAfter: recheck}
	})
}

// TestPlanGates checks gates in Plan: untouched clusters of a held group
// are not listed, in-flight clusters always are, and the group explains.
func TestPlanGates(t *testing.T) {
	t.Parallel()
	m := time.Minute
	loc := berlin(t)
	// t0 is Monday 13:00 in Berlin.
	closed, err := rollout.Window(loc, []time.Weekday{time.Monday}, hm(13, 30), hm(14, 0))
	require.NoError(t, err)
	open, err := rollout.Window(loc, []time.Weekday{time.Monday}, hm(9, 0), hm(17, 0))
	require.NoError(t, err)
	devDone := []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, at(-time.Hour))}
	tests := []struct {
		name     string
		s        clusterv1alpha1.RolloutStrategy
		gates    []rollout.Gate
		groups   []grouping.Group
		statuses []rollout.ClusterStatus
		list     []string
		recheck  time.Duration
		phases   []string
		reasons  map[string]string
	}{
		{
			name: "ProgressivePerGroup: the next group waits for approval", s: strategy(perGroup, cfg{}),
			gates: []rollout.Gate{rollout.Approval(key("dev", 0))}, groups: seedGroups(), statuses: devDone,
			phases: []string{"dev Complete", "stg Blocked", "prod Waiting"},
			reasons: map[string]string{
				"stg":  `held: waiting for approval of group "stg"`,
				"prod": `waiting for group "stg": held: waiting for approval of group "stg"`,
			},
		},
		{
			name: "ProgressivePerGroup: approved", s: strategy(perGroup, cfg{}),
			gates: []rollout.Gate{rollout.Approval(key("dev", 0), key("stg", 0))}, groups: seedGroups(), statuses: devDone,
			list: []string{"stg-cluster"}, phases: []string{"dev Complete", "stg Active", "prod Waiting"},
		},
		{
			name: "ProgressivePerGroup: in flight is never held", s: strategy(perGroup, cfg{deadline: "15m"}),
			gates: []rollout.Gate{rollout.Paused("freeze")}, groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Progressing, at(-m)), status("prod-cluster", rollout.Progressing, at(-2*m))},
			list:     []string{"dev-cluster", "prod-cluster"}, recheck: 13 * m,
			phases: []string{"dev Active", "stg Waiting", "prod Active"},
		},
		{
			name: "ProgressivePerGroup: a held group's in-flight clusters stay listed", s: strategy(perGroup, cfg{soak: 5 * m}),
			gates: []rollout.Gate{rollout.Paused("freeze")}, groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, at(-m))},
			list:     []string{"a1"}, recheck: 4 * m,
			phases: []string{"a Blocked", "b Waiting"},
			reasons: map[string]string{
				"a": "held: rollout paused: freeze",
				"b": `waiting for group "a": held: rollout paused: freeze`,
			},
		},
		{
			name: "ProgressivePerGroup: RecheckAfter includes the window's opening", s: strategy(perGroup, cfg{deadline: "1h", maxFail: intstr.FromInt32(1)}),
			gates: []rollout.Gate{closed}, groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Failed, at(-5*m)), status("a2", rollout.Succeeded, at(-time.Hour))},
			list:     []string{"a1"}, recheck: 30 * m,
			phases: []string{"a Active", "b Blocked"},
			reasons: map[string]string{
				"b": "held: outside the time window Mon 13:30-14:00 Europe/Berlin; it opens Mon 2026-11-30 13:30 CET",
			},
		},
		{
			name: "ProgressivePerGroup: a nearer deadline wins over the window", s: strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(1)}),
			gates: []rollout.Gate{closed}, groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a1", rollout.Failed, at(-5*m)), status("a2", rollout.Succeeded, at(-time.Hour))},
			list:     []string{"a1"}, recheck: 10 * m,
		},
		{
			name: "ProgressivePerGroup: a mandatory group is gated like any other", s: strategy(perGroup, cfg{}, mandatory(byName("stg"))),
			gates: []rollout.Gate{rollout.Approval(key("dev", 0))}, groups: seedGroups(),
			phases: []string{"dev Waiting", "stg Blocked", "prod Waiting"},
			reasons: map[string]string{
				"dev": `waiting for mandatory group "stg": held: waiting for approval of group "stg"`,
				"stg": `held: waiting for approval of group "stg"`,
			},
		},
		{
			name: "Progressive: a held group's clusters leave free slots to others", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(2))),
			gates:  []rollout.Gate{rollout.Approval(key("b", 0))},
			groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1", "b2", "b3")},
			list:   []string{"b1", "b2"},
			phases: []string{"a Blocked", "b Active"},
			reasons: map[string]string{
				"a": `held: waiting for approval of group "a"`,
				"b": "rolling out: 2 starting now, 1 not started; window of 2 full",
			},
		},
		{
			name: "Progressive: a held group's in-flight clusters keep their slots", s: strategy(progressive, cfg{}, concurrency(intstr.FromInt32(2))),
			gates:    []rollout.Gate{rollout.Approval(key("b", 0))},
			groups:   []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1", "b2", "b3")},
			statuses: []rollout.ClusterStatus{status("a2", rollout.Progressing, at(-m))},
			list:     []string{"a2", "b1"},
			phases:   []string{"a Blocked", "b Active"},
		},
		{
			name: "Progressive: a mandatory group is gated like any other", s: strategy(progressive, cfg{}, mandatory(byIndex(1))),
			gates: []rollout.Gate{rollout.Approval(key("dev", 0), key("prod", 0))}, groups: seedGroups(),
			phases: []string{"dev Waiting", "stg Blocked", "prod Waiting"},
			reasons: map[string]string{
				"dev": `waiting for mandatory group "stg": held: waiting for approval of group "stg"`,
			},
		},
		{
			name: "Progressive: the window's opening in RecheckAfter", s: strategy(progressive, cfg{}),
			gates: []rollout.Gate{closed}, groups: seedGroups(), recheck: 30 * m,
			phases: []string{"dev Blocked", "stg Blocked", "prod Blocked"},
		},
		{
			name: "All: held groups' untouched clusters wait", s: strategy(all, cfg{}),
			gates: []rollout.Gate{rollout.Approval(key("dev", 0), key("", 2))}, groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("stg-cluster", rollout.Progressing, at(-m))},
			list:     []string{"dev-cluster", "stg-cluster", "prod-cluster"},
			phases:   []string{"dev Active", "stg Active", "prod Active"},
		},
		{
			name: "All: paused lists only clusters in flight", s: strategy(all, cfg{}),
			gates: []rollout.Gate{rollout.Paused("")}, groups: []grouping.Group{group("a", 0, "a1", "a2"), group("b", 1, "b1")},
			statuses: []rollout.ClusterStatus{status("a2", rollout.Progressing, at(-m))},
			list:     []string{"a2"},
			phases:   []string{"a Blocked", "b Blocked"},
			reasons: map[string]string{
				"b": "held: rollout paused",
			},
		},
		{
			name: "combined: every gate must admit; reasons joined", s: strategy(perGroup, cfg{}),
			gates:  []rollout.Gate{rollout.Paused("freeze"), rollout.Approval(key("stg", 0)), open},
			groups: seedGroups(),
			phases: []string{"dev Blocked", "stg Waiting", "prod Waiting"},
			reasons: map[string]string{
				"dev": `held: rollout paused: freeze; waiting for approval of group "dev"`,
			},
		},
		{
			name: "combined: all admit", s: strategy(perGroup, cfg{}),
			gates:  []rollout.Gate{rollout.Approval(key("dev", 0)), open, nil},
			groups: seedGroups(), list: []string{"dev-cluster"},
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
		},
		{
			name: "combined: the nearest recheck of the holding gates", s: strategy(all, cfg{}),
			gates:  []rollout.Gate{holdAll("later", 2*time.Hour), closed, holdAll("", 0), open},
			groups: seedGroups(), recheck: 30 * m,
			phases: []string{"dev Blocked", "stg Blocked", "prod Blocked"},
			reasons: map[string]string{
				"dev": "held: later; outside the time window Mon 13:30-14:00 Europe/Berlin; it opens Mon 2026-11-30 13:30 CET",
			},
		},
		{
			name: "a gate with no reason", s: strategy(perGroup, cfg{}),
			gates: []rollout.Gate{holdAll("", 0)}, groups: seedGroups(),
			phases:  []string{"dev Blocked", "stg Waiting", "prod Waiting"},
			reasons: map[string]string{"dev": "held: a gate holds the group"},
		},
		{
			name: "a complete group is not blocked", s: strategy(perGroup, cfg{}),
			gates: []rollout.Gate{rollout.Paused("")}, groups: seedGroups(), statuses: devDone,
			phases: []string{"dev Complete", "stg Blocked", "prod Waiting"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0(), tt.gates...).Plan(tt.s, tt.groups, tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.list, names(res.ToRollout), "ToRollout")
			assert.Equal(t, tt.recheck, res.RecheckAfter, "RecheckAfter")
			if tt.phases != nil {
				assert.Equal(t, tt.phases, phases(res.Groups), "phases")
			}
			got := reasons(res.Groups)
			for g, want := range tt.reasons {
				assert.Equal(t, want, got[g], "reason of %q", g)
			}
		})
	}
}

// TestPlanConsultsGatesOncePerGroup checks that a gate is asked once per
// group and call, with the planner's time and the group's key, and only
// about groups that could start.
func TestPlanConsultsGatesOncePerGroup(t *testing.T) {
	t.Parallel()
	groups := []grouping.Group{group("a", 0, "a1", "a2", "a3"), group("b", 1, "b1", "b2"), group("c", 2, "c1"), group("d", 3, "d1")}
	done := []rollout.ClusterStatus{status("c1", rollout.Succeeded, at(-time.Hour))}
	tests := []struct {
		name string
		s    clusterv1alpha1.RolloutStrategy
		want []grouping.GroupKey
	}{
		{"All: every group with clusters to start", strategy(all, cfg{}), []grouping.GroupKey{key("a", 0), key("b", 1), key("d", 3)}},
		{"Progressive: every group with clusters to start", strategy(progressive, cfg{}, concurrency(intstr.FromInt32(1))),
			[]grouping.GroupKey{key("a", 0), key("b", 1), key("d", 3)}},
		{"Progressive: a mandatory group once", strategy(progressive, cfg{}, mandatory(byName("b"))), []grouping.GroupKey{key("b", 1)}},
		{"ProgressivePerGroup: up to the group that starts", strategy(perGroup, cfg{}), []grouping.GroupKey{key("a", 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asked []grouping.GroupKey
			count := rollout.GateFunc(func(g grouping.GroupKey, now time.Time) rollout.Admission {
				assert.Equal(t, t0(), now)
				asked = append(asked, g)
				return rollout.Admission{Admitted: true}
			})
			_, err := plannerAt(t0(), count).Plan(tt.s, groups, done)
			require.NoError(t, err)
			assert.Equal(t, tt.want, asked)
		})
	}
}

// TestWindowMatchesWallClock compares Window with the rule read literally,
// minute by minute: inside when the wall clock in Berlin reads a time in
// [start, end) on one of the days (or, past midnight, before end on the day
// after one of them). Random windows on a 15-minute grid, random times
// around the 2026 DST changes and elsewhere.
func TestWindowMatchesWallClock(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	rng := rand.New(rand.NewPCG(5, 2026))
	anchors := []time.Time{
		time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC),  // summer time starts
		time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC), // winter time starts
		time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC),
	}
	for i := range 400 {
		var days []time.Weekday
		for d := time.Sunday; d <= time.Saturday; d++ {
			if rng.IntN(2) == 0 {
				days = append(days, d)
			}
		}
		if len(days) == 0 {
			days = []time.Weekday{time.Weekday(rng.IntN(7))}
		}
		start := time.Duration(rng.IntN(96)) * 15 * time.Minute
		end := time.Duration(rng.IntN(96)) * 15 * time.Minute
		if start == end {
			continue
		}
		g, err := rollout.Window(loc, days, start, end)
		require.NoError(t, err)
		now := anchors[i%len(anchors)].Add(time.Duration(rng.IntN(4*24*60)-2*24*60) * time.Minute)
		if i%4 == 0 {
			now = now.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond)
		}
		var on [7]bool
		for _, d := range days {
			on[d] = true
		}
		inside := func(t time.Time) bool {
			l := t.In(loc)
			h, m, s := l.Clock()
			tod := hm(h, m) + time.Duration(s)*time.Second + time.Duration(l.Nanosecond())
			if start < end {
				return on[l.Weekday()] && tod >= start && tod < end
			}
			return on[l.Weekday()] && tod >= start || on[(l.Weekday()+6)%7] && tod < end
		}
		in := inside(now)
		var want time.Duration
		for next := now.Truncate(time.Minute).Add(time.Minute); next.Sub(now) < 15*24*time.Hour; next = next.Add(time.Minute) {
			if inside(next) != in {
				want = next.Sub(now)
				break
			}
		}
		a := g.Admit(key("prod", 2), now)
		name := fmt.Sprintf("%v %v-%v at %s", days, start, end, now.In(loc).Format(time.RFC3339Nano))
		assert.Equal(t, in, a.Admitted, "%s: Admitted", name)
		assert.Equal(t, want, a.RecheckAfter, "%s: RecheckAfter", name)
	}
}
