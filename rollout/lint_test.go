package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestWarnings(t *testing.T) {
	t.Parallel()
	var unknown time.Time
	five := []grouping.Group{group("a", 0, "a1", "a2", "a3"), group("b", 1, "b1", "b2")}
	tests := []struct {
		name     string
		s        clusterv1alpha1.RolloutStrategy
		groups   []grouping.Group
		statuses []rollout.ClusterStatus
		want     []rollout.Warning
	}{
		{
			name: "none for a plain strategy", s: strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "15m"}), groups: seedGroups(),
		},
		{
			name: "an unknown transition time under a deadline names the cluster",
			s:    strategy(all, cfg{deadline: "15m"}), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("stg-cluster", rollout.Progressing, unknown)},
			want:     []rollout.Warning{{rollout.UnknownTransitionTime, `1 cluster(s) have no lastTransitionTime, so their soak or deadline is measured from now and restarts at every call: "stg-cluster"`}},
		},
		{
			name: "an unknown transition time under a soak",
			s:    strategy(progressive, cfg{soak: time.Minute, deadline: "15m"}), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, unknown), status("prod-cluster", rollout.Failed, unknown)},
			want:     []rollout.Warning{{rollout.UnknownTransitionTime, `2 cluster(s) have no lastTransitionTime, so their soak or deadline is measured from now and restarts at every call: "dev-cluster", "prod-cluster"`}},
		},
		{
			name: "many unknown transition times: three named, in group order",
			s:    strategy(perGroup, cfg{deadline: "1h"}), groups: five,
			statuses: each([]string{"b2", "b1", "a3", "a2", "a1"}, rollout.Progressing, unknown),
			want:     []rollout.Warning{{rollout.UnknownTransitionTime, `5 cluster(s) have no lastTransitionTime, so their soak or deadline is measured from now and restarts at every call: "a1", "a2", "a3" and 2 more`}},
		},
		{
			name: "unknown transition times are harmless without a soak or deadline",
			s:    strategy(perGroup, cfg{}), groups: five,
			statuses: []rollout.ClusterStatus{status("a1", rollout.Progressing, unknown), status("a2", rollout.Succeeded, unknown),
				status("a3", rollout.Failed, unknown), status("b1", rollout.TimeOut, unknown), status("b2", rollout.Skip, unknown)},
		},
		{
			name: "All ignores the soak, so an unknown time of a success is harmless",
			s:    strategy(all, cfg{soak: time.Hour}), groups: five,
			statuses: []rollout.ClusterStatus{status("a1", rollout.Succeeded, unknown), status("a2", rollout.ToApply, unknown)},
		},
		{
			name: "mandatory entries that match no group",
			s:    strategy(perGroup, cfg{}, mandatory(byName("dev"), byName("qa"), byIndex(7))), groups: seedGroups(),
			want: []rollout.Warning{
				{rollout.UnmatchedMandatoryGroup, `progressivePerGroup.mandatoryDecisionGroups[1] (groupName "qa") matches no decision group; it is ignored`},
				{rollout.UnmatchedMandatoryGroup, `progressivePerGroup.mandatoryDecisionGroups[2] (groupIndex 7) matches no decision group; it is ignored`},
			},
		},
		{
			name: "a mandatory name that matches nothing, although its index would",
			s:    strategy(progressive, cfg{}, mandatory(clusterv1alpha1.MandatoryDecisionGroup{GroupName: "qa", GroupIndex: 1})), groups: seedGroups(),
			want: []rollout.Warning{{rollout.UnmatchedMandatoryGroup, `progressive.mandatoryDecisionGroups[0] (groupName "qa") matches no decision group; it is ignored`}},
		},
		{
			name: "maxFailures 100% can never trip",
			s:    strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromString("100%")}), groups: seedGroups(),
			want: []rollout.Warning{{rollout.FailureBudgetNeverTrips, `progressivePerGroup.maxFailures 100% is at least the number of clusters it applies to, so the failure check can never trip`}},
		},
		{
			name: "an int maxFailures as large as every group",
			s:    strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(3)}), groups: five,
			want: []rollout.Warning{{rollout.FailureBudgetNeverTrips, `progressivePerGroup.maxFailures 3 is at least the number of clusters it applies to, so the failure check can never trip`}},
		},
		{
			name: "an int maxFailures smaller than one group can trip",
			s:    strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(2)}), groups: five,
		},
		{
			name: "mandatory groups do not count: their budget is 0",
			s:    strategy(perGroup, cfg{deadline: "15m", maxFail: intstr.FromInt32(2)}, mandatory(byName("a"))), groups: five,
			want: []rollout.Warning{{rollout.FailureBudgetNeverTrips, `progressivePerGroup.maxFailures 2 is at least the number of clusters it applies to, so the failure check can never trip`}},
		},
		{
			name: "Progressive: maxFailures over all clusters",
			s:    strategy(progressive, cfg{deadline: "15m", maxFail: intstr.FromInt32(5)}), groups: five,
			want: []rollout.Warning{{rollout.FailureBudgetNeverTrips, `progressive.maxFailures 5 is at least the number of clusters it applies to, so the failure check can never trip`}},
		},
		{
			name: "Progressive: 99% of 5 is 5 (ceil): it can never trip",
			s:    strategy(progressive, cfg{deadline: "15m", maxFail: intstr.FromString("99%")}), groups: five,
			want: []rollout.Warning{{rollout.FailureBudgetNeverTrips, `progressive.maxFailures 99% is at least the number of clusters it applies to, so the failure check can never trip`}},
		},
		{
			name: "Progressive: 4 of 5 can trip",
			s:    strategy(progressive, cfg{deadline: "15m", maxFail: intstr.FromInt32(4)}), groups: five,
		},
		{
			name: "All has no failure check to warn about",
			s:    strategy(all, cfg{deadline: "15m", maxFail: intstr.FromString("100%")}), groups: five,
		},
		{
			name: "deadline None with a soak",
			s:    strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "None"}), groups: seedGroups(),
			want: []rollout.Warning{{rollout.SoakWithoutDeadline, `progressivePerGroup.progressDeadline is None while minSuccessTime is 5m0s: one cluster stuck Progressing holds the rollout forever`}},
		},
		{
			name: "an empty deadline is None",
			s:    strategy(progressive, cfg{soak: time.Hour}), groups: seedGroups(),
			want: []rollout.Warning{{rollout.SoakWithoutDeadline, `progressive.progressDeadline is None while minSuccessTime is 1h0m0s: one cluster stuck Progressing holds the rollout forever`}},
		},
		{
			name: "All: the soak does not apply",
			s:    strategy(all, cfg{soak: time.Hour}), groups: seedGroups(),
		},
		{
			name: "everything at once, in a fixed order",
			s:    strategy(perGroup, cfg{soak: time.Minute, maxFail: intstr.FromString("100%")}, mandatory(byName("qa"))), groups: seedGroups(),
			statuses: []rollout.ClusterStatus{status("dev-cluster", rollout.Succeeded, unknown)},
			want: []rollout.Warning{
				{rollout.UnknownTransitionTime, `1 cluster(s) have no lastTransitionTime, so their soak or deadline is measured from now and restarts at every call: "dev-cluster"`},
				{rollout.UnmatchedMandatoryGroup, `progressivePerGroup.mandatoryDecisionGroups[0] (groupName "qa") matches no decision group; it is ignored`},
				{rollout.FailureBudgetNeverTrips, `progressivePerGroup.maxFailures 100% is at least the number of clusters it applies to, so the failure check can never trip`},
				{rollout.SoakWithoutDeadline, `progressivePerGroup.progressDeadline is None while minSuccessTime is 1m0s: one cluster stuck Progressing holds the rollout forever`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := plannerAt(t0()).Plan(tt.s, tt.groups, tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Warnings)
		})
	}
}

func TestWarningString(t *testing.T) {
	t.Parallel()
	res, err := plannerAt(t0()).Plan(strategy(progressive, cfg{soak: time.Hour}), seedGroups(), nil)
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	assert.Equal(t, "SoakWithoutDeadline: progressive.progressDeadline is None while minSuccessTime is 1h0m0s: one cluster stuck Progressing holds the rollout forever",
		res.Warnings[0].String())
}
