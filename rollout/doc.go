// Package rollout is the planner: given an OCM RolloutStrategy, the
// decision groups and each cluster's observed status, it decides which
// clusters get the new configuration next, which timed out, which were
// removed, whether the failure budget is breached, when to look again, and
// why.
//
// # Strategies
//
// All lists every cluster at once. ProgressivePerGroup rolls out one group
// at a time, in index order, moving on only when every cluster of the group
// succeeded and soaked for minSuccessTime. Progressive keeps a window of
// maxConcurrency clusters in flight, in cluster-name order. Both
// progressive types roll out mandatoryDecisionGroups first, tolerating no
// failure there. Failures are counted in every group at every call: once
// they exceed maxFailures, nothing new starts (MaxFailureBreach), while the
// clusters in flight carry on. docs/semantics.md §3 is the rule book;
// docs/compatibility.md lists where rolloutkit deliberately differs from
// OCM's sdk-go.
//
// # Acting on a result
//
// Plan is level-based: call it with what the clusters report now, apply
// the difference, and call it again. Result.ToRollout lists every cluster
// that must have the new config; [Result.Starting] are those that start
// now, the others are already in flight. Record Result.TimedOut as TimeOut.
// Requeue after Result.RecheckAfter; zero means there is nothing to wait
// for on the clock (call Plan again when a status changes), not that the
// rollout is over: [Result.Done] says that.
//
// # Explanations and lint
//
// Result.Groups gives every group a phase (Waiting, Active, Complete,
// Blocked, Breached), its counts by status and a one-line reason, so that
// "why has prod not started?" is answered by one call. Result.Warnings
// names configurations that will surprise: unknown transition times, a
// mandatory group that matches nothing, a failure budget that can never
// trip, a soak without a deadline.
//
// # Gates
//
// Planner.Gates hold groups back without changing OCM's strategy types:
// [Paused] stops the rollout, [Approval] holds groups until a person
// approves them, [Window] admits groups only inside a recurring time
// window. Clusters already in flight are never held. [RequireApproval]
// holds only the groups that need an approval, [ForGroups] scopes any gate
// to named groups, [AnyOf] combines windows by OR, [WindowOf] builds a
// window from an API object's fields, and [AfterVerified] holds the groups
// that come, in [WalkOrder], after a group whose checks have not passed.
// Wait.HeldBy says which gates hold a group, and [GroupProgress.Summary]
// is its reason without countdowns, for a status that must not change
// while only time passes.
//
// # Errors
//
// [Validate] and Plan report every problem of their input at once, as
// apimachinery *field.Error values (k8s.io/apimachinery/pkg/util/validation/field)
// joined with errors.Join: `progressive.maxConcurrency: Invalid value:
// "150%": want a non-negative integer or a percentage 0%-100%`. The paths
// of a strategy are relative to it; Plan's other paths name the planner
// and its arguments (Planner.DefaultConcurrency, groups[2].Index,
// statuses[1].Status).
//
// # Time
//
// Planner.Clock is read once per call (nil: the real clock); there is no
// package-level clock, so planners at different times can run side by side.
package rollout
