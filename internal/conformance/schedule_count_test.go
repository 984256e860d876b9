//go:build !race

package conformance

// scheduleScenarios is TestScheduleParity's default number of scenarios.
const scheduleScenarios = 6000
