package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// BenchmarkPlanScale measures Plan from 10,000 to 1,000,000 clusters on the
// mid-rollout fleet of benchFleet, for each strategy, and reports the time
// per cluster: it must stay flat (no quadratic step anywhere).
//
//	go test -run '^$' -bench PlanScale -benchmem -count 3 ./rollout/
func BenchmarkPlanScale(b *testing.B) {
	c := cfg{soak: 5 * time.Minute, deadline: "15m", maxFail: intstr.FromString("5%")}
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		groups, statuses := benchFleet(n)
		for _, kind := range []string{"All", "Progressive", "ProgressivePerGroup"} {
			s := strategy(perGroup, c)
			switch kind {
			case "All":
				s = strategy(all, c)
			case "Progressive":
				s = strategy(progressive, c, concurrency(intstr.FromString("10%")))
			}
			p := plannerAt(t0())
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Plan(s, groups, statuses); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/cluster")
			})
		}
	}
}
