package conformance

// One test per documented divergence (docs/compatibility.md): each runs
// both planners on one hand-made input and asserts OCM's behaviour and
// ours. None is parallel: OCM reads the package-level RolloutClock.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// D1
func TestDivergence_EmptyTypeIsAll(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "dev#0: a b")
	statuses := statusesOf(t, now, groups, "a=Progressing@-1m")
	s := all("5m")
	s.Type = ""

	ours, theirs := plans(t, now, s, groups, statuses)

	require.ErrorContains(t, theirs.Err, "incorrect rollout strategy type", "OCM rejects the CRD's default type")
	assert.Equal(t, []string{"a", "b"}, names(ours.ToRollout), "ours: empty type is All")
	assert.Empty(t, diff(ours, ocmOutcome(now, all("5m"), groups, statuses)), "ours with \"\" = OCM with All")
}

// D2
func TestDivergence_PercentIsExact(t *testing.T) {
	now := baseNow
	pct := intstr.FromString
	for _, tc := range []struct {
		name                  string
		strategy              clusterv1alpha1.RolloutStrategy
		groups                []string
		statuses              []string
		ours, ocm             int // clusters listed
		oursBreach, ocmBreach bool
	}{{
		name:     "Progressive maxConcurrency 7% of 100",
		strategy: progressive("", 0, i0, pct("7%")),
		groups:   []string{"prod#0:" + numbered("c", 100)},
		ours:     7, ocm: 8,
	}, {
		name:     "Progressive maxFailures 28% of 25",
		strategy: progressive("", 0, pct("28%"), i0),
		groups:   []string{"prod#0:" + numbered("c", 25)},
		statuses: []string{"c000=TimeOut@-1h", "c001=TimeOut@-1h", "c002=TimeOut@-1h", "c003=TimeOut@-1h", "c004=TimeOut@-1h", "c005=TimeOut@-1h", "c006=TimeOut@-1h", "c007=TimeOut@-1h"},
		ours:     0, ocm: 17, // 8 failures: over our budget of 7, within OCM's of 8
		oursBreach: true,
	}, {
		name:     "ProgressivePerGroup maxFailures 28% of a group of 25",
		strategy: perGroup("", 0, pct("28%")),
		groups:   []string{"prod#0:" + numbered("c", 25), "next#1: x"},
		statuses: []string{"c000=TimeOut@-1h", "c001=TimeOut@-1h", "c002=TimeOut@-1h", "c003=TimeOut@-1h", "c004=TimeOut@-1h", "c005=TimeOut@-1h", "c006=TimeOut@-1h", "c007=TimeOut@-1h"},
		ours:     0, ocm: 17, // OCM: the group's 17 untouched; next waits for them
		oursBreach: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			groups := groupsOf(t, tc.groups...)
			ours, theirs := plans(t, now, tc.strategy, groups, statusesOf(t, now, groups, tc.statuses...))
			require.NoError(t, theirs.Err)
			assert.Len(t, ours.ToRollout, tc.ours, "ours: exact ceil")
			assert.Len(t, theirs.ToRollout, tc.ocm, "OCM: float ceil")
			assert.Equal(t, tc.oursBreach, ours.Breach, "ours: breach")
			assert.Equal(t, tc.ocmBreach, theirs.Breach, "OCM: breach")
		})
	}
}

// D3
func TestDivergence_MaxFailuresAboveSizeMeansAll(t *testing.T) {
	now := baseNow
	t.Run("ProgressivePerGroup: 5 of a group of 3", func(t *testing.T) {
		groups := groupsOf(t, "dev#0: a b c", "prod#1: d e")
		statuses := statusesOf(t, now, groups, "a=TimeOut@-1h", "b=Succeeded@-2h", "c=Succeeded@-2h")
		ours, theirs := plans(t, now, perGroup("", 0, intstr.FromInt32(5)), groups, statuses)
		assert.Equal(t, []string{"d", "e"}, names(ours.ToRollout), "ours: one failure of 3 is within a budget of 5")
		assert.False(t, ours.Breach)
		assert.Empty(t, theirs.ToRollout, "OCM: 5 > 3 becomes 0")
		assert.True(t, theirs.Breach)
	})
	t.Run("Progressive: 10 of a fleet of 5", func(t *testing.T) {
		groups := groupsOf(t, "prod#0: a b c d e")
		statuses := statusesOf(t, now, groups, "a=TimeOut@-1h")
		ours, theirs := plans(t, now, progressive("", 0, intstr.FromInt32(10), intstr.FromInt32(2)), groups, statuses)
		assert.Equal(t, []string{"b", "c"}, names(ours.ToRollout))
		assert.False(t, ours.Breach)
		assert.Empty(t, theirs.ToRollout, "OCM: 10 > 5 becomes 0")
		assert.True(t, theirs.Breach)
	})
}

