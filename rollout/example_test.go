package rollout_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// printPlan prints what a Plan decided: the clusters to roll out to, the
// timed-out ones, a breach, when to look again, and every group's phase
// and reason.
func printPlan(res rollout.Result, err error) {
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, c := range res.ToRollout {
		fmt.Printf("rollout  %-13s %-12s group %s\n", c.Cluster, c.Status, c.Group)
	}
	for _, c := range res.TimedOut {
		fmt.Printf("timedout %-13s group %s\n", c.Cluster, c.Group)
	}
	if res.MaxFailureBreach {
		fmt.Println("breach: the rollout halts")
	}
	fmt.Println("recheck after", res.RecheckAfter)
	for _, g := range res.Groups {
		fmt.Printf("%-5s %-8s %s\n", g.Name, g.Phase, g.Reason)
	}
}

func exampleGroups() []grouping.Group {
	return []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-1", "dev-2"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-1", "stg-2"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-1", "prod-2"}},
	}
}

// Type All rolls out to every cluster at once; the deadline still turns a
// stuck cluster into a timeout.
func ExamplePlanner_Plan_all() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	p := rollout.Planner{Clock: fake.New(now)}
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.All,
		All:  &clusterv1alpha1.RolloutAll{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "15m"}},
	}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-1", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "dev-2", Status: rollout.Progressing, LastTransitionTime: now.Add(-20 * time.Minute)},
		{Cluster: "stg-1", Status: rollout.Progressing, LastTransitionTime: now.Add(-5 * time.Minute)},
	}
	printPlan(p.Plan(s, exampleGroups(), statuses))
	// Output:
	// rollout  stg-1         Progressing  group stg#1
	// rollout  stg-2         ToApply      group stg#1
	// rollout  prod-1        ToApply      group prod#2
	// rollout  prod-2        ToApply      group prod#2
	// timedout dev-2         group dev#0
	// recheck after 10m0s
	// dev   Complete complete: 1 succeeded, 1 timed out
	// stg   Active   rolling out: 1 starting now, 1 progressing; "stg-1" progressing, deadline 12:10:00 (10m0s left)
	// prod  Active   rolling out: 2 starting now
}

// Type Progressive keeps maxConcurrency clusters in flight, starting the
// next ones in name order across groups.
func ExamplePlanner_Plan_progressive() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	p := rollout.Planner{Clock: fake.New(now)}
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.Progressive,
		Progressive: &clusterv1alpha1.RolloutProgressive{
			RolloutConfig:  clusterv1alpha1.RolloutConfig{ProgressDeadline: "15m", MaxFailures: intstr.FromInt32(1)},
			MaxConcurrency: intstr.FromString("50%"), // of 6 clusters: 3
		},
	}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-1", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "dev-2", Status: rollout.Progressing, LastTransitionTime: now.Add(-5 * time.Minute)},
	}
	printPlan(p.Plan(s, exampleGroups(), statuses))
	// Output:
	// rollout  dev-2         Progressing  group dev#0
	// rollout  prod-1        ToApply      group prod#2
	// rollout  prod-2        ToApply      group prod#2
	// recheck after 10m0s
	// dev   Active   rolling out: 1 progressing, 1 succeeded; "dev-2" progressing, deadline 12:10:00 (10m0s left)
	// stg   Waiting  waiting for a free slot: all 3 in use
	// prod  Active   rolling out: 2 starting now
}

// Type ProgressivePerGroup rolls out one group at a time, moving on when
// every cluster of the group succeeded and soaked for minSuccessTime: the
// seed's dev -> stg -> prod.
func ExamplePlanner_Plan_progressivePerGroup() {
	now := time.Date(2026, 11, 30, 12, 2, 0, 0, time.UTC)
	p := rollout.Planner{Clock: fake.New(now)}
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{
			MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
			ProgressDeadline: "15m",
			MaxFailures:      intstr.FromInt32(0),
		}},
	}
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-cluster", Status: rollout.Succeeded, LastTransitionTime: now},
	}
	printPlan(p.Plan(s, groups, statuses))
	// Output:
	// rollout  dev-cluster   Succeeded    group dev#0
	// recheck after 5m0s
	// dev   Active   rolling out: 1 soaking; "dev-cluster" soaking until 12:07:00 (5m0s left)
	// stg   Waiting  waiting for group "dev": "dev-cluster" soaking until 12:07:00 (5m0s left)
	// prod  Waiting  waiting for group "dev": "dev-cluster" soaking until 12:07:00 (5m0s left)
}

// Starting tells the clusters to start now from those already in flight.
// Here stg-2 joined group stg while stg-1 was progressing: it waits for
// stg-1 to finish and soak, and stg's reason says so. When stg-1 has soaked,
// stg-2 starts.
func ExampleResult_Starting() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{
			MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
			ProgressDeadline: "15m",
		}},
	}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-1", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "dev-2", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "stg-1", Status: rollout.Progressing, LastTransitionTime: now},
	}
	for _, step := range []struct {
		at    time.Duration
		stg1  rollout.Status
		since time.Duration
	}{{0, rollout.Progressing, 0}, {8 * time.Minute, rollout.Succeeded, 3 * time.Minute}} {
		statuses[2].Status, statuses[2].LastTransitionTime = step.stg1, now.Add(step.since)
		res, err := rollout.Planner{Clock: fake.New(now.Add(step.at))}.Plan(s, exampleGroups(), statuses)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("at +%s:\n", step.at)
		for _, c := range res.Starting() {
			fmt.Println("  start    ", c.Cluster)
		}
		for _, c := range res.ToRollout {
			if c.Status != rollout.ToApply {
				fmt.Println("  in flight", c.Cluster, c.Status)
			}
		}
		fmt.Println("  stg:", res.Groups[1].Reason)
		fmt.Println("  recheck after", res.RecheckAfter, "done", res.Done())
	}
	// Output:
	// at +0s:
	//   in flight stg-1 Progressing
	//   stg: rolling out: 1 progressing, 1 not started; waiting for "stg-1" progressing, deadline 12:15:00 (15m0s left)
	//   recheck after 15m0s done false
	// at +8m0s:
	//   start     stg-2
	//   stg: rolling out: 1 starting now, 1 succeeded
	//   recheck after 0s done false
}

