package simulate_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// seedGroups are the seed's decision groups: dev, stg, prod, one cluster
// each.
func seedGroups() []grouping.Group {
	return []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
}

// seedStrategy is the seed's ProgressivePerGroup: minSuccessTime 5m,
// progressDeadline 15m, maxFailures 0.
func seedStrategy() clusterv1alpha1.RolloutStrategy {
	return perGroup(5*time.Minute, "15m", intstr.FromInt32(0))
}

func config(soak time.Duration, deadline string, maxFailures intstr.IntOrString) clusterv1alpha1.RolloutConfig {
	return clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: soak}, ProgressDeadline: deadline, MaxFailures: maxFailures}
}

func perGroup(soak time.Duration, deadline string, maxFailures intstr.IntOrString, mandatory ...clusterv1alpha1.MandatoryDecisionGroup) clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
		RolloutConfig:           config(soak, deadline, maxFailures),
		MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory},
	}}
}

func progressive(soak time.Duration, deadline string, maxFailures, maxConcurrency intstr.IntOrString, mandatory ...clusterv1alpha1.MandatoryDecisionGroup) clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{
		RolloutConfig:           config(soak, deadline, maxFailures),
		MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory},
		MaxConcurrency:          maxConcurrency,
	}}
}

func all(deadline string) clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{
		RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: deadline},
	}}
}

// apply is a healthy behaviour that takes d.
func apply(d time.Duration) simulate.Behavior { return simulate.Behavior{ApplyDuration: d} }

// compact renders events as "MM:SS Kind subject", the subject being the
// cluster, or the group's name for a group event.
func compact(r simulate.Result) []string {
	out := make([]string, len(r.Events))
	for i, e := range r.Events {
		who := e.Cluster
		if who == "" {
			who = e.Group.Name
		}
		out[i] = mmss(e.At.Sub(r.Start)) + " " + e.Kind.String() + " " + who
	}
	return out
}

// mmss formats d as total minutes and seconds.
func mmss(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// eventsOf returns the events of kind k.
func eventsOf(r simulate.Result, k simulate.EventKind) []simulate.Event {
	var out []simulate.Event
	for _, e := range r.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
