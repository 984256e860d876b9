// Package hubctl is a hub controller built on rolloutkit: it does on a real
// API server what OCM's placement controller and add-on manager do for a
// staged add-on rollout, with the library's packages doing the deciding.
//
// # Two reconcilers
//
// The Placement reconciler ([PlacementReconciler]) schedules every Placement
// against the whole hub, as OCM's scheduler does, with
// placement.Scheduler.ScheduleHub: the ManagedClusters of the
// ManagedClusterSets bound in the Placement's namespace (none bound: none
// selected, with OCM's reason NoManagedClusterSetBindings), taints and
// tolerations, prioritizers with AddOnPlacementScores, and the
// PlacementDecisions already on the hub. It writes the result: the
// PlacementDecisions (created, updated or deleted, 100 clusters each, owned
// by the Placement) and the Placement's status subresource. When a
// toleration or a score expires, it schedules the Placement again then. It
// logs the scheduler's warnings (a cluster dropped by a taint, a
// toleration about to expire, no binding) at verbosity 1. A Placement with
// a celSelector, which rolloutkit does not evaluate, is reported in the log
// and left as it is, and so is a Placement annotated
// cluster.open-cluster-management.io/experimental-scheduling-disable "true",
// as OCM's controller leaves it to another scheduler. On a hub where OCM's
// own placement controller runs, leave it off.
//
// The add-on rollout reconciler ([AddonReconciler]) takes every
// ClusterManagementAddOn whose install strategy is Placements and, for each
// of its placements (a cluster that several of them select belongs to the
// last one, as in OCM):
//
//  1. reads the decision groups from the PlacementDecisions
//     (placement.GroupsFromDecisions);
//  2. makes sure a ManagedClusterAddOn exists on every selected cluster;
//  3. computes the desired configs and their spec hashes (addon.Evaluate,
//     hash.Spec of the config objects);
//  4. plans the rollout (rollout.Planner.Plan with the placement's
//     rolloutStrategy);
//  5. writes status.configReferences[].desiredConfig only on the add-ons of
//     the clusters the plan lists, and the ClusterManagementAddOn's
//     status.installProgressions (addon.InstallProgression);
//  6. asks to be called again after the plan's RecheckAfter.
//
// A rollout strategy that does not validate is reported on the placement's
// install progression (Progressing False, reason InvalidRolloutStrategy,
// with the field errors) and in an event, and nothing is rolled out for it.
// Any other problem (a config object or a cluster namespace missing) is
// logged and reported in an event; what can go ahead does, and the
// reconcile runs again within seconds.
//
// # State and ownership
//
// The controller keeps no rollout state of its own: everything it decides
// comes from the API objects, so a controller that is killed and started
// again carries on where the objects say the rollout is. It writes only the
// fields it owns: desiredConfig and the Configured condition of a
// ManagedClusterAddOn (the agent's lastAppliedConfig and Progressing
// condition are carried over as read), and the install progressions of a
// ClusterManagementAddOn. Every status write is a merge patch that carries
// the resourceVersion it was computed from, so a concurrent write by the
// agent makes it fail with a conflict and the reconcile runs again on fresh
// data; nothing is ever forced over newer data. A write that changes
// nothing is not sent.
//
// # Versions
//
// ClusterManagementAddOns and ManagedClusterAddOns are served in v1alpha1 and
// v1beta1. The controller reads and writes the version the hub stores
// (found from the CustomResourceDefinition), so no field is lost to a missing
// conversion webhook, and converts to v1beta1 for the library with the
// conversions of open-cluster-management.io/api.
package hubctl