// Paused stops new clusters from starting; the clusters already in flight
// carry on.
func ExamplePaused() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	p := rollout.Planner{Clock: fake.New(now), Gates: []rollout.Gate{rollout.Paused("change freeze")}}
	s := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-1", Status: rollout.Progressing, LastTransitionTime: now.Add(-time.Minute)},
	}
	printPlan(p.Plan(s, exampleGroups(), statuses))
	// Output:
	// rollout  dev-1         Progressing  group dev#0
	// recheck after 0s
	// dev   Blocked  held: rollout paused: change freeze
	// stg   Blocked  held: rollout paused: change freeze
	// prod  Blocked  held: rollout paused: change freeze
}

// Approval holds every group that is not approved, by name, by index, or
// by both.
func ExampleApproval() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-1", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "dev-2", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
	}
	approved := []grouping.GroupKey{{Name: "dev"}}
	for range 2 {
		p := rollout.Planner{Clock: fake.New(now), Gates: []rollout.Gate{rollout.Approval(approved...)}}
		fmt.Printf("approved %v:\n", approved)
		printPlan(p.Plan(s, exampleGroups(), statuses))
		approved = append(approved, grouping.GroupKey{Index: 1}) // stg, by its index
	}
	// Output:
	// approved [dev#0]:
	// recheck after 0s
	// dev   Complete complete: 2 succeeded
	// stg   Blocked  held: waiting for approval of group "stg"
	// prod  Waiting  waiting for group "stg": held: waiting for approval of group "stg"
	// approved [dev#0 #1]:
	// rollout  stg-1         ToApply      group stg#1
	// rollout  stg-2         ToApply      group stg#1
	// recheck after 0s
	// dev   Complete complete: 2 succeeded
	// stg   Active   rolling out: 2 starting now
	// prod  Waiting  waiting for group "stg": "stg-1" starting now
}

// Window admits groups only during office hours in Berlin; outside them,
// RecheckAfter says when the window opens, even across a weekend and a
// DST change.
func ExampleWindow() {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		fmt.Println(err)
		return
	}
	weekdays := []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	office, err := rollout.Window(berlin, weekdays, 9*time.Hour, 17*time.Hour)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Friday 17:30, two days before summer time starts.
	now := time.Date(2026, 3, 27, 17, 30, 0, 0, berlin)
	p := rollout.Planner{Clock: fake.New(now), Gates: []rollout.Gate{office}}
	s := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup}
	printPlan(p.Plan(s, exampleGroups(), nil))

	_, err = rollout.Window(berlin, weekdays, 17*time.Hour, 17*time.Hour)
	fmt.Println(err)
	// Output:
	// recheck after 62h30m0s
	// dev   Blocked  held: outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-03-30 09:00 CEST
	// stg   Waiting  waiting for group "dev": held: outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-03-30 09:00 CEST
	// prod  Waiting  waiting for group "dev": held: outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-03-30 09:00 CEST
	// window gate: end: Invalid value: "17h0m0s": want a time of day other than the start 17h0m0s
}

// A program reads what a group waits for from Wait, never from the text of
// Reason, which is made from it: here prod waits for stg, whose "stg-1" is
// soaking.
func ExampleWait() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	p := rollout.Planner{Clock: fake.New(now)}
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{
			MinSuccessTime: metav1.Duration{Duration: 10 * time.Minute}, ProgressDeadline: "30m",
		}},
	}
	statuses := []rollout.ClusterStatus{
		{Cluster: "dev-1", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "dev-2", Status: rollout.Succeeded, LastTransitionTime: now.Add(-time.Hour)},
		{Cluster: "stg-1", Status: rollout.Succeeded, LastTransitionTime: now.Add(-3 * time.Minute)},
		{Cluster: "stg-2", Status: rollout.Progressing, LastTransitionTime: now.Add(-time.Minute)},
	}
	res, err := p.Plan(s, exampleGroups(), statuses)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, g := range res.Groups {
		w := g.Wait
		switch w.Kind {
		case rollout.WaitGroup, rollout.WaitMandatory:
			fmt.Printf("%s waits for group %s: %s is %s until %s\n", g.Name, w.Group, w.Cluster.Name, w.Cluster.Status, w.Until.Format("15:04"))
		case rollout.WaitNone:
			fmt.Printf("%s waits for nothing (%s)\n", g.Name, g.Phase)
		default:
			fmt.Printf("%s waits: %s\n", g.Name, w.Kind)
		}
		fmt.Printf("  reason: %s\n", g.Reason)
	}
	// Output:
	// dev waits for nothing (Complete)
	//   reason: complete: 2 succeeded
	// stg waits for nothing (Active)
	//   reason: rolling out: 1 progressing, 1 soaking; "stg-1" soaking until 12:07:00 (7m0s left) (and 1 more)
	// prod waits for group stg#1: stg-1 is Succeeded until 12:07
	//   reason: waiting for group "stg": "stg-1" soaking until 12:07:00 (7m0s left)
}
