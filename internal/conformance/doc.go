// Package conformance checks rolloutkit against OCM's reference
// implementation and measures both: the planner against
// open-cluster-management.io/sdk-go v1.3.0 (RolloutHandler.GetRolloutCluster),
// the Placement scheduler against the scheduling controller of
// open-cluster-management.io/ocm v1.2.0, and rollout/addon against that
// module's add-on manager controllers.
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
// For the scheduler (files schedule_*_test.go):
//
//   - TestScheduleParity runs OCM's whole scheduling controller
//     (NewSchedulingController with its plugin scheduler, one sync over fake
//     clientsets) and placement.ScheduleHub on hubs from a seeded generator
//     (-schedule-seed, -schedule-scenarios, -schedule-scenario to replay
//     one; 6,000 scenarios, 1,000 under -race) and requires the same
//     decision groups, PlacementDecisions, status and requeue time, except
//     where a documented divergence applies.
//   - TestSchedulePorted runs OCM's own hand-written scheduler cases,
//     rewritten as hubs, on both schedulers.
//   - TestScheduleDivergence_* show each scheduler divergence (S1-S6 and P1,
//     P2, P6 on a whole hub) with both schedulers; TestScheduleAgrees_* pin
//     agreements that random hubs seldom reach.
//   - BenchmarkScheduleHubOCM and BenchmarkScheduleHubOurs time one
//     scheduling of the same hub by each.
//
// For the add-on manager (files addon_*_test.go, progressing_*_test.go,
// handover_test.go), OCM v1.2.0's own controllers over fake clientsets:
//
//   - TestProgressingParity runs the addonprogressing controller and
//     addon.Progressing on random add-ons and ManifestWorks
//     (-progressing-seed, -progressing-scenarios, -progressing-scenario;
//     4,000 scenarios, 1,000 under -race), with divergence W1;
//     TestProgressingPorted runs the 22 cases of OCM's own controller_test.go
//     on both; TestProgressingDivergence_WorkOrder shows W1.
//   - TestHandover shows, from addon-framework's and OCM's code, which
//     ClusterManagementAddOns OCM's add-on manager takes by their lifecycle
//     annotation, and that it leaves one annotated rolloutkit alone.
//   - TestInstallAgrees runs the addonmanagement controller beside
//     addon.Install; TestDivergence_RefusedPlacementReported (A4, A5) runs
//     the addonconfiguration controller beside addon.PlanAddon on a
//     placement that cannot be planned.
//
// OCM reads time from package-level variables (RolloutClock, and the
// scheduler plugins' TolerationClock and AddOnClock), which these tests set
// before each call. Tests that call OCM therefore never run in
// parallel with each other: that is OCM's limitation, not rolloutkit's,
// whose Planner takes its clock as a field.
package conformance
