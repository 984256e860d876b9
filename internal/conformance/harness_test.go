package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	testingclock "k8s.io/utils/clock/testing"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ocm "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	ocmbeta "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// outcome is one planner's answer in a form both planners map to.
type outcome struct {
	Err          error
	ToRollout    []row // sorted by cluster name: compared as a set
	TimedOut     []row // sorted by cluster name: compared as a set
	Removed      []row // input order
	Breach       bool
	RecheckAfter time.Duration
}

// row is one cluster of a result. Times are written relative to now ("-5m0s",
// "+10m0s", "none" for an unknown time) so that rows compare with == and
// print readably.
type row struct {
	Cluster string
	Status  rollout.Status
	Group   grouping.GroupKey
	LTT     string
	Recheck string
}

func (r row) String() string {
	return fmt.Sprintf("%s{%s %s ltt=%s recheck=%s}", r.Cluster, r.Status, r.Group, r.LTT, r.Recheck)
}

// rel writes t relative to now.
func rel(t, now time.Time) string {
	if t.IsZero() {
		return "none"
	}
	d := t.Sub(now)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

func relPtr(t *metav1.Time, now time.Time) string {
	if t == nil {
		return "none"
	}
	return rel(t.Time, now)
}

func bySet(rows []row) []row {
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.Cluster, b.Cluster) })
	return rows
}

// runOurs runs rolloutkit's planner at now.
func runOurs(now time.Time, s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, statuses []rollout.ClusterStatus) (outcome, rollout.Result) {
	res, err := rollout.Planner{Clock: testingclock.NewFakeClock(now)}.Plan(s, groups, statuses)
	if err != nil {
		return outcome{Err: err}, res
	}
	conv := func(in []rollout.ClusterStatus) []row {
		out := make([]row, 0, len(in))
		for _, cs := range in {
			out = append(out, row{cs.Cluster, cs.Status, cs.Group, rel(cs.LastTransitionTime, now), rel(cs.RecheckTime, now)})
		}
		return out
	}
	return outcome{
		ToRollout:    bySet(conv(res.ToRollout)),
		TimedOut:     bySet(conv(res.TimedOut)),
		Removed:      conv(res.Removed),
		Breach:       res.MaxFailureBreach,
		RecheckAfter: res.RecheckAfter,
	}, res
}

// toOCM converts statuses to OCM's type. Group is passed as given: OCM
// echoes it for every status it passes through, so callers set it to the
// cluster's real group (as OCM's status functions do).
func toOCM(statuses []rollout.ClusterStatus) []ocm.ClusterRolloutStatus {
	out := make([]ocm.ClusterRolloutStatus, 0, len(statuses))
	for _, cs := range statuses {
		o := ocm.ClusterRolloutStatus{
			ClusterName: cs.Cluster,
			GroupKey:    ocmbeta.GroupKey{GroupName: cs.Group.Name, GroupIndex: cs.Group.Index},
			Status:      ocm.RolloutStatus(cs.Status),
		}
		if !cs.LastTransitionTime.IsZero() {
			o.LastTransitionTime = &metav1.Time{Time: cs.LastTransitionTime}
		}
		if !cs.RecheckTime.IsZero() {
			o.RecheckTime = &metav1.Time{Time: cs.RecheckTime}
		}
		out = append(out, o)
	}
	return out
}

// groupsMap is OCM's view of the groups, as its placement tracker holds them.
func groupsMap(groups []grouping.Group) ocmbeta.ClusterGroupsMap {
	m := make(ocmbeta.ClusterGroupsMap, len(groups))
	for _, g := range groups {
		m[ocmbeta.GroupKey{GroupName: g.Name, GroupIndex: g.Index}] = sets.New(g.Clusters...)
	}
	return m
}

// ocmHandler builds OCM's rollout handler over groups. The status function
// is never called by GetRolloutCluster.
func ocmHandler(groups []grouping.Group) *ocm.RolloutHandler[struct{}] {
	tracker := ocmbeta.NewPlacementDecisionClustersTrackerWithGroups(nil, nil, groupsMap(groups))
	h, err := ocm.NewRolloutHandler(tracker, func(string, struct{}) (ocm.ClusterRolloutStatus, error) {
		return ocm.ClusterRolloutStatus{}, nil
	})
	if err != nil {
		panic(err) // only for a nil tracker
	}
	return h
}

// runOCM runs OCM's GetRolloutCluster at now.
//
// OCM reads the time from the package-level variable RolloutClock, so this
// sets it for the call and restores it after: callers must not run in
// parallel with each other (OCM's limitation; rolloutkit's Planner takes
// its clock as a field).
func runOCM(now time.Time, s clusterv1alpha1.RolloutStrategy, h *ocm.RolloutHandler[struct{}], in []ocm.ClusterRolloutStatus) outcome {
	prev := ocm.RolloutClock
	ocm.RolloutClock = testingclock.NewFakeClock(now)
	defer func() { ocm.RolloutClock = prev }()

	_, res, err := h.GetRolloutCluster(s, in)
	if err != nil {
		return outcome{Err: err}
	}
	conv := func(in []ocm.ClusterRolloutStatus) []row {
		out := make([]row, 0, len(in))
		for _, cs := range in {
			out = append(out, row{cs.ClusterName, rollout.Status(cs.Status),
				grouping.GroupKey{Name: cs.GroupKey.GroupName, Index: cs.GroupKey.GroupIndex},
				relPtr(cs.LastTransitionTime, now), relPtr(cs.RecheckTime, now)})
		}
		return out
	}
	o := outcome{
		ToRollout: bySet(conv(res.ClustersToRollout)),
		TimedOut:  bySet(conv(res.ClustersTimeOut)),
		Removed:   conv(res.ClustersRemoved),
		Breach:    res.MaxFailureBreach,
	}
	if res.RecheckAfter != nil {
		o.RecheckAfter = *res.RecheckAfter
	}
	return o
}

// ocmOutcome is runOCM on our input types.
func ocmOutcome(now time.Time, s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, statuses []rollout.ClusterStatus) outcome {
	return runOCM(now, s, ocmHandler(groups), toOCM(statuses))
}

// diff lists how two outcomes differ, one line per field; empty when they
// agree. Errors agree when both are set.
func diff(ours, theirs outcome) []string {
	var d []string
	if (ours.Err == nil) != (theirs.Err == nil) {
		return []string{fmt.Sprintf("error: ours %v, OCM %v", ours.Err, theirs.Err)}
	}
	if ours.Err != nil {
		return nil
	}
	cmpRows := func(what string, a, b []row) {
		if !slices.Equal(a, b) {
			d = append(d, fmt.Sprintf("%s:\n    ours %v\n    OCM  %v", what, a, b))
		}
	}
	cmpRows("ToRollout", ours.ToRollout, theirs.ToRollout)
	cmpRows("TimedOut", ours.TimedOut, theirs.TimedOut)
	cmpRows("Removed", ours.Removed, theirs.Removed)
	if ours.Breach != theirs.Breach {
		d = append(d, fmt.Sprintf("MaxFailureBreach: ours %v, OCM %v", ours.Breach, theirs.Breach))
	}
	if ours.RecheckAfter != theirs.RecheckAfter {
		d = append(d, fmt.Sprintf("RecheckAfter: ours %v, OCM %v", ours.RecheckAfter, theirs.RecheckAfter))
	}
	return d
}

// names lists the clusters of rows.
func names(rows []row) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.Cluster)
	}
	return out
}
