package placement

import (
	"fmt"
	"slices"
	"strings"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// fleet is the hub as the scheduler reads it for one Placement.
type fleet struct {
	// clusters are sorted by name, and meta[i] is more of clusters[i].
	clusters []grouping.Cluster
	meta     []clusterMeta
	// input are the ManagedClusters as given.
	input []*clusterv1.ManagedCluster
	// namespace and name are the Placement's.
	namespace, name string
	// own holds the clusters of the Placement's own PlacementDecisions.
	own       map[string]struct{}
	decisions []*clusterv1beta1.PlacementDecision
	scores    []*clusterv1alpha1.AddOnPlacementScore
}

// clusterMeta is what the scheduler reads of a ManagedCluster besides
// what grouping needs: where it is in the input, and two flags, read with
// the name and labels so that the passes over the candidates need not
// visit the ManagedCluster.
type clusterMeta struct {
	at       int32 // index in the input
	deleting bool  // metadata.deletionTimestamp is set
	tainted  bool  // spec.taints is not empty
}

// managed returns the ManagedCluster of cluster i.
func (f *fleet) managed(i int) *clusterv1.ManagedCluster { return f.input[f.meta[i].at] }

// readFleet reads the clusters, the PlacementDecisions and the
// AddOnPlacementScores for p, and reports nil, unnamed and duplicate
// entries.
func readFleet(p *clusterv1beta1.Placement, clusters []*clusterv1.ManagedCluster, decisions []*clusterv1beta1.PlacementDecision,
	scores []*clusterv1alpha1.AddOnPlacementScore, withClaims bool) (fleet, []error) {
	f := fleet{namespace: p.Namespace, name: p.Name, decisions: decisions, scores: scores, input: clusters}
	var errs []error
	f.clusters, f.meta, errs = readClusters(clusters, withClaims)
	errs = append(errs, checkObjects("decisions", "PlacementDecision", decisions)...)
	errs = append(errs, checkObjects("scores", "AddOnPlacementScore", scores)...)
	if len(errs) > 0 {
		return fleet{}, errs
	}
	own := 0 // the size of f.own, about: a map that grows rehashes
	for _, pd := range decisions {
		if f.isOwn(pd) {
			own += len(pd.Status.Decisions)
		}
	}
	if own > 0 {
		f.own = make(map[string]struct{}, own)
	}
	for _, pd := range decisions {
		if f.isOwn(pd) {
			for _, d := range pd.Status.Decisions {
				f.own[d.ClusterName] = struct{}{}
			}
		}
	}
	return f, nil
}

// isOwn reports whether pd is one of the Placement's PlacementDecisions,
// as OCM's scheduler finds them: by namespace and placement label.
func (f *fleet) isOwn(pd *clusterv1beta1.PlacementDecision) bool {
	return pd.Namespace == f.namespace && pd.Labels[clusterv1beta1.PlacementLabel] == f.name
}

// inDecisions reports whether cluster i is among the Placement's own
// decisions.
func (f *fleet) inDecisions(i int) bool {
	_, ok := f.own[f.clusters[i].Name]
	return ok
}

// find returns the index of the cluster named name, or -1.
func (f *fleet) find(name string) int {
	i, ok := slices.BinarySearchFunc(f.clusters, name, func(c grouping.Cluster, n string) int { return strings.Compare(c.Name, n) })
	if !ok {
		return -1
	}
	return i
}

// readClusters reads what grouping needs of each ManagedCluster, sorted by
// name, with the rest of what the scheduler needs in the same order, and reports nil
// entries, empty names and duplicates. It does not call
// grouping.FromManagedCluster: that copies the label maps, which makes
// Schedule about 3× slower at 10k clusters. Here the label maps are shared
// with the ManagedClusters, as nothing writes to them, and claims are read
// only when some selector looks at them.
func readClusters(clusters []*clusterv1.ManagedCluster, withClaims bool) ([]grouping.Cluster, []clusterMeta, []error) {
	var errs []error
	entries := make([]sortEntry, 0, len(clusters))
	for i, mc := range clusters {
		switch {
		case mc == nil:
			errs = append(errs, fmt.Errorf("clusters[%d]: nil ManagedCluster: want a ManagedCluster", i))
		case mc.Name == "":
			errs = append(errs, fmt.Errorf("clusters[%d]: ManagedCluster with an empty name: want metadata.name", i))
		default:
			entries = append(entries, sortEntry{name: mc.Name, labels: mc.Labels,
				clusterMeta: clusterMeta{int32(i), !mc.DeletionTimestamp.IsZero(), len(mc.Spec.Taints) > 0}})
		}
	}
	read := make([]grouping.Cluster, len(entries))
	meta := make([]clusterMeta, len(entries))
	for i, k := range byName(entries) {
		e := &entries[k.at]
		read[i], meta[i] = grouping.Cluster{Name: e.name, Labels: e.labels}, e.clusterMeta
		if !withClaims {
			continue
		}
		if mc := clusters[e.at]; len(mc.Status.ClusterClaims) > 0 {
			read[i].Claims = make(map[string]string, len(mc.Status.ClusterClaims))
			for _, cl := range mc.Status.ClusterClaims {
				read[i].Claims[cl.Name] = cl.Value
			}
		}
	}
	for _, name := range grouping.DuplicateNames(read) {
		errs = append(errs, fmt.Errorf("duplicate ManagedCluster %q: want each cluster once", name))
	}
	return read, meta, errs
}
