// Package hubctl is a hub controller built on rolloutkit: it does on a real
// API server what OCM's placement controller and add-on manager do for a
// staged add-on rollout, with the library's packages doing the deciding.
//
// hubctl is the controller's composition root: [Setup] registers with a
// manager the reconcilers and the webhook that [Options] turn on, each of
// which is a package of its own:
//
//   - placements: the Placement reconciler, which schedules every
//     Placement against the whole hub, as OCM's scheduler does, and writes
//     its PlacementDecisions and status (Options.Placements).
//   - addons: the add-on reconciler, which installs the
//     ManagedClusterAddOns of every add-on the controller takes and rolls
//     its configs out, as OCM's add-on manager does, under the add-on's
//     AddOnRollout and RolloutApprovals when it has them (Options.Addons).
//   - progress: the progress reconciler, which writes each add-on's
//     Progressing condition and lastAppliedConfigs from its ManifestWorks,
//     as OCM's addonprogressing controller does (with Options.Addons).
//   - gatehook: the work gate, the validating webhook of the taken
//     add-ons' ManifestWorks, and the controller that keeps its
//     configuration scoped to them (Options.WorkGate).
//   - dryrun: what the add-on reconciler would do next, read from a live
//     hub and written as text (the controller's -dry-run, rolloutctl).
//
// Below them all, internal/hubclient is the boundary with the hub: the
// scheme, the add-on API version the hub stores and the conversion of
// add-on objects to the v1beta1 the reconcilers work in, the shared reads,
// the lifecycle annotation that says which add-ons the controller takes,
// and the locked patches every write is made with. rollouthook serves the
// admission of rolloutkit.io's AddOnRollouts and RolloutApprovals.
//
// # State and ownership
//
// The controller keeps no rollout state of its own: everything it decides
// comes from the API objects, so a controller that is killed and started
// again carries on where the objects say the rollout is.
package hubctl
