package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// benchFleet is a rollout of n clusters in mid-flight: dev (1%) done,
// stg (9%) half progressing and half not started, prod (90%) untouched.
// Both progressive types then ask the gates: ProgressivePerGroup about stg,
// Progressive about stg and prod.
func benchFleet(n int) ([]grouping.Group, []rollout.ClusterStatus) {
	dev, stg := n/100, n*9/100
	groups := []grouping.Group{group("dev", 0), group("stg", 1), group("prod", 2)}
	var statuses []rollout.ClusterStatus
	for i := range n {
		name := fmt.Sprintf("cluster-%06d", i)
		switch {
		case i < dev:
			groups[0].Clusters = append(groups[0].Clusters, name)
			statuses = append(statuses, status(name, rollout.Succeeded, at(-time.Hour)))
		case i < dev+stg:
			groups[1].Clusters = append(groups[1].Clusters, name)
			if i%2 == 0 {
				statuses = append(statuses, status(name, rollout.Progressing, at(-time.Duration(i%600)*time.Second)))
			}
		default:
			groups[2].Clusters = append(groups[2].Clusters, name)
		}
	}
	return groups, statuses
}

// benchGates are three gates that all admit: a pause switch that is off, an
// approval of every group, and a window that is open (Monday 13:00 in
// Berlin, office hours).
func benchGates(b *testing.B) []rollout.Gate {
	office, err := rollout.Window(berlin(b), weekdays(), 9*time.Hour, 17*time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	return []rollout.Gate{
		rollout.GateFunc(func(grouping.GroupKey, time.Time) rollout.Admission { return rollout.Admission{Admitted: true} }),
		rollout.Approval(key("dev", 0), key("stg", 0), key("prod", 0)),
		office,
	}
}

// BenchmarkPlanGates measures Plan at 100,000 clusters without gates and
// with three gates that admit: gates are consulted once per group, so they
// must add next to nothing.
func BenchmarkPlanGates(b *testing.B) {
	groups, statuses := benchFleet(100_000)
	for _, kind := range []string{"ProgressivePerGroup", "Progressive"} {
		s := strategy(perGroup, cfg{soak: 5 * time.Minute, deadline: "15m", maxFail: intstr.FromString("5%")})
		if kind == "Progressive" {
			s = strategy(progressive, cfg{soak: 5 * time.Minute, deadline: "15m", maxFail: intstr.FromString("5%")},
				concurrency(intstr.FromString("10%")))
		}
		for _, gated := range []bool{false, true} {
			name := kind + "/none"
			p := plannerAt(t0())
			if gated {
				name = kind + "/three"
				p.Gates = benchGates(b)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					res, err := p.Plan(s, groups, statuses)
					if err != nil || len(res.ToRollout) == 0 {
						b.Fatal(err, len(res.ToRollout))
					}
				}
			})
		}
		// The two above run seconds apart, so on a busy machine their ratio
		// is mostly noise. Here each op plans once without and once with the
		// gates, in alternating order, and reports the gates' share.
		b.Run(kind+"/paired", func(b *testing.B) {
			planners := [2]rollout.Planner{plannerAt(t0()), plannerAt(t0(), benchGates(b)...)}
			var took [2]time.Duration
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				for j := range 2 {
					k := (i + j) % 2
					start := time.Now()
					if _, err := planners[k].Plan(s, groups, statuses); err != nil {
						b.Fatal(err)
					}
					took[k] += time.Since(start)
				}
				i++
			}
			b.ReportMetric(100*float64(took[1]-took[0])/float64(took[0]), "%gates")
		})
	}
}

// BenchmarkGatesAdmit measures what gates add to one Plan call per group
// they are asked about: the three gates of BenchmarkPlanGates, once each.
func BenchmarkGatesAdmit(b *testing.B) {
	gates := benchGates(b)
	k, now := key("prod", 2), t0()
	b.ReportAllocs()
	for b.Loop() {
		for _, g := range gates {
			if !g.Admit(k, now).Admitted {
				b.Fatal("held")
			}
		}
	}
}