// D4
func TestDivergence_PerGroupTimeoutReleasesNextGroup(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "stg#0: a b", "prod#1: c")
	statuses := statusesOf(t, now, groups, "a=Progressing@-10m", "b=Progressing@-1m")

	ours, theirs := plans(t, now, perGroup("5m", 0, i1), groups, statuses)

	assert.Equal(t, []string{"a"}, names(ours.TimedOut))
	assert.Equal(t, []string{"a"}, names(theirs.TimedOut))
	assert.Equal(t, []string{"b"}, names(ours.ToRollout), "ours: prod waits for b")
	assert.Equal(t, []string{"b", "c"}, names(theirs.ToRollout), "OCM: a's timeout cancels b in its count, so prod starts while b progresses")
}

// D5
func TestDivergence_MandatoryPhaseStallsOnTimeout(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "dev#0: a", "prod#1: b c", "rest#2: d")
	statuses := statusesOf(t, now, groups, "a=Succeeded@-2h", "b=Progressing@-10m", "c=Succeeded@-2h")
	for name, s := range map[string]clusterv1alpha1.RolloutStrategy{
		"ProgressivePerGroup": perGroup("5m", 0, i1, byName("dev")),
		"Progressive":         progressive("5m", 0, i1, i0, byName("dev")),
	} {
		t.Run(name, func(t *testing.T) {
			// The cluster keeps reporting Progressing: OCM never gets past
			// the mandatory phase, however long one waits.
			for _, later := range []time.Duration{0, time.Hour, 30 * 24 * time.Hour} {
				ours, theirs := plans(t, now.Add(later), s, groups, statuses)
				assert.Equal(t, []string{"b"}, names(ours.TimedOut))
				assert.Equal(t, []string{"b"}, names(theirs.TimedOut))
				assert.Equal(t, []string{"d"}, names(ours.ToRollout), "ours at +%s: b's timeout is within prod's budget of 1", later)
				assert.Empty(t, theirs.ToRollout, "OCM at +%s: stalled in the mandatory phase", later)
			}
		})
	}
}

// D6
func TestDivergence_ProgressiveCountsFailuresPastWindow(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "prod#0: a b c")
	statuses := statusesOf(t, now, groups, "a=Progressing@-1m", "b=TimeOut@-1h")

	ours, theirs := plans(t, now, progressive("", 0, i0, i1), groups, statuses)

	assert.Equal(t, []string{"a"}, names(ours.ToRollout))
	assert.Equal(t, []string{"a"}, names(theirs.ToRollout))
	assert.True(t, ours.Breach, "ours: b's timeout exceeds maxFailures 0")
	assert.False(t, theirs.Breach, "OCM: the window filled at a, so b was never counted")
}

// D7
func TestDivergence_ProgressiveListsEveryInFlightCluster(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "prod#0: a b c d")
	statuses := statusesOf(t, now, groups, "a=Progressing@-10m", "b=Progressing@-50m", "c=Progressing@-59m", "d=Progressing@-2h")

	ours, theirs := plans(t, now, progressive("1h", 0, i1, i1), groups, statuses)

	assert.Equal(t, []string{"a", "b", "c"}, names(ours.ToRollout), "ours: every started cluster is listed")
	assert.Equal(t, []string{"d"}, names(ours.TimedOut))
	assert.Equal(t, time.Minute, ours.RecheckAfter, "ours: c's deadline")
	assert.Equal(t, []string{"a"}, names(theirs.ToRollout), "OCM: at most maxConcurrency")
	assert.Empty(t, theirs.TimedOut, "OCM: d is past the window, never looked at")
	assert.Equal(t, 50*time.Minute, theirs.RecheckAfter, "OCM: c's deadline is missed")
}

