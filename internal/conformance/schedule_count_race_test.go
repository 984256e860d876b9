//go:build race

package conformance

// scheduleScenarios is TestScheduleParity's default number of scenarios
// under the race detector, which makes OCM's controller about ten times
// slower: CI's go test -race stays within a minute. The plain run does
// the full count.
const scheduleScenarios = 1000
