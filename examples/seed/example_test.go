package seed_test

import (
	"fmt"

	"github.com/rolloutkit/rolloutkit/examples/seed"
)

func ExampleManagedClusters() {
	mcs, err := seed.ManagedClusters()
	if err != nil {
		panic(err)
	}
	for _, mc := range mcs {
		fmt.Println(mc.Name, mc.Labels["environment"])
	}
	// Output:
	// dev-cluster dev
	// stg-cluster stg
	// prod-cluster prod
}
