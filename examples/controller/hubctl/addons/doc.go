// Package addons is the controller's add-on reconciler
// ([AddonReconciler]): for each ClusterManagementAddOn it takes, it
// installs the add-on's ManagedClusterAddOns and rolls its configs out,
// as OCM's add-on manager does, under the add-on's AddOnRollout when it
// has one.
//
// # Which add-ons
//
// The controller takes a ClusterManagementAddOn only when its annotation
// addon.open-cluster-management.io/lifecycle ([hubclient.LifecycleAnnotation]) has
// one of the values it is given (hubctl.Options.Lifecycles, flag -lifecycle;
// default [hubclient.DefaultLifecycle], "rolloutkit"). OCM v1.2.0's add-on manager
// takes "addon-manager" and the add-ons without the annotation, so an
// add-on annotated "rolloutkit" has one owner, and OCM keeps running beside
// this controller for every other add-on. Given "addon-manager", on a hub
// where OCM's add-on manager does not run, the controller takes what OCM
// would have taken, the add-ons without the annotation included. An add-on
// it does not take is never planned or written, nor are its
// ManagedClusterAddOns.
//
// # The add-on reconciler
//
// The add-on reconciler does, for each add-on it takes
// whose install strategy is Placements, what OCM's add-on manager does:
//
//  1. reads its inputs from the cache with hubplan.ReadInputs, the
//     one way -dry-run, examples/plan and rolloutctl read them too: each
//     install-strategy placement's Placement and its decision groups from
//     the PlacementDecisions only, the add-ons, the AddOnRollout, the
//     approvals and the ManifestWorks;
//  2. creates a ManagedClusterAddOn, controlled by the
//     ClusterManagementAddOn, on every selected cluster, and deletes the
//     add-on of a cluster no placement selects any more (addon.Install);
//     it makes every other add-on of a taken ClusterManagementAddOn (made
//     by hand, say) controlled by it too, as OCM's addonowner does, so
//     that the garbage collector deletes them all with it;
//  3. plans the step with hubplan.Planner.Plan, the call -dry-run,
//     examples/plan and rolloutctl make too, with Prometheus's parser as
//     its query validator (verify.PromQL): addon.PlanAddon under the
//     add-on's AddOnRollout when it has one (see "Operator controls"
//     below); a cluster that several placements select belongs to the
//     last, Progressive's default window is the Placement's
//     clustersPerDecisionGroup, config spec hashes are hash.Spec of the
//     config objects in the cache;
//  4. writes status.configReferences[].desiredConfig and the Configured
//     condition of the add-ons the step changes, and the
//     ClusterManagementAddOn's status.installProgressions;
//  5. asks to be called again after the plan's RecheckAfter (with an
//     AddOnRollout, by its status's recheckTime at the latest).
//
// For an add-on whose install strategy is Manual it installs and removes
// nothing, and configures the add-ons made by hand with the default
// configs, all at once, as OCM's add-on manager does.
//
// A placement that cannot be planned (a rollout strategy that does not
// validate, a missing Placement, a config object that cannot be read) is
// reported on its install progression (Progressing False, with the reason
// and a message naming the field or the object) and in an event; nothing
// is rolled out for it, and the add-on's other placements are. A config
// resource the controller's RBAC does not let it list and watch is such a
// config: the controller asks (SelfSubjectAccessReviews) before it first
// watches a resource, and reports ConfigurationError naming the resource
// instead of starting a watch that would never sync. A write that fails
// is reported in an event; the other writes are made, and the reconcile
// returns the error, so that controller-runtime logs it, counts it and
// runs the reconcile again on its rate limiter (from 200ms, doubling to
// 10s; a conflict likewise, without the event).
//
// # Operator controls
//
// On a hub that serves rolloutkit.io's CRDs (examples/controller/config/crd),
// an add-on's AddOnRollout, named after it, pauses its rollout, names the
// groups that wait for a RolloutApproval of the revision rolled out, the
// time windows groups start in, and the verifications (a webhook, a
// Prometheus query) a group must pass before the groups after it start.
// The reconciler runs the checks the plan finds due (verify.Verifier), records
// their results and plans again in the same reconcile; it writes the
// AddOnRollout's status (per placement its revision, the configs it is
// made of with their spec hashes and images, and each group's phase, what
// it waits for and why; when it last confirmed the status and when it will
// again at the latest) and each approval's Approved condition. An
// unchanged status is written again only at its recheckTime (at most
// hubplan.ConfirmInterval after the last write), and the reconcile is
// queued for then: a status past its recheckTime is stale. Once the status
// is written it sends an event for each change ([EventGroupPhase],
// [EventBreached], [EventVerificationFailed], [EventApprovalRequested],
// [EventApprovalUsed], ...), each with an action naming its subject (the
// placement, the group, from and to, the revision), so that client-go's
// event broadcaster, which merges the events of one key into a series
// showing the first message, never merges two transitions (see
// docs/semantics.md §6.10b). It deletes the approvals of superseded
// revisions past hubctl.Options.ApprovalRetention ([EventApprovalDeleted]). An
// AddOnRollout or a RolloutApproval naming an add-on the hub does not have
// is reconciled through that name too: it gets a condition with reason
// AddOnNotFound ([EventAddOnNotFound]) until the add-on exists. rolloutmetrics.Metrics export each group's phase, clusters and what it waits
// for and until when, pending approvals, breaches, verification results
// and the verifications failing now, the time from a revision's start to
// its completion, and whether each AddOnRollout is
// valid and paused. An add-on without an AddOnRollout is
// rolled out as OCM would; on a hub without the CRDs, the controller says
// so once and rolls every add-on out that way.
//
// rollouthook.Register serves the same objects' admission on the webhook
// server: rollouthook.Validator refuses an AddOnRollout whose spec
// hubplan.ValidateSpec finds wrong (the reconciler's own checks but
// group names), and rollouthook.ApproverRecorder writes into a new RolloutApproval
// the user who creates it (config/webhook/admission.yaml installs both).
//
// # State and ownership
//
// The controller keeps no rollout state of its own: everything it decides
// comes from the API objects, so a controller that is killed and started
// again carries on where the objects say the rollout is. It writes only the
// fields OCM's add-on manager owns: desiredConfig, lastAppliedConfig and
// the Configured and Progressing conditions of a ManagedClusterAddOn
// (every other condition, such as the ManifestApplied condition the
// add-on's own manager writes, is carried over as read) and its owner
// reference to its ClusterManagementAddOn when it has none, and the
// install progressions of a ClusterManagementAddOn. Every write is a merge patch
// that carries the resourceVersion it was computed from (hubclient.PatchStatus,
// hubclient.PatchObject), so a
// concurrent write by anyone else makes it fail with a conflict and the
// reconcile runs again on fresh data; nothing is ever forced over newer
// data. A write that changes nothing is not sent.
package addons
