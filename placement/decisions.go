package placement

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// maxDecisions is the most status.decisions one PlacementDecision holds
// (the CRD's documented limit, and OCM's maxNumOfClusterDecisions).
const maxDecisions = 100

// decisions writes each group into PlacementDecisions of at most
// maxDecisions clusters (one empty PlacementDecision for a group with no
// cluster), named <placement>-decision-N with N counting from 1 across the
// groups, and the matching decisionGroups of the Placement status.
func decisions(p *clusterv1beta1.Placement, groups []grouping.Group) ([]*clusterv1beta1.PlacementDecision, []clusterv1beta1.DecisionGroupStatus) {
	objects, total := 0, 0
	for _, g := range groups {
		objects += max(1, (len(g.Clusters)+maxDecisions-1)/maxDecisions)
		total += len(g.Clusters)
	}
	// One backing array for every ClusterDecision and one for every
	// PlacementDecision: two allocations instead of one per object.
	all := make([]clusterv1beta1.ClusterDecision, total)
	objs := make([]clusterv1beta1.PlacementDecision, objects)
	out := make([]*clusterv1beta1.PlacementDecision, 0, objects)
	status := make([]clusterv1beta1.DecisionGroupStatus, 0, len(groups))

	placementKind := schema.GroupVersionKind{Group: clusterv1beta1.GroupName, Version: "v1beta1", Kind: "Placement"}
	decisionType := metav1.TypeMeta{APIVersion: placementKind.GroupVersion().String(), Kind: "PlacementDecision"}
	next := 0
	for _, g := range groups {
		index := strconv.Itoa(int(g.Index))
		gs := clusterv1beta1.DecisionGroupStatus{
			DecisionGroupIndex: g.Index,
			DecisionGroupName:  g.Name,
			ClustersCount:      int32(len(g.Clusters)),
		}
		for lo := 0; lo == 0 || lo < len(g.Clusters); lo += maxDecisions {
			hi := min(lo+maxDecisions, len(g.Clusters))
			chunk := all[: hi-lo : hi-lo]
			all = all[hi-lo:]
			for i, name := range g.Clusters[lo:hi] {
				chunk[i].ClusterName = name
			}
			pd := &objs[len(out)]
			next++
			pd.TypeMeta = decisionType
			pd.ObjectMeta = metav1.ObjectMeta{
				Name:      p.Name + "-decision-" + strconv.Itoa(next),
				Namespace: p.Namespace,
				Labels: map[string]string{
					clusterv1beta1.PlacementLabel:          p.Name,
					clusterv1beta1.DecisionGroupNameLabel:  g.Name,
					clusterv1beta1.DecisionGroupIndexLabel: index,
				},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(p, placementKind)},
			}
			pd.Status.Decisions = chunk
			out = append(out, pd)
			gs.Decisions = append(gs.Decisions, pd.Name)
		}
		status = append(status, gs)
	}
	return out, status
}
