//go:build !race

package conformance

// progressingScenarios is TestProgressingParity's default number of
// scenarios.
const progressingScenarios = 4000
