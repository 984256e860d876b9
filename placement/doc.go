// Package placement reproduces OCM's placement scheduling: from a Placement
// and the hub (ManagedClusters, ManagedClusterSets and their bindings,
// AddOnPlacementScores and PlacementDecisions), the selected clusters,
// their decision groups, the PlacementDecisions and the Placement status,
// exactly as the placement controller writes them; and, the other way
// round, the decision groups from existing PlacementDecisions.
//
// # Scheduling
//
// [ScheduleHub] (or [Scheduler.ScheduleHub] with an injected clock) runs
// OCM's scheduler on a [Hub]: the candidates are the members of the
// cluster sets bound to the Placement's namespace (narrowed to
// spec.clusterSets); those that match any of spec.predicates and whose
// taints the Placement tolerates are selected; with spec.numberOfClusters
// the prioritizers (Balance, Steady, ResourceAllocatableCPU and Memory,
// AddOnPlacementScores, in Additive or Exact mode) rank them and the best
// are kept, spread by spec.spreadPolicy. [Schedule] takes a list of
// ManagedClusters instead, every one a candidate, as if bound through the
// global cluster set with no other decision on the hub.
//
// The selected clusters are divided with spec.decisionStrategy.groupStrategy
// (see package grouping), and each group is written into
// PlacementDecisions of at most 100 clusters named <placement>-decision-1,
// -2, ... across the groups, labelled with the group's name and index and
// owned by the Placement. The Placement status carries
// numberOfSelectedClusters, decisionGroups and the PlacementMisconfigured
// and PlacementSatisfied conditions with OCM's reasons and messages.
// [Result.RecheckAfter] says when a toleration or an AddOnPlacementScore
// runs out and the choice may change.
//
// # Traps
//
// A Placement can be valid and still not roll out in the order its author
// meant, or not to the clusters they expect. [Result.Warnings] names these
// traps (see [WarningKind]):
//
//   - No ManagedClusterSetBinding in the Placement's namespace (or none
//     whose set has a member) selects nothing at all. Kind
//     [NoClusterSetBinding].
//   - OCM taints unreachable and unavailable clusters: a Placement that
//     does not tolerate the taint drops them, so "why is prod-3 not in the
//     rollout?" has this answer. Kind [Tainted]. A toleration with
//     tolerationSeconds keeps a cluster only for a while. Kind
//     [TolerationExpiring].
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
// CEL selectors are not evaluated: a Placement that uses one is refused
// with an error naming the field. spec.spreadPolicy, which OCM v1.2.0
// ignores, is applied ([SpreadPolicy] warning). [Result.RecheckAfter]
// counts the newly selected clusters and AddOnPlacementScores as well.
// A percentage clustersPerDecisionGroup is computed in exact integer
// arithmetic ("7%" of 100 clusters is 7, where OCM's floating point gives
// 8). clustersPerDecisionGroup is admitted exactly as its CRD pattern
// ^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$ admits it (the integer 0, the Go
// zero value, means unset): a negative integer, "0%", "N%" above 100% or
// with decimals is a misconfiguration (OCM takes each as all clusters, or
// as its floating-point percentage), and a positive integer written as a
// string ("5") is accepted (OCM's controller refuses it). When a decision
// group selector does not compile, OCM keeps the groups made before it;
// here there are no groups. docs/compatibility.md lists each difference
// with its test.
package placement
