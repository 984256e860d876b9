package placement_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// BenchmarkScheduleHubPaired measures ScheduleHub against its floor
// (floorPass, as BenchmarkScheduleHubFloor runs it) in one loop: each op
// runs both, in alternating order, so that a machine shared with other
// work slows both alike. It reports each one's wall time per call
// (hub-ns/op, floor-ns/op), their ratio (x-floor), and the ratio of the
// process's CPU time spent in each (x-floor-cpu, which waiting for a core
// does not count; the garbage collector's work counts where it runs).
//
// At 10,000 clusters and more, the ratio depends on where the
// ManagedClusters lie in memory, since nearly every visit of one then
// misses the processor's cache unless the visits follow the order in
// which they were allocated. floorPass visits them in input order and
// ScheduleHub in name order, so each is measured on three layouts of the
// same hub (relayout):
//
//   - input: allocated in input order, as benchHub allocates them (the
//     floor's visits follow memory);
//
//   - named: allocated in name order and given in another order, as an
//     informer's cache holds the clusters of its first LIST (the
//     scheduler's visits follow memory);
//
//   - scattered: allocated in an order that is neither.
//
//     go test -run '^$' -bench ScheduleHubPaired -count 6 ./placement/
func BenchmarkScheduleHubPaired(b *testing.B) {
	for _, layout := range []string{"input", "named", "scattered"} {
		for _, n := range benchSizes {
			p, hub := benchHub(b, n)
			hub.Clusters = relayout(hub.Clusters, layout)
			pred, groups := floorSelectors(b, p)
			s := placement.Scheduler{Clock: fake.New(seedTime())}
			b.Run(fmt.Sprintf("layout=%s/clusters=%d", layout, n), func(b *testing.B) {
				runs := [2]func(){
					func() {
						if _, err := s.ScheduleHub(p, hub); err != nil {
							b.Fatal(err)
						}
					},
					func() {
						if floorPass(p, hub, pred, groups) == 0 {
							b.Fatal("nothing grouped")
						}
					},
				}
				var wall, cpu [2]time.Duration
				i := 0
				for b.Loop() {
					for j := range 2 {
						k := (i + j) % 2
						start, startCPU := time.Now(), cpuTime(b)
						runs[k]()
						wall[k] += time.Since(start)
						cpu[k] += cpuTime(b) - startCPU
					}
					i++
				}
				b.ReportMetric(float64(wall[0].Nanoseconds())/float64(b.N), "hub-ns/op")
				b.ReportMetric(float64(wall[1].Nanoseconds())/float64(b.N), "floor-ns/op")
				b.ReportMetric(float64(wall[0])/float64(wall[1]), "x-floor")
				b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "x-floor-cpu")
			})
		}
	}
}

// relayout returns copies of clusters, in the same order, allocated in the
// order layout says (see BenchmarkScheduleHubPaired): "input" keeps them.
func relayout(clusters []*clusterv1.ManagedCluster, layout string) []*clusterv1.ManagedCluster {
	if layout == "input" {
		return clusters
	}
	order := slices.Clone(clusters)
	switch layout {
	case "named":
		slices.SortFunc(order, func(a, b *clusterv1.ManagedCluster) int { return strings.Compare(a.Name, b.Name) })
	default:
		rng := rand.New(rand.NewPCG(5, 6))
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	copies := make(map[*clusterv1.ManagedCluster]*clusterv1.ManagedCluster, len(order))
	for _, c := range order {
		copies[c] = c.DeepCopy()
	}
	out := make([]*clusterv1.ManagedCluster, len(clusters))
	for i, c := range clusters {
		out[i] = copies[c]
	}
	return out
}

// cpuTime is the user and system time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
