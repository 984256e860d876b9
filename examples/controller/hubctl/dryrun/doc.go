// Package dryrun is the controller's dry run ([DryRun]): it reads a live
// hub ([ReadHub]) and writes, for every add-on the controller takes whose
// install strategy is Placements, what the next step of its rollout would
// be, with the planner the add-on reconciler calls (hubplan.Planner.Plan),
// in the words of examples/plan. It runs no verification and writes
// nothing to the hub.
package dryrun