// D8
func TestDivergence_ProgressiveToApplyEntryNotRankedFirst(t *testing.T) {
	now := baseNow
	for _, tc := range []struct {
		name            string
		strategy        clusterv1alpha1.RolloutStrategy
		groups          string
		statuses        []string
		ours, ocm       []string
		oursBr, theirBr bool
	}{{
		name:     "a ToApply entry goes before an untouched cluster",
		strategy: progressive("", 0, i0, intstr.FromInt32(2)),
		groups:   "prod#0: a b c d", statuses: []string{"b=ToApply", "c=Progressing@-1m"},
		ours: []string{"a", "c"}, ocm: []string{"b", "c"},
	}, {
		name:     "a ToApply entry pushes an in-flight cluster out",
		strategy: progressive("5m", 0, i0, i1),
		groups:   "prod#0: a b", statuses: []string{"a=ToApply", "b=Progressing@-1m"},
		ours: []string{"b"}, ocm: []string{"a"},
	}, {
		name:     "a ToApply entry starts despite a breach",
		strategy: progressive("", 0, i0, i0),
		groups:   "prod#0: a b c", statuses: []string{"a=ToApply", "b=TimeOut@-1h"},
		ours: []string{}, ocm: []string{"a"}, oursBr: true, theirBr: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			groups := groupsOf(t, tc.groups)
			ours, theirs := plans(t, now, tc.strategy, groups, statusesOf(t, now, groups, tc.statuses...))
			assert.Equal(t, tc.ours, names(ours.ToRollout), "ours")
			assert.Equal(t, tc.ocm, names(theirs.ToRollout), "OCM")
			assert.Equal(t, tc.oursBr, ours.Breach, "ours: breach")
			assert.Equal(t, tc.theirBr, theirs.Breach, "OCM: breach")
		})
	}
}

// D9
func TestDivergence_ProgressiveMandatoryWaitsForAllInFlight(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "dev#0: a", "prod#1: b c d e")
	statuses := statusesOf(t, now, groups, "a=Succeeded@-2h", "b=Progressing@-1m")

	ours, theirs := plans(t, now, progressive("", 0, i0, intstr.FromInt32(3), byName("dev")), groups, statuses)

	assert.Equal(t, []string{"b", "c", "d"}, names(ours.ToRollout), "ours: dev is done, prod fills its window of 3")
	assert.Equal(t, []string{"b"}, names(theirs.ToRollout), "OCM: still in the mandatory phase while b progresses")
}

// D10
func TestDivergence_BreachStartsNothing(t *testing.T) {
	now := baseNow
	for _, tc := range []struct {
		name     string
		strategy clusterv1alpha1.RolloutStrategy
		groups   []string
		statuses []string
		ocm      []string
	}{{
		name:     "ProgressivePerGroup",
		strategy: perGroup("", 0, i0),
		groups:   []string{"prod#0: a b c"}, statuses: []string{"a=TimeOut@-1h", "b=Succeeded@-2h"},
		ocm: []string{"c"},
	}, {
		name:     "Progressive, mandatory group",
		strategy: progressive("", 0, i0, i0, byName("dev")),
		groups:   []string{"dev#0: a b", "prod#1: c"}, statuses: []string{"a=TimeOut@-1h"},
		ocm: []string{"b"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			groups := groupsOf(t, tc.groups...)
			ours, theirs := plans(t, now, tc.strategy, groups, statusesOf(t, now, groups, tc.statuses...))
			assert.True(t, ours.Breach)
			assert.True(t, theirs.Breach)
			assert.Empty(t, ours.ToRollout, "ours: nothing new starts on a breach")
			assert.Equal(t, tc.ocm, names(theirs.ToRollout), "OCM: the breached group's untouched clusters")
		})
	}
}

