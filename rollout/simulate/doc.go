// Package simulate runs a whole rollout on a fake clock: a fleet of
// simulated clusters answers the planner of package rollout, and the
// simulation records what happened when, until the rollout completes,
// halts, gets stuck, or runs out of time.
//
// # The loop
//
// [Run] is a discrete-event simulation. At every step it calls
// [rollout.Planner.Plan] with the clusters' current statuses, applies the
// configuration to the untouched clusters the planner lists, records what
// the planner concluded (time-outs, breaches, held and completed groups),
// and then jumps the clock to the next instant at which something can
// change: the earliest pending cluster transition, or the planner's
// RecheckAfter, whichever comes first. Nothing happens between two steps,
// so a rollout of weeks takes a few hundred planner calls. A step that
// starts clusters is followed by a second planner call at the same
// instant, as a controller reconciles when they report Progressing: only
// then does the planner know their deadlines.
//
// # Simulated clusters
//
// A [Behavior] says how one cluster reacts once the configuration is
// applied: it reports Progressing at once, then Succeeded (or Failed)
// after ApplyDuration; a Silent cluster never reports again; a failed or
// silent cluster may recover (turn Succeeded) RecoverAfter its apply. The
// planner, not the simulation, decides when a cluster has timed out: a
// simulated cluster keeps reporting Progressing or Failed with its last
// transition time, exactly as a real one would.
//
// # Outcomes
//
// A [Result] is a timeline of [Event] values, the start and finish of every
// group, and an [Outcome] with a one-line reason taken from the planner's
// explanations:
//
//   - Completed: every group is complete (succeeded and soaked, or failed
//     within maxFailures).
//   - Halted: the failure budget is breached and nothing pending can change
//     that.
//   - Stuck: no progress is possible, e.g. a silent cluster with no
//     progressDeadline, or a gate that never opens.
//   - TimeLimit: the simulated time ran past Options.Limit (or the number of
//     planner calls past Options.MaxPlans) first.
//
// [Result.Timeline] renders the events one per line:
//
//	+00:00 started group dev
//	+00:00 applied dev-cluster (dev)
//	+00:00 progressing dev-cluster (dev)
//	+02:00 succeeded dev-cluster (dev)
//	+07:00 completed group dev: 1 succeeded
//	+07:00 started group stg
//
// # Determinism
//
// Run uses no goroutines, no real clock and no package-level state, and
// never modifies its inputs. Events at one instant come in a fixed order
// (cluster transitions, then what the planner concluded, then the clusters
// it started, each by group index and cluster name), so the same inputs
// always give the same Result. Gates are called with the simulated time and
// must depend on nothing else.
package simulate
