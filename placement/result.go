package placement

import (
	"time"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// Result is what the placement controller would write for a Placement: the
// selected clusters, their decision groups, the PlacementDecisions and the
// Placement's status, plus warnings about traps in the configuration.
type Result struct {
	// Clusters are the names of the selected clusters, sorted in byte order.
	Clusters []string
	// Groups are the decision groups in index order.
	Groups []grouping.Group
	// Decisions are the PlacementDecisions, named <placement>-decision-N
	// with N counting from 1 across the groups in index order.
	Decisions []*clusterv1beta1.PlacementDecision
	// Status is the Placement's new status.
	Status clusterv1beta1.PlacementStatus
	// Warnings name what in the configuration is likely to surprise a user,
	// in a deterministic order. OCM has no counterpart.
	Warnings []Warning
	// RecheckAfter is 0 when the result does not depend on time; else how
	// long until it may change on its own (a toleration or an
	// AddOnPlacementScore expires), as OCM's scheduler requeues.
	RecheckAfter time.Duration
	// Misconfigured is true when Schedule or ScheduleHub returned an error
	// for a Placement that OCM would still write a status for
	// (PlacementMisconfigured True, reason Misconfigured): the error lists
	// the problems, and Status and Decisions are what to write. With an
	// error and Misconfigured false the Result is empty and nothing is to
	// be written.
	Misconfigured bool
}

// WarningKind classifies a [Warning]. Its values are stable and meant for
// machines: filter or count on them, show the Message to people.
type WarningKind string

// The kinds of warnings Schedule and ScheduleHub give.
const (
	// UnnamedGroup: selected clusters matched no decisionGroups entry and
	// fall into unnamed groups, rolled out after the named ones.
	UnnamedGroup WarningKind = "UnnamedGroup"
	// EmptyNamedGroup: a decisionGroups entry matched no cluster, makes no
	// group, and the later groups' indices shift down.
	EmptyNamedGroup WarningKind = "EmptyNamedGroup"
	// SplitGroup: clustersPerDecisionGroup cuts one decisionGroups entry
	// into several groups with the same name and consecutive indices.
	SplitGroup WarningKind = "SplitGroup"
	// NumberOfClusters: spec.numberOfClusters asks for more clusters than
	// were selected; the rest are unscheduled.
	NumberOfClusters WarningKind = "NumberOfClusters"
	// Tainted: clusters that the predicates select were dropped by a taint
	// the Placement does not tolerate.
	Tainted WarningKind = "Tainted"
	// TolerationExpiring: a selected cluster is kept only by a toleration
	// with tolerationSeconds, and is dropped when it expires.
	TolerationExpiring WarningKind = "TolerationExpiring"
	// NoClusterSetBinding: the Placement's namespace has no valid
	// ManagedClusterSetBinding, or every bound cluster set is empty.
	NoClusterSetBinding WarningKind = "NoClusterSetBinding"
	// SpreadPolicy: spec.spreadPolicy was applied, which OCM v1.2.0
	// accepts but ignores; the message says what OCM would select instead.
	SpreadPolicy WarningKind = "SpreadPolicy"
)

// Warning is one thing in a Placement's configuration that is valid but
// likely to surprise: its kind and a message for people.
type Warning struct {
	Kind    WarningKind
	Message string
}

// String formats the warning as "Kind: message".
func (w Warning) String() string { return string(w.Kind) + ": " + w.Message }
