//go:build !unix

package rollout_test

// cpuTime is not measured here; benchmarks then report wall time only.
func cpuTime() int64 { return 0 }
