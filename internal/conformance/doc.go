// Package conformance checks rolloutkit's planner against OCM's reference
// implementation, open-cluster-management.io/sdk-go v1.3.0
// (RolloutHandler.GetRolloutCluster), and measures both.
//
// It is a separate Go module so that the library itself never depends on
// sdk-go and its dependency tree: only this module requires it, and the
// library is replaced by the working tree (../..). Run it with
//
//	cd internal/conformance && go test ./...
//
// What it holds, all in test files:
//
//   - TestParity runs both planners on many random scenarios from a seeded
//     generator (-seed, -scenarios, -scenario to replay one) and requires
//     them to agree exactly, except where a documented divergence applies.
//     Each divergence has a predicate computed from the input; a
//     disagreement is allowed only when one of them holds, and every
//     predicate must both fire and explain an observed disagreement.
//   - TestDivergence_* show each divergence on one hand-made input, asserting
//     OCM's behaviour and ours. docs/compatibility.md lists them.
//   - TestDivergence_CustomConfigsComplete runs OCM's add-on manager itself
//     (open-cluster-management.io/ocm v1.2.0, its addon-configuration
//     controller over fake clientsets and informers) beside rollout/addon on
//     one hub, for divergence A3.
//   - Benchmarks of Plan, of OCM's GetRolloutCluster and of a floor that
//     only indexes the statuses; docs/performance.md has the numbers.
//
// OCM reads time from a package-level variable, RolloutClock, which these
// tests set before each call. Tests that call OCM therefore never run in
// parallel with each other: that is OCM's limitation, not rolloutkit's,
// whose Planner takes its clock as a field.
package conformance
