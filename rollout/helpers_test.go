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

// The strategy types, short.
const (
	all         = clusterv1alpha1.All
	progressive = clusterv1alpha1.Progressive
	perGroup    = clusterv1alpha1.ProgressivePerGroup
)

// kinds are the three strategy types, for tests that run each of them.
func kinds() []clusterv1alpha1.RolloutType {
	return []clusterv1alpha1.RolloutType{all, progressive, perGroup}
}

// t0 is the start of every test timeline: Monday 2026-11-30 12:00:00 UTC.
func t0() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }

// at is t0 plus d.
func at(d time.Duration) time.Time { return t0().Add(d) }

// cfg is a RolloutConfig in short: soak (minSuccessTime), progressDeadline
// and maxFailures.
type cfg struct {
	soak     time.Duration
	deadline string
	maxFail  intstr.IntOrString
}

func (c cfg) config() clusterv1alpha1.RolloutConfig {
	return clusterv1alpha1.RolloutConfig{
		MinSuccessTime:   metav1.Duration{Duration: c.soak},
		ProgressDeadline: c.deadline,
		MaxFailures:      c.maxFail,
	}
}

// option changes a strategy built by strategy.
type option func(*clusterv1alpha1.RolloutStrategy)

// strategy builds a RolloutStrategy of kind with config c.
func strategy(kind clusterv1alpha1.RolloutType, c cfg, opts ...option) clusterv1alpha1.RolloutStrategy {
	s := clusterv1alpha1.RolloutStrategy{Type: kind}
	switch kind {
	case all, "":
		s.All = &clusterv1alpha1.RolloutAll{RolloutConfig: c.config()}
	case progressive:
		s.Progressive = &clusterv1alpha1.RolloutProgressive{RolloutConfig: c.config()}
	case perGroup:
		s.ProgressivePerGroup = &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: c.config()}
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// concurrency sets Progressive's maxConcurrency.
func concurrency(v intstr.IntOrString) option {
	return func(s *clusterv1alpha1.RolloutStrategy) {
		if s.Progressive != nil {
			s.Progressive.MaxConcurrency = v
		}
	}
}

// mandatory sets the mandatoryDecisionGroups of a progressive strategy.
func mandatory(m ...clusterv1alpha1.MandatoryDecisionGroup) option {
	return func(s *clusterv1alpha1.RolloutStrategy) {
		switch {
		case s.Progressive != nil:
			s.Progressive.MandatoryDecisionGroups.MandatoryDecisionGroups = m
		case s.ProgressivePerGroup != nil:
			s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups = m
		}
	}
}

func byName(name string) clusterv1alpha1.MandatoryDecisionGroup {
	return clusterv1alpha1.MandatoryDecisionGroup{GroupName: name}
}

func byIndex(i int32) clusterv1alpha1.MandatoryDecisionGroup {
	return clusterv1alpha1.MandatoryDecisionGroup{GroupIndex: i}
}

// group builds a decision group.
func group(name string, index int32, clusters ...string) grouping.Group {
	return grouping.Group{GroupKey: grouping.GroupKey{Name: name, Index: index}, Clusters: clusters}
}

// key builds a group key.
func key(name string, index int32) grouping.GroupKey {
	return grouping.GroupKey{Name: name, Index: index}
}

// seedGroups are the seed's three groups, one cluster each.
func seedGroups() []grouping.Group {
	return []grouping.Group{
		group("dev", 0, "dev-cluster"),
		group("stg", 1, "stg-cluster"),
		group("prod", 2, "prod-cluster"),
	}
}

// status builds an input status.
func status(cluster string, s rollout.Status, ltt time.Time) rollout.ClusterStatus {
	return rollout.ClusterStatus{Cluster: cluster, Status: s, LastTransitionTime: ltt}
}

// plannerAt is a planner whose clock reads now.
func plannerAt(now time.Time, gates ...rollout.Gate) rollout.Planner {
	return rollout.Planner{Clock: fake.New(now), Gates: gates}
}

// brief renders clusters as "name Status", with " until <offset from t0>"
// when a RecheckTime is set, so that tables stay readable.
func brief(cs []rollout.ClusterStatus) []string {
	var out []string
	for _, c := range cs {
		s := fmt.Sprintf("%s %s", c.Cluster, c.Status)
		if !c.RecheckTime.IsZero() {
			s += " until " + c.RecheckTime.Sub(t0()).String()
		}
		out = append(out, s)
	}
	return out
}

// names lists the clusters' names.
func names(cs []rollout.ClusterStatus) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Cluster)
	}
	return out
}

// phases renders every group as "name Phase".
func phases(gs []rollout.GroupProgress) []string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%s %s", g.Name, g.Phase))
	}
	return out
}

// reasons maps every group name to its reason.
func reasons(gs []rollout.GroupProgress) map[string]string {
	out := make(map[string]string, len(gs))
	for _, g := range gs {
		out[g.Name] = g.Reason
	}
	return out
}
