// Package placements is the controller's Placement reconciler
// ([PlacementReconciler]): it schedules every Placement against the whole
// hub, as OCM's scheduler does, with placement.Scheduler.ScheduleHub: the
// ManagedClusters of the ManagedClusterSets bound in the Placement's
// namespace (none bound: none selected, with OCM's reason
// NoManagedClusterSetBindings), taints and tolerations, prioritizers with
// AddOnPlacementScores, and the PlacementDecisions already on the hub. It
// writes the result: the PlacementDecisions (created, updated or deleted,
// 100 clusters each, owned by the Placement) and the Placement's status
// subresource. When a toleration or a score expires, it schedules the
// Placement again then. It logs the scheduler's warnings (a cluster
// dropped by a taint, a toleration about to expire, no binding) at
// verbosity 1. A Placement with a celSelector, which rolloutkit does not
// evaluate, is reported in the log and left as it is, and so is a
// Placement annotated
// cluster.open-cluster-management.io/experimental-scheduling-disable "true",
// as OCM's controller leaves it to another scheduler. On a hub where OCM's
// own placement controller runs, leave it off.
package placements