// D11
func TestDivergence_MandatoryFailureHalts(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "dev#0: a b", "prod#1: c d")
	statuses := statusesOf(t, now, groups, "a=TimeOut@-1h", "b=Succeeded@-2h")
	for name, s := range map[string]clusterv1alpha1.RolloutStrategy{
		"ProgressivePerGroup": perGroup("", 0, i1, byName("dev")),
		"Progressive":         progressive("", 0, i1, i0, byName("dev")),
	} {
		t.Run(name, func(t *testing.T) {
			ours, theirs := plans(t, now, s, groups, statuses)
			assert.True(t, ours.Breach, "ours: a mandatory group tolerates no failure")
			assert.Empty(t, ours.ToRollout)
			assert.False(t, theirs.Breach, "OCM: the mandatory phase listed nothing, so its breach is dropped")
			assert.Equal(t, []string{"c", "d"}, names(theirs.ToRollout), "OCM: prod starts after a failed mandatory group")
		})
	}
}

// D12
func TestDivergence_DeadlineIsAnyGoDuration(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "prod#0: a b")
	statuses := statusesOf(t, now, groups, "a=Progressing@-1h", "b=Progressing@-10m")
	for _, tc := range []struct{ deadline, same string }{{"1.5h", "90m"}, {"0.5h", "30m"}, {"1h30m", "90m"}} {
		t.Run(tc.deadline, func(t *testing.T) {
			ours, theirs := plans(t, now, all(tc.deadline), groups, statuses)
			if ocmDeadlineOK(tc.deadline) {
				require.NoError(t, theirs.Err, "control: OCM's pattern matches %q", tc.deadline)
			} else {
				require.ErrorContains(t, theirs.Err, "invalid timeout format", "OCM rejects %q", tc.deadline)
			}
			assert.Empty(t, diff(ours, ocmOutcome(now, all(tc.same), groups, statuses)), "ours with %q = OCM with %q", tc.deadline, tc.same)
		})
	}
}

// D13
func TestDivergence_ToApplyKeepsTransitionTime(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "prod#0: a b")
	statuses := statusesOf(t, now, groups, "a=ToApply@-1h")
	for _, tc := range []struct {
		name     string
		strategy clusterv1alpha1.RolloutStrategy
		ocmLTT   string
	}{
		{"ProgressivePerGroup: OCM writes a fresh status", perGroup("", 0, i0), "none"},
		{"Progressive: OCM passes the entry through", progressive("", 0, i0, i0), "-1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, theirs := plans(t, now, tc.strategy, groups, statuses)
			require.Equal(t, []string{"a", "b"}, names(ours.ToRollout))
			require.Equal(t, []string{"a", "b"}, names(theirs.ToRollout))
			assert.Equal(t, "-1h0m0s", ours.ToRollout[0].LTT, "ours: the caller's transition time, whatever the type")
			assert.Equal(t, tc.ocmLTT, theirs.ToRollout[0].LTT, "OCM")
		})
	}
}

