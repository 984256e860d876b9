package grouping_test

import (
	"fmt"
	"testing"

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/grouping"
)

// benchFleet is seed.LargeFleet read as grouping.Clusters.
func benchFleet(n int) []grouping.Cluster {
	mcs := seed.LargeFleet(n)
	out := make([]grouping.Cluster, len(mcs))
	for i, mc := range mcs {
		out[i] = grouping.FromManagedCluster(mc)
	}
	return out
}

var benchSizes = []int{1_000, 10_000, 100_000}

func BenchmarkDivide(b *testing.B) {
	gs := seedStrategy()
	for _, n := range benchSizes {
		clusters := benchFleet(n)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := grouping.Divide(gs, clusters); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
