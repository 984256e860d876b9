// Package hubplan plans one OCM add-on's rollout under the operator's
// controls, an AddOnRollout (rolloutkit.io/v1alpha1): pause, approvals of
// named groups, time windows and verifications between groups. It also
// stages what lands on each cluster: new content of the add-on's works
// under unchanged configs is rolled out as a rendering revision of its own.
//
// # The one call
//
// [Planner.Plan] is the call a controller, a dry run, an offline report
// and a CLI make for an add-on, so that their answers are the same; its
// [Inputs] are what [ReadInputs] reads of a hub ([Hub]). It is
// rollout/addon's PlanAddon (OCM's add-on step) with each placement's
// rollout held by the AddOnRollout's gates; without an AddOnRollout and
// without works it returns PlanAddon's steps exactly. (rollout/addon is
// OCM's add-on semantics alone; this package is rolloutkit's controls and
// staging on top of it.)
//
//	in, err := hubplan.ReadInputs(hub, "cluster-proxy")
//	planner := hubplan.Planner{Rollout: rollout.Planner{Clock: clk}, ValidateQuery: promql}
//	p, err := planner.Plan(in)
//	// p.Rendering != nil: write it as the add-on's RenderingAnnotation first
//	for _, s := range p.Steps {
//		// s.Writes: each add-on's status.configReferences, as PlanAddon's
//		// s.Releases: each add-on's ReleaseAnnotation (a rendering rollout)
//		// s.Progression: the placement's install progression
//	}
//	// p.Status: the AddOnRollout's status (unchanged, as read, until its recheckTime); p.Approvals: the approvals'
//	// p.Checks: run each verification, then in.Controls = p.Record(in.Controls, results) and plan again
//	// p.Expired: delete each approval past the Planner's ApprovalRetention
//	// p.RecheckAfter: when to plan again if nothing else happens
//
// # Status
//
// The status says per placement what its revision is made of (its
// configs, spec hashes and images, [ConfigImage]) and where each group
// stands, and when it was last confirmed and is due to be again
// (lastConfirmedTime, recheckTime: the soonest end of a wait on the clock,
// or [ConfirmInterval]): a status past its recheckTime is stale. Without
// the add-on, Plan gives the AddOnRollout's and the approvals' statuses
// alone (reason AddOnNotFound).
//
// # Gates
//
// The gates are asked in this order: an invalid AddOnRollout holds every
// group (Plan.Invalid lists every problem as a *field.Error); spec.paused
// holds every group; spec.approvalRequired holds the groups it names until
// a RolloutApproval names the add-on, the placement, the group and the
// placement's current revision ([addon.Revision]); spec.windows hold the
// groups they name outside their windows; spec.verifications make a group
// count as done only once each passed. A gate never holds a cluster in
// flight. A verification's PromQL query is checked by the validator given
// in Planner.ValidateQuery; without one, only that it is not empty.
//
// # Rendering rollouts
//
// With Controls.Works, new content of the add-on's works under unchanged
// configs that the work gate holds (its record on the add-on, [Hold],
// reason RenderingHeld) opens a rendering revision ([RenderingRevision]),
// rolled out through the same groups, strategy and gates; each cluster is
// released by an annotation on its add-on ([Release]) and is done once its
// works took new content and are ready ([ReachOf]). A revision is joined
// to each placement's config revision ([CombinedRevision]): a config
// change and a rendering arriving together, in either order, roll out as
// one revision from the first group, so that no config handover carries a
// rendering the groups before it have not taken; a placement whose config
// revision is done but not yet verified finishes that first. A further
// rendering held on a cluster that took the one in flight opens a new
// revision in its place. The state lives in those annotations, so a
// restarted controller carries on.
//
// Every function is pure: no I/O, times from the planner's clock, inputs
// never modified.
package hubplan
