package grouping_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// benchFleet returns n clusters in random order: 10% dev, 30% stg, 55% prod
// and 5% qa (unclassified by the seed's groups), with a few more labels as
// real clusters have.
func benchFleet(n int) []grouping.Cluster {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]grouping.Cluster, n)
	for i := range out {
		env := "prod"
		switch p := r.IntN(100); {
		case p < 10:
			env = "dev"
		case p < 40:
			env = "stg"
		case p < 95:
			env = "prod"
		default:
			env = "qa"
		}
		out[i] = grouping.Cluster{
			Name: fmt.Sprintf("cluster-%06d", i),
			Labels: map[string]string{
				"cluster-proxy": "enabled",
				"environment":   env,
				"region":        []string{"eu-west-1", "us-east-1", "ap-south-1"}[r.IntN(3)],
				"name":          fmt.Sprintf("cluster-%06d", i),
				"vendor":        "OpenShift",
			},
		}
	}
	r.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
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
