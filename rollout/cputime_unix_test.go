//go:build unix

package rollout_test

import "syscall"

// cpuTime is the CPU time (user + system) this process has used, in
// nanoseconds. Benchmarks report it per op because, unlike wall time, it
// barely moves when other processes compete for the machine.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
