package placement_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

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
//	go test -run '^$' -bench ScheduleHubPaired -count 6 ./placement/
func BenchmarkScheduleHubPaired(b *testing.B) {
	for _, n := range benchSizes {
		p, hub := benchHub(b, n)
		pred, groups := floorSelectors(b, p)
		s := placement.Scheduler{Clock: fake.New(seedTime())}
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
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

// cpuTime is the user and system time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