// D14
func TestDivergence_InvalidInputsAreErrors(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "prod#0: a b")
	ok := statusesOf(t, now, groups, "a=Progressing@-1m")
	unknown := rollout.ClusterStatus{Cluster: "b", Group: groups[0].GroupKey, Status: rollout.Status(42), LastTransitionTime: now.Add(-time.Minute)}
	for _, tc := range []struct {
		name     string
		strategy clusterv1alpha1.RolloutStrategy
		statuses []rollout.ClusterStatus
		field    string
	}{
		{"negative maxFailures", perGroup("", 0, intstr.FromInt32(-1)), ok, "progressivePerGroup.maxFailures"},
		{"negative maxConcurrency", progressive("", 0, i0, intstr.FromInt32(-2)), ok, "progressive.maxConcurrency"},
		{"fractional percentage", progressive("", 0, intstr.FromString("7.5%"), i0), ok, "progressive.maxFailures"},
		{"percentage above 100", perGroup("", 0, intstr.FromString("150%")), ok, "progressivePerGroup.maxFailures"},
		{"two statuses for one cluster", all(""), append(slices.Clone(ok), ok[0]), "statuses[1].Cluster"},
		{"empty cluster name", all(""), append(slices.Clone(ok), rollout.ClusterStatus{Status: rollout.Failed}), "statuses[1].Cluster"},
		{"a status value outside the six", all("15m"), append(slices.Clone(ok), unknown), "statuses[1].Status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, _ := runOurs(now, tc.strategy, groups, tc.statuses)
			var fe *field.Error
			require.True(t, errors.As(ours.Err, &fe), "ours: want a *field.Error, got %v", ours.Err)
			assert.Equal(t, tc.field, fe.Field)
			theirs := ocmOutcome(now, tc.strategy, groups, tc.statuses)
			assert.NoError(t, theirs.Err, "OCM accepts it")
		})
	}
	t.Run("OCM passes an unknown status value through, as a progressing cluster", func(t *testing.T) {
		theirs := ocmOutcome(now, all("15m"), groups, append(slices.Clone(ok), unknown))
		require.NoError(t, theirs.Err)
		require.Equal(t, []string{"a", "b"}, names(theirs.ToRollout))
		assert.Equal(t, rollout.Status(42), theirs.ToRollout[1].Status)
		assert.Equal(t, "+14m0s", theirs.ToRollout[1].Recheck, "the deadline of a progressing cluster")
	})
	t.Run("OCM returns an empty cluster name as removed", func(t *testing.T) {
		theirs := ocmOutcome(now, all(""), groups, []rollout.ClusterStatus{{Status: rollout.Failed}})
		require.NoError(t, theirs.Err)
		assert.Equal(t, []string{""}, names(theirs.Removed))
	})
}

// D15
func TestDivergence_NonContiguousGroupIndices(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "dev#0: a", "prod#2: b")
	statuses := statusesOf(t, now, groups, "b=Progressing@-1m")

	ours, theirs := plans(t, now, all(""), groups, statuses)

	assert.Equal(t, []string{"a", "b"}, names(ours.ToRollout), "ours: every group, whatever its index")
	assert.Empty(t, ours.Removed)
	assert.Equal(t, []string{"a"}, names(theirs.ToRollout), "OCM's tracker walks indices 0..len-1 and loses prod#2")
	assert.Equal(t, []string{"b"}, names(theirs.Removed))
}

// D16
func TestDivergence_OutputFieldsAreComputed(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "prod#0: a b")
	statuses := statusesOf(t, now, groups, "a=Progressing@-1m", "b=ToApply")
	for i := range statuses {
		statuses[i].Group = grouping.GroupKey{} // a caller that did not fill the group in
	}
	statuses[1].RecheckTime = now.Add(time.Hour) // left over from an earlier call
	gone := rollout.ClusterStatus{Cluster: "gone", Group: grouping.GroupKey{Name: "stg", Index: 1}, Status: rollout.Succeeded,
		LastTransitionTime: now.Add(-time.Hour), RecheckTime: now.Add(time.Minute)}
	statuses = append(statuses, gone)

	ours, theirs := plans(t, now, all(""), groups, statuses)

	for _, r := range ours.ToRollout {
		assert.Equal(t, "prod", r.Group.Name, "ours: %s's group comes from the groups", r.Cluster)
	}
	assert.Equal(t, "none", ours.ToRollout[1].Recheck, "ours: a ToApply cluster has nothing to wait for")
	assert.Zero(t, ours.RecheckAfter)
	for _, r := range theirs.ToRollout {
		assert.Empty(t, r.Group.Name, "OCM echoes the caller's group for %s", r.Cluster)
	}
	assert.Equal(t, "+1h0m0s", theirs.ToRollout[1].Recheck, "OCM echoes the caller's recheck time")
	assert.Equal(t, time.Hour, theirs.RecheckAfter, "and waits for it")

	// Not a divergence: both return a removed cluster exactly as given, its
	// group included (docs/semantics.md §3.2).
	want := []row{{"gone", rollout.Succeeded, grouping.GroupKey{Name: "stg", Index: 1}, "-1h0m0s", "+1m0s"}}
	assert.Equal(t, want, ours.Removed, "ours")
	assert.Equal(t, want, theirs.Removed, "OCM")
}

