// Package planreport plans the next step of an add-on's rollout from the
// objects of a hub, and renders the plan as text or JSON.
//
// It is what the example programs share: examples/plan fills a [Hub] from
// the YAML of `kubectl get -o yaml`, a controller fills one from a live
// read, and both print the same [Report]:
//
//	h := &planreport.Hub{Clusters: clusters, Placements: placements, ...}
//	for _, name := range h.AddonNames() {
//		rep, err := planreport.New(h, name, now, gates)
//		if err != nil {
//			return err
//		}
//		if err := rep.WriteText(os.Stdout); err != nil {
//			return err
//		}
//	}
//
// # What a plan is
//
// For one ClusterManagementAddOn, [New] plans every placement of its
// install strategy, from inputs read as the controller reads them
// (hubplan.ReadInputs): the decision groups from the placement's
// PlacementDecisions only (a Placement without them has no groups yet),
// and each config's spec hash from the config object in [Hub.Configs] (a
// config the hub does not hold fails its placements' plans, reason
// ConfigurationError, as the controller's do); then each group's phase, reason and what
// it waits for as values (its JSON "wait": a kind, the group, cluster or
// gates waited for, and until when; see [Wait]), the
// clusters to start updating now (ToApply) apart from those already in
// flight (progressing, failed within their deadline, or soaking), the
// clusters that timed out or left, whether the failure budget is
// breached, when to look again, and the install progression message OCM's
// add-on manager would write. Gates hold groups back; a held group has
// phase Blocked and the gate's reason.
//
// # Operator controls
//
// An add-on whose AddOnRollout (rolloutkit.io/v1alpha1, named after it) is
// in [Hub.AddOnRollouts] is planned under its gates with
// hubplan.Planner.Plan, the call the controller makes, and with the
// approvals of [Hub.RolloutApprovals]: its pause, the groups that need an
// approval of the placement's revision, its time windows, and its
// verifications, whose last results its status holds. The report then
// gives each placement's revision, each group's status as the controller
// writes it (phase, what it waits for, why; see [Group.Status]), and in
// [Report.Rollout] the approvals pending, the checks due now (only the
// controller runs them), the problems of an invalid spec (the add-on is
// held) and the conditions. An add-on without an AddOnRollout is planned
// with addon.PlanAddon, and its report is what it was before
// AddOnRollouts existed, byte for byte.
//
// Under an AddOnRollout the report also gives each placement's revision's
// configs (resource, name, spec hash, image) and the add-on's approvals
// with who created each and what its status says; and in
// Rollout.Confirmation when the controller last confirmed the status read
// and when it was due to again. At more than [StaleGrace] past that
// recheck time the status is stale. When a placement's revision, made of
// the configs read, is not the one the status was written for, the
// controller has not acted on the change yet: Rollout.NotActedOn lists
// it. Either way Rollout.Written holds the status as read, and
// [Report.WriteStatus] shows it instead of the plan's groups, saying so.
// Times show how long ago or in how long they are ([TimestampFrom]), so a
// time passed shows as past.
//
// Both texts also say what kind of revision a placement rolls out: a
// rendering revision of unchanged configs, or a config change joined with
// one (Placement.Kind, named by Placement.Rendering); and what the work
// gate holds of each group's clusters, as the status records it: how
// many, since when the oldest hold has waited and how many miss a work,
// then each held cluster on its own line (its works, the missing ones
// marked, since when, the gate's reason and why), longest held first, and
// how many more the status does not list.
//
// # Scheduling
//
// A Placement is also scheduled, for its warnings and recheck time only
// (never for its groups), with placement.ScheduleHub, as OCM's scheduler
// schedules it, against the hub's ManagedClusters, ManagedClusterSets,
// ManagedClusterSetBindings, AddOnPlacementScores and all its
// PlacementDecisions. A hub with no ManagedClusterSet and no
// ManagedClusterSetBinding at all was most likely listed without them (a
// real hub has at least the default and global sets): then every cluster
// is a candidate (placement.Schedule), and, for a Placement without
// PlacementDecisions, a warning says so. A Placement without
// PlacementDecisions that selects clusters gets a warning that nothing
// starts until they exist. The
// scheduler's warnings (clusters a taint dropped, tolerations about to
// expire, no binding) are the report's, and the time until a toleration
// or a score expires counts for when to look again. A Placement the
// scheduler refuses (a celSelector, a selector that does
// not compile) fails the plan.
//
// # Determinism
//
// A plan depends only on the hub's objects, the time and the gates: not on
// the order of the hub's lists, which are sorted (in a copy) by namespace
// and name first. Nothing the caller passes is modified.
package planreport
