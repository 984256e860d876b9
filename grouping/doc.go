// Package grouping divides selected clusters into the decision groups of an
// OCM Placement's spec.decisionStrategy.groupStrategy, the way the placement
// controller does.
//
// # Rules
//
// [Divide] applies a GroupStrategy to a list of [Cluster] values (name,
// labels, cluster claims):
//
//   - The group length L is clustersPerDecisionGroup: a positive integer
//     (an int, or a string such as "5") as is, or "N%" (1 <= N <= 100) of
//     the clusters, rounded up in exact integer arithmetic. An unset value
//     (the int 0, the Go zero value) or L larger than the number of
//     clusters mean "all clusters in one group". Anything else, such as -3,
//     "0", "0%", "05%" or "150%", is an error: the values admitted are
//     exactly those of the CRD pattern ^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$.
//   - The decisionGroups entries are taken in spec order; each takes the
//     clusters that its groupClusterSelector matches (label selector AND
//     claim selector) and that no earlier entry took: first match wins.
//   - The clusters of an entry are sorted by name (byte order) and cut into
//     chunks of L; every chunk is a group with the entry's name.
//   - An entry that matches no cluster makes no group, so the indices of
//     the later groups shift down.
//   - Clusters that match no entry are not dropped: sorted and cut the same
//     way, they form groups with the empty name after the named ones.
//   - Groups are indexed 0, 1, 2, ... in that order. With no cluster at all,
//     there is exactly one group: index 0, empty name, no clusters.
//
// # Compiling once
//
// [Compile] validates a GroupStrategy and compiles its selectors into a
// [Strategy] that can divide many cluster lists; [Divide] is Compile
// followed by [Strategy.Divide]. [NewSelector] compiles one label and claim
// selector pair into a [Selector]; the placement package uses it for
// spec.predicates so that both packages match clusters the same way.
//
// # Errors
//
// Problems are apimachinery's *field.Error values
// (k8s.io/apimachinery/pkg/util/validation/field), all of them at once,
// joined with errors.Join: errors.As finds each. Their paths are real
// paths into the input. [Compile] and [NewSelector] take the path of what
// they are given in its object; [Divide]'s start at the GroupStrategy's
// fields, and its cluster list is the argument clusters:
//
//	clustersPerDecisionGroup: Invalid value: "7x": want a positive integer or a percentage 1%-100%
//	decisionGroups[1].groupClusterSelector.labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"
//	clusters[4].Name: Duplicate value: "dev-cluster": want each cluster once (clusters[0] has it too)
//
// A selector is validated as Kubernetes validates a LabelSelector
// (k8s.io/apimachinery/pkg/apis/meta/v1/validation), each requirement on
// its own, so that every bad one is reported.
package grouping