// Checked, not a divergence: neither planner modifies the caller's statuses.
// (OCM's progressivePerCluster sorts a slice in place, but GetRolloutCluster
// hands it a copy made while separating removed clusters.)
func TestNoDivergence_InputsUnmodified(t *testing.T) {
	now := baseNow
	groups := groupsOf(t, "dev#0: c b", "prod#1: a d")
	statuses := statusesOf(t, now, groups, "d=Progressing@-1m", "c=Succeeded@-2h", "a=ToApply", "b=Failed@-3m", "gone=Skip")
	for _, s := range []clusterv1alpha1.RolloutStrategy{all("5m"), progressive("5m", time.Minute, i1, i1), perGroup("5m", time.Minute, i1)} {
		t.Run(string(s.Type), func(t *testing.T) {
			want := slices.Clone(statuses)
			wantGroups := cloneGroups(groups)
			_, _ = runOurs(now, s, groups, statuses)
			assert.Equal(t, want, statuses, "ours")
			assert.Equal(t, wantGroups, groups, "ours")
			in := toOCM(statuses)
			wantOCM := toOCM(statuses)
			_ = runOCM(now, s, ocmHandler(groups), in)
			assert.Equal(t, wantOCM, in, "OCM")
		})
	}
}

// D18
func TestDivergence_FailuresCountedEverywhere(t *testing.T) {
	now := baseNow
	t.Run("ProgressivePerGroup: a Failed cluster of the active group", func(t *testing.T) {
		groups := groupsOf(t, "dev#0: a", "stg#1: b", "prod#2: c")
		statuses := statusesOf(t, now, groups, "a=Succeeded@-2h", "b=Failed@-1m")

		ours, theirs := plans(t, now, perGroup("15m", 0, i0), groups, statuses)
		assert.True(t, ours.Breach, "ours: b's failure exceeds stg's budget of 0 at once")
		assert.False(t, theirs.Breach, "OCM: its walk stops at dev while b is listed, so stg's failures are not counted")
		assert.Equal(t, []string{"b"}, names(ours.ToRollout), "both keep the failed cluster listed")
		assert.Equal(t, []string{"b"}, names(theirs.ToRollout))

		// At b's deadline it becomes TimeOut: OCM's walk reaches stg and
		// breaches too.
		later := now.Add(14 * time.Minute)
		ours, theirs = plans(t, later, perGroup("15m", 0, i0), groups, statuses)
		assert.Empty(t, diff(ours, theirs), "the same once the deadline passed")
		assert.True(t, theirs.Breach)
	})
	t.Run("ProgressivePerGroup: a failure in a group the walk has not reached", func(t *testing.T) {
		groups := groupsOf(t, "dev#0: a1 a2", "prod#1: c")
		statuses := statusesOf(t, now, groups, "a1=Progressing@-1m", "c=TimeOut@-1h")

		ours, theirs := plans(t, now, perGroup("15m", 0, i0), groups, statuses)
		assert.True(t, ours.Breach)
		assert.Equal(t, []string{"a1"}, names(ours.ToRollout), "ours: nothing new starts, a1 carries on")
		assert.False(t, theirs.Breach)
		assert.Equal(t, []string{"a1", "a2"}, names(theirs.ToRollout), "OCM: dev goes on as if prod had no failure")
	})
	t.Run("Progressive: failures over the fleet's budget during the mandatory phase", func(t *testing.T) {
		groups := groupsOf(t, "dev#0: a", "prod#1: b c")
		statuses := statusesOf(t, now, groups, "a=Progressing@-1m", "b=TimeOut@-1h")

		ours, theirs := plans(t, now, progressive("15m", 0, i0, i0, byName("dev")), groups, statuses)
		assert.True(t, ours.Breach, "ours: b's timeout exceeds maxFailures 0 whatever the phase")
		assert.False(t, theirs.Breach, "OCM: the mandatory phase counts only dev's failures")
		assert.Equal(t, []string{"a"}, names(ours.ToRollout))
		assert.Equal(t, []string{"a"}, names(theirs.ToRollout))
	})
}
