package rollout_test

import (
	"fmt"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// dev, stg and prod, one cluster each, rolled out one group at a time.
func exampleSeed() (clusterv1alpha1.RolloutStrategy, []grouping.Group) {
	s := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{}}
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	return s, groups
}

// Only prod needs an approval: dev and stg rolled out without one, prod
// waits until it is approved, then starts.
func ExampleRequireApproval() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s, groups := exampleSeed()
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-cluster", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "stg-cluster", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
	}
	for _, approved := range [][]grouping.GroupKey{nil, {{Name: "prod"}}} {
		p := rollout.Planner{Clock: fake.New(now), Gates: []rollout.Gate{rollout.RequireApproval([]string{"prod"}, approved...)}}
		res, err := p.Plan(s, groups, statuses)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Groups[2])
	}
	// Output:
	// prod#2 Blocked: held: waiting for approval of group "prod"
	// prod#2 Active: rolling out: 1 starting now
}

// A change freeze for prod alone: ForGroups scopes the Paused gate to prod,
// so dev and stg roll out as usual (type All starts them at once).
func ExampleForGroups() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	_, groups := exampleSeed()
	p := rollout.Planner{Clock: fake.New(now), Gates: []rollout.Gate{
		rollout.ForGroups([]string{"prod"}, rollout.Paused("change freeze")),
	}}
	res, err := p.Plan(clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}, groups, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range res.Groups {
		fmt.Println(g)
	}
	// Output:
	// dev#0 Active: rolling out: 1 starting now
	// stg#1 Active: rolling out: 1 starting now
	// prod#2 Blocked: held: rollout paused: change freeze
}

// A check between groups: dev is complete but its verification has not
// passed, so stg does not start, and prod waits for stg. Once the caller's
// check passes (dev is no longer pending), stg starts.
func ExampleAfterVerified() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s, groups := exampleSeed()
	order, err := rollout.WalkOrder(s, groups) // mandatory groups first, then by index
	if err != nil {
		fmt.Println(err)
		return
	}
	statuses := []rollout.ClusterStatus{{Cluster: "dev-cluster", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)}}
	for _, pending := range []map[grouping.GroupKey]string{
		{groups[0].GroupKey: "error rate 2.1% > 1%"},
		{}, // dev's check passed
	} {
		p := rollout.Planner{Clock: fake.New(now), Gates: []rollout.Gate{rollout.AfterVerified(order, pending)}}
		res, err := p.Plan(s, groups, statuses)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Groups[1])
		fmt.Println(res.Groups[2])
	}
	// Output:
	// stg#1 Blocked: held: waiting for the verification of group "dev": error rate 2.1% > 1%
	// prod#2 Waiting: waiting for group "stg": held: waiting for the verification of group "dev": error rate 2.1% > 1%
	// stg#1 Active: rolling out: 1 starting now
	// prod#2 Waiting: waiting for group "stg": "stg-cluster" starting now
}
