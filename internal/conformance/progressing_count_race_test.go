//go:build race

package conformance

// progressingScenarios is TestProgressingParity's default number of
// scenarios under the race detector, which makes OCM's controller several
// times slower; the plain run does the full count.
const progressingScenarios = 1000
