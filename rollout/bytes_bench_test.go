package rollout_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// midFleet is a rollout of n clusters in mid-flight in which every cluster
// has a status, as a controller that records one per cluster gives them:
// dev (1%) done two days ago; stg (9%) half Progressing, a quarter
// Succeeded and soaking, a quarter done; prod (90%) ToApply. Names ascend
// with i. When shuffled, each group's clusters and the statuses come in a
// random (but fixed) order, so Plan must sort the names itself.
func midFleet(n int, shuffled bool) ([]grouping.Group, []rollout.ClusterStatus) {
	groups := []grouping.Group{group("dev", 0), group("stg", 1), group("prod", 2)}
	statuses := make([]rollout.ClusterStatus, 0, n)
	stg := 0
	for i := range n {
		name := fmt.Sprintf("cluster-%06d", i)
		g, cs := 2, status(name, rollout.ToApply, time.Time{})
		switch p := i % 100; {
		case p == 0:
			g, cs.Status, cs.LastTransitionTime = 0, rollout.Succeeded, at(-48*time.Hour)
		case p < 10:
			g = 1
			switch stg++; stg % 4 {
			case 0, 1:
				cs.Status, cs.LastTransitionTime = rollout.Progressing, at(-time.Duration(stg%10)*time.Minute)
			case 2:
				cs.Status, cs.LastTransitionTime = rollout.Succeeded, at(-2*time.Minute)
			default:
				cs.Status, cs.LastTransitionTime = rollout.Succeeded, at(-time.Hour)
			}
		}
		groups[g].Clusters = append(groups[g].Clusters, name)
		statuses = append(statuses, cs)
	}
	if shuffled {
		rng := rand.New(rand.NewPCG(17, 17))
		for _, g := range groups {
			rng.Shuffle(len(g.Clusters), func(i, j int) { g.Clusters[i], g.Clusters[j] = g.Clusters[j], g.Clusters[i] })
		}
		rng.Shuffle(len(statuses), func(i, j int) { statuses[i], statuses[j] = statuses[j], statuses[i] })
	}
	return groups, statuses
}

// outputBytes is the floor of what one Plan call must allocate: the arrays
// of the Result's slices (one ClusterStatus per listed, timed-out or
// removed cluster, one GroupProgress per group, one Warning per warning).
// Whatever Plan allocates beyond it is working memory: the index of the
// fleet, the sorted names, the verdict. The strings inside (reasons,
// warnings' messages) are left out: they are a few per group, not per
// cluster.
func outputBytes(res rollout.Result) int {
	clusters := len(res.ToRollout) + len(res.TimedOut) + len(res.Removed)
	return clusters*int(unsafe.Sizeof(rollout.ClusterStatus{})) +
		len(res.Groups)*int(unsafe.Sizeof(rollout.GroupProgress{})) +
		len(res.Warnings)*int(unsafe.Sizeof(rollout.Warning{}))
}

// BenchmarkPlanBytes measures what Plan allocates against what it must: on
// midFleet, ProgressivePerGroup (soak 5m, deadline 15m, maxFailures 0),
// with names in order and shuffled. Besides B/op it reports B/cluster, the
// floor (floor-B/op, outputBytes) and B/op over the floor (x-floor), so
// that a change which grows the working memory shows here.
//
//	go test -run '^$' -bench PlanBytes -count 6 ./rollout/
func BenchmarkPlanBytes(b *testing.B) {
	s := strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "15m", maxFail: intstr.FromInt32(0)})
	p := plannerAt(t0())
	for _, n := range []int{10_000, 100_000} {
		for _, order := range []string{"sorted", "shuffled"} {
			groups, statuses := midFleet(n, order == "shuffled")
			b.Run(fmt.Sprintf("%s/%d", order, n), func(b *testing.B) {
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				var res rollout.Result
				for b.Loop() {
					var err error
					if res, err = p.Plan(s, groups, statuses); err != nil {
						b.Fatal(err)
					}
				}
				runtime.ReadMemStats(&after)
				if len(res.ToRollout) == 0 {
					b.Fatal("nothing to roll out")
				}
				perOp := float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
				floor := float64(outputBytes(res))
				b.ReportMetric(perOp/float64(n), "B/cluster")
				b.ReportMetric(floor, "floor-B/op")
				b.ReportMetric(perOp/floor, "x-floor")
			})
		}
	}
}
