package placement

import (
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// Hub is what OCM's scheduler reads to schedule one Placement. Nothing in
// it is modified, and its slices may be in any order.
type Hub struct {
	// Clusters are the ManagedClusters of the hub.
	Clusters []*clusterv1.ManagedCluster
	// ClusterSets are the ManagedClusterSets of the hub.
	ClusterSets []*clusterv1beta2.ManagedClusterSet
	// Bindings are ManagedClusterSetBindings of any namespace; only those
	// in the Placement's namespace count.
	Bindings []*clusterv1beta2.ManagedClusterSetBinding
	// Scores are AddOnPlacementScores of any namespace; the namespace of a
	// score is the name of the cluster it scores.
	Scores []*clusterv1alpha1.AddOnPlacementScore
	// Decisions are the hub's PlacementDecisions. The Placement's own
	// (in its namespace, labelled cluster.open-cluster-management.io/placement
	// with its name) serve the Steady prioritizer and NoSelectIfNew taints;
	// the others serve the Balance prioritizer.
	Decisions []*clusterv1beta1.PlacementDecision
}

// ScheduleHub is Scheduler{}.ScheduleHub: it reads the real clock.
func ScheduleHub(p *clusterv1beta1.Placement, hub Hub) (Result, error) {
	return Scheduler{}.ScheduleHub(p, hub)
}

// ScheduleHub schedules p against the whole hub, as OCM v1.2.0's
// scheduler does.
func (s Scheduler) ScheduleHub(p *clusterv1beta1.Placement, hub Hub) (Result, error) {
	return s.Schedule(p, hub.Clusters)
}
