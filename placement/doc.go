// Package placement reproduces OCM's placement scheduling: from a Placement
// and the ManagedClusters, the selected clusters, their decision groups,
// the PlacementDecisions and the Placement status, exactly as the placement
// controller writes them; and, the other way round, the decision groups
// from existing PlacementDecisions.
//
// # Scheduling
//
// [Schedule] (or [Scheduler.Schedule] with an injected clock) selects the
// clusters that match any of spec.predicates, divides them with
// spec.decisionStrategy.groupStrategy (see package grouping), and writes
// each group into PlacementDecisions of at most 100 clusters named
// <placement>-decision-1, -2, ... across the groups, labelled with the
// group's name and index and owned by the Placement. The Placement status
// carries numberOfSelectedClusters, decisionGroups and the
// PlacementMisconfigured and PlacementSatisfied conditions with OCM's
// reasons and messages.
//
// # Traps
//
// A Placement can be valid and still not roll out in the order its author
// meant. [Result.Warnings] names these traps (see [WarningKind]):
//
//   - Clusters that match the predicates but no groupClusterSelector are
//     not dropped: they fall into unnamed groups (empty name) that come
//     after the named ones, so they are updated last. Restrict the
//     predicate (as the seed does with "environment In (dev, stg, prod)") to
//     keep them out. Kind [UnnamedGroup].
//   - A decisionGroups entry that matches no cluster makes no group, and
//     the indices of the later groups shift down: with no dev cluster, stg
//     becomes index 0 and prod index 1. Anything that refers to groups by
//     index (mandatory decision groups, dashboards) then points at another
//     group. Kind [EmptyNamedGroup].
//   - clustersPerDecisionGroup cuts every entry into groups of at most that
//     many clusters: one name then spans several indices, each rolled out
//     as its own group. Kind [SplitGroup].
//   - The numeric suffix of a PlacementDecision name counts from 1 and
//     across groups; it is not the group index. Read the
//     cluster.open-cluster-management.io/decision-group-index label, as
//     [GroupsFromDecisions] does.
//
// # Differences from OCM
//
// Cluster sets, CEL selectors, taints and tolerations are not evaluated:
// every ManagedCluster passed in is a candidate (an [Unsupported] warning
// says when the Placement uses them). spec.numberOfClusters keeps the first
// clusters in name order instead of ranking them by prioritizer scores
// ([NumberOfClusters] warning). A percentage clustersPerDecisionGroup is
// computed in exact integer arithmetic ("7%" of 100 clusters is 7, where
// OCM's floating point gives 8). clustersPerDecisionGroup is admitted
// exactly as its CRD pattern ^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$ admits
// it (the integer 0, the Go zero value, means unset): a negative integer,
// "0%", "N%" above 100% or with decimals is a misconfiguration (OCM takes
// each as all clusters, or as its floating-point percentage), and a
// positive integer written as a string ("5") is accepted (OCM's controller
// refuses it). When a decision group selector does not compile, OCM
// keeps the groups made before it; here there are no groups. With no
// ManagedCluster at all, PlacementSatisfied says NoManagedClusterMatched
// (OCM, which knows the cluster sets, says AllManagedClusterSetsEmpty).
package placement
