package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// groupsOf builds groups from specs "name#index: cluster cluster ...";
// "#1: x" is an unnamed group.
func groupsOf(t *testing.T, specs ...string) []grouping.Group {
	t.Helper()
	var out []grouping.Group
	for _, spec := range specs {
		head, body, ok := strings.Cut(spec, ":")
		require.True(t, ok, "group spec %q: want name#index: clusters", spec)
		name, idx, ok := strings.Cut(head, "#")
		require.True(t, ok, "group spec %q: want name#index", spec)
		i, err := strconv.Atoi(idx)
		require.NoError(t, err, "group spec %q", spec)
		out = append(out, grouping.Group{GroupKey: grouping.GroupKey{Name: name, Index: int32(i)}, Clusters: strings.Fields(body)})
	}
	return out
}

// statusesOf builds statuses from specs "cluster=Status" (unknown transition
// time) or "cluster=Status@-10m" (transition 10 minutes before now). Group is
// set to the cluster's group, as OCM's status functions set it.
func statusesOf(t *testing.T, now time.Time, groups []grouping.Group, specs ...string) []rollout.ClusterStatus {
	t.Helper()
	groupOf := map[string]grouping.GroupKey{}
	for _, g := range groups {
		for _, c := range g.Clusters {
			groupOf[c] = g.GroupKey
		}
	}
	byName := map[string]rollout.Status{}
	for s := rollout.ToApply; s <= rollout.Skip; s++ {
		byName[s.String()] = s
	}
	var out []rollout.ClusterStatus
	for _, spec := range specs {
		name, rest, ok := strings.Cut(spec, "=")
		require.True(t, ok, "status spec %q: want cluster=Status[@-10m]", spec)
		st, ago, hasLTT := strings.Cut(rest, "@")
		s, ok := byName[st]
		require.True(t, ok, "status spec %q: unknown status %q", spec, st)
		cs := rollout.ClusterStatus{Cluster: name, Group: groupOf[name], Status: s}
		if hasLTT {
			d, err := time.ParseDuration(ago)
			require.NoError(t, err, "status spec %q", spec)
			cs.LastTransitionTime = now.Add(d)
		}
		out = append(out, cs)
	}
	return out
}

// numbered returns n cluster names prefix000, prefix001, ...
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " %s%03d", prefix, i)
	}
	return b.String()
}

// config helpers: one line per strategy in the tests.

func perGroup(deadline string, soak time.Duration, maxFailures intstr.IntOrString, mandatory ...clusterv1alpha1.MandatoryDecisionGroup) clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
		RolloutConfig:           clusterv1alpha1.RolloutConfig{ProgressDeadline: deadline, MinSuccessTime: metav1.Duration{Duration: soak}, MaxFailures: maxFailures},
		MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory},
	}}
}

func progressive(deadline string, soak time.Duration, maxFailures, maxConcurrency intstr.IntOrString, mandatory ...clusterv1alpha1.MandatoryDecisionGroup) clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{
		RolloutConfig:           clusterv1alpha1.RolloutConfig{ProgressDeadline: deadline, MinSuccessTime: metav1.Duration{Duration: soak}, MaxFailures: maxFailures},
		MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory},
		MaxConcurrency:          maxConcurrency,
	}}
}

func all(deadline string) clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{
		RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: deadline},
	}}
}

func byName(name string) clusterv1alpha1.MandatoryDecisionGroup {
	return clusterv1alpha1.MandatoryDecisionGroup{GroupName: name}
}

var (
	i0 = intstr.FromInt32(0)
	i1 = intstr.FromInt32(1)
)

// plans runs both planners; it fails the test if ours errs. Not parallel:
// OCM reads the package-level RolloutClock.
func plans(t *testing.T, now time.Time, s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, statuses []rollout.ClusterStatus) (ours, theirs outcome) {
	t.Helper()
	ours, _ = runOurs(now, s, groups, statuses)
	require.NoError(t, ours.Err)
	return ours, ocmOutcome(now, s, groups, statuses)
}
