package seed

import (
	"fmt"
	"math/rand/v2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// LargeFleet returns n ManagedClusters shaped like the seed's, in a fixed
// pseudo-random order, for benchmarks: 10% dev, 30% stg, 55% prod and 5% qa
// (which the seed's predicate does not select), all with
// cluster-proxy=enabled and a few more labels, as real clusters have. The
// same n gives the same fleet.
func LargeFleet(n int) []*clusterv1.ManagedCluster {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]*clusterv1.ManagedCluster, n)
	for i := range out {
		var env string
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
		name := fmt.Sprintf("cluster-%06d", i)
		out[i] = &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"cluster-proxy": "enabled",
			"environment":   env,
			"region":        []string{"eu-west-1", "us-east-1", "ap-south-1"}[r.IntN(3)],
			"name":          name,
			"vendor":        "OpenShift",
		}}}
	}
	r.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
