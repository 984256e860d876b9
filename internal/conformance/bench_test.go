package conformance

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	testingclock "k8s.io/utils/clock/testing"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ocm "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// midRollout is a fleet of n clusters in the middle of a dev -> stg -> prod
// rollout, every cluster with a status: dev (1%) done long ago; stg (9%)
// half Progressing, the other half Succeeded, soaking or done; prod (90%)
// ToApply.
func midRollout(n int, now time.Time) ([]grouping.Group, []rollout.ClusterStatus) {
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}},
	}
	statuses := make([]rollout.ClusterStatus, 0, n)
	stg := 0
	for i := range n {
		name := fmt.Sprintf("cluster-%06d", i)
		cs := rollout.ClusterStatus{Cluster: name}
		var g int
		switch p := i % 100; {
		case p == 0:
			g, cs.Status, cs.LastTransitionTime = 0, rollout.Succeeded, now.Add(-48*time.Hour)
		case p < 10:
			g = 1
			switch stg++; stg % 4 {
			case 0, 1:
				cs.Status, cs.LastTransitionTime = rollout.Progressing, now.Add(-time.Duration(stg%10)*time.Minute)
			case 2:
				cs.Status, cs.LastTransitionTime = rollout.Succeeded, now.Add(-2*time.Minute) // soaking
			default:
				cs.Status, cs.LastTransitionTime = rollout.Succeeded, now.Add(-time.Hour) // done
			}
		default:
			g, cs.Status = 2, rollout.ToApply
		}
		groups[g].Clusters = append(groups[g].Clusters, name) // names ascend: each group is sorted
		cs.Group = groups[g].GroupKey
		statuses = append(statuses, cs)
	}
	return groups, statuses
}

func benchConfig() clusterv1alpha1.RolloutConfig {
	return clusterv1alpha1.RolloutConfig{
		MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
		ProgressDeadline: "15m",
		MaxFailures:      intstr.FromInt32(0),
	}
}

// benchStrategy returns a fresh strategy of the given type with
// benchConfig.
func benchStrategy(kind string) clusterv1alpha1.RolloutStrategy {
	switch kind {
	case "ProgressivePerGroup":
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: benchConfig()}}
	case "Progressive":
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: benchConfig(), MaxConcurrency: intstr.FromString("10%")}}
	}
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{RolloutConfig: benchConfig()}}
}

var benchKinds = []string{"ProgressivePerGroup", "Progressive", "All"}

var benchSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}}

// sink keeps results alive so the compiler cannot drop the work.
type sink struct {
	n int
}

// BenchmarkPlan is our planner on the mid-rollout fleet.
func BenchmarkPlan(b *testing.B) {
	now := baseNow
	p := rollout.Planner{Clock: testingclock.NewFakeClock(now)}
	for _, kind := range benchKinds {
		for _, size := range benchSizes {
			if kind != "ProgressivePerGroup" && size.n != 100_000 {
				continue
			}
			b.Run(kind+"/"+size.name, func(b *testing.B) {
				groups, statuses := midRollout(size.n, now)
				s := benchStrategy(kind)
				var out sink
				b.ReportAllocs()
				for b.Loop() {
					res, err := p.Plan(s, groups, statuses)
					if err != nil {
						b.Fatal(err)
					}
					out.n += len(res.ToRollout)
				}
				if out.n == 0 {
					b.Fatal("nothing to roll out")
				}
			})
		}
	}
}

// BenchmarkOCM is OCM's GetRolloutCluster on the same fleet. It is
// quadratic (every status is looked up by a scan of every cluster), so
// 100k is left out. OCM's RolloutClock is a package-level variable:
// benchmarks run one at a time, which is what it needs.
func BenchmarkOCM(b *testing.B) {
	now := baseNow
	prev := ocm.RolloutClock
	ocm.RolloutClock = testingclock.NewFakeClock(now)
	defer func() { ocm.RolloutClock = prev }()
	for _, size := range benchSizes[:2] {
		b.Run("ProgressivePerGroup/"+size.name, func(b *testing.B) {
			groups, statuses := midRollout(size.n, now)
			h := ocmHandler(groups)
			in := toOCM(statuses)
			s := benchStrategy("ProgressivePerGroup")
			var out sink
			b.ReportAllocs()
			for b.Loop() {
				_, res, err := h.GetRolloutCluster(s, in)
				if err != nil {
					b.Fatal(err)
				}
				out.n += len(res.ClustersToRollout)
			}
			if out.n == 0 {
				b.Fatal("nothing to roll out")
			}
		})
	}
}

// BenchmarkFloor is the least any planner must do: index the statuses by
// cluster name and visit every cluster of every group once.
func BenchmarkFloor(b *testing.B) {
	now := baseNow
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			groups, statuses := midRollout(size.n, now)
			var out sink
			b.ReportAllocs()
			for b.Loop() {
				out.n += floor(groups, statuses)
			}
			if out.n == 0 {
				b.Fatal("nothing found")
			}
		})
	}
}

func floor(groups []grouping.Group, statuses []rollout.ClusterStatus) int {
	byName := make(map[string]int, len(statuses))
	for i := range statuses {
		byName[statuses[i].Cluster] = i
	}
	n := 0
	for _, g := range groups {
		for _, c := range g.Clusters {
			if i, ok := byName[c]; ok && statuses[i].Status == rollout.Progressing {
				n++
			}
		}
	}
	return n
}

// TestMidRolloutAgrees checks that the benchmark fleet is one on which both
// planners agree, so that the benchmarks compare like with like. Not
// parallel: it calls OCM.
func TestMidRolloutAgrees(t *testing.T) {
	groups, statuses := midRollout(1_000, baseNow)
	for _, kind := range benchKinds {
		if kind == "Progressive" {
			continue // its ToApply entries and in-flight clusters compete for the window (D7, D8)
		}
		s := benchStrategy(kind)
		ours, _ := runOurs(baseNow, s, groups, statuses)
		theirs := ocmOutcome(baseNow, s, groups, statuses)
		if d := diff(ours, theirs); len(d) > 0 {
			t.Errorf("%s: %v", kind, d)
		}
	}
}
