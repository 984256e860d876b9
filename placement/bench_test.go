package placement_test

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/internal/seed"
	"github.com/rolloutkit/rolloutkit/placement"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// benchFleet is seed.LargeFleet: the seed's clusters, n of them.
func benchFleet(n int) []*clusterv1.ManagedCluster { return seed.LargeFleet(n) }

// BenchmarkSchedule schedules the seed's Placement (its predicate and its
// three decision groups) over a fleet.
func BenchmarkSchedule(b *testing.B) {
	p := loadSeed(b).placement
	s := placement.Scheduler{Clock: fake.New(seedTime())}
	for _, n := range benchSizes {
		fleet := benchFleet(n)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Schedule(p, fleet); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFloor is the least any scheduler must do for the same input:
// match every cluster once against the predicate and once against each of
// the three group selectors, compiled beforehand, and sort the selected
// names. Schedule should stay within a small factor of it.
func BenchmarkFloor(b *testing.B) {
	p := loadSeed(b).placement
	pred, err := metav1.LabelSelectorAsSelector(&p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector)
	if err != nil {
		b.Fatal(err)
	}
	var groups []labels.Selector
	for _, dg := range p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups {
		sel, err := metav1.LabelSelectorAsSelector(&dg.ClusterSelector.LabelSelector)
		if err != nil {
			b.Fatal(err)
		}
		groups = append(groups, sel)
	}
	for _, n := range benchSizes {
		fleet := benchFleet(n)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			matched := 0
			for b.Loop() {
				names := make([]string, 0, len(fleet))
				for _, c := range fleet {
					set := labels.Set(c.Labels)
					if !pred.Matches(set) {
						continue
					}
					for _, g := range groups {
						if g.Matches(set) {
							matched++
						}
					}
					names = append(names, c.Name)
				}
				slices.Sort(names)
			}
			if matched == 0 {
				b.Fatal("nothing matched")
			}
		})
	}
}
