package simulate_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// benchFleet is 1,000 clusters in 10 groups of 100, applying in 1-7
// minutes; every 50th cluster fails and recovers an hour after its apply.
func benchFleet() simulate.Fleet {
	f := simulate.Fleet{Default: apply(3 * time.Minute), Behaviors: map[string]simulate.Behavior{}}
	for g := range 10 {
		group := grouping.Group{GroupKey: grouping.GroupKey{Name: fmt.Sprintf("wave-%d", g), Index: int32(g)}}
		for c := range 100 {
			name := fmt.Sprintf("cluster-%04d", g*100+c)
			group.Clusters = append(group.Clusters, name)
			b := apply(time.Duration(1+(g*100+c)%7) * time.Minute)
			if (g*100+c)%50 == 49 {
				b.Fail, b.RecoverAfter = true, time.Hour
			}
			f.Behaviors[name] = b
		}
		f.Groups = append(f.Groups, group)
	}
	return f
}

func BenchmarkRun(b *testing.B) {
	fleet := benchFleet()
	for _, bc := range []struct {
		name     string
		strategy clusterv1alpha1.RolloutStrategy
	}{
		{"ProgressivePerGroup", perGroup(5*time.Minute, "15m", intstr.FromString("5%"))},
		{"Progressive", progressive(5*time.Minute, "15m", intstr.FromInt32(30), intstr.FromString("10%"))},
		{"All", all("15m")},
	} {
		b.Run(bc.name+"/1000", func(b *testing.B) {
			b.ReportAllocs()
			var plans int
			for b.Loop() {
				r, err := simulate.Run(simulate.Options{Strategy: bc.strategy}, fleet)
				if err != nil || r.Outcome != simulate.Completed {
					b.Fatalf("%v %s", err, r.Reason)
				}
				plans = r.Plans
			}
			b.ReportMetric(float64(plans), "plans/op")
		})
	}
}
