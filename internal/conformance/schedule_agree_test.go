package conformance

// Hand-made hubs on which OCM's scheduler and ours must agree, at edges
// the random scenarios reach too seldom to guard on every run.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// TestScheduleAgrees_BalanceTruncation: Balance scores a cluster with one
// decision of three 2*int64(100*(0.5-1/3)) = 32, not 33, and a tie with
// another cluster's 100 - 68 goes to the first name. Not parallel: OCM
// reads package-level clocks.
func TestScheduleAgrees_BalanceTruncation(t *testing.T) {
	hub := everySetHub("ns", managedCluster("a"), managedCluster("b"), managedCluster("m"))
	hub.Decisions = append(hub.Decisions, decisionsOf("ns", "one", "one-decision-1", "m", "b"),
		decisionsOf("ns", "two", "two-decision-1", "m"), decisionsOf("other", "three", "three-decision-1", "m"))
	hub.Scores = append(hub.Scores, placementScore("a", "res", nil, "s", "-68"), placementScore("b", "res", nil, "s", "0"))
	hc := hubCase{Now: hubNow, Hub: hub, Placement: newPlacement("ns", "p", numberOfClusters(1),
		prioritizerMode(clusterv1beta1.PrioritizerPolicyModeExact), builtIn("Balance", 1), addOnScore("res", "s", 1))}

	theirs := runOCMScheduler(hc)
	ours, _ := runOurScheduler(hc)
	assert.Equal(t, [][]string{{"a"}}, groupClusters(theirs), "OCM: a and b both score 32, a first by name")
	assert.Empty(t, diffSchedule(ours, theirs))
}
