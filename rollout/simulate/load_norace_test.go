//go:build !race

package simulate_test

// raceEnabled reports a build with the race detector, under which the load
// test is too slow to run.
const raceEnabled = false
