package placement

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
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
// scheduler does (docs/semantics.md §2.5): the candidates are the members
// of the cluster sets bound to p's namespace (narrowed to
// spec.clusterSets), less the clusters being deleted; the predicates
// select among them; taints not tolerated drop clusters; the prioritizers
// rank the rest, and spec.numberOfClusters keeps the best (spread by
// spec.spreadPolicy, which OCM v1.2.0 ignores; a SpreadPolicy warning says
// so). The selected clusters are then divided into decision groups and
// written as [Scheduler.Schedule] describes, and [Result.RecheckAfter]
// says when a toleration or an AddOnPlacementScore in use expires. The
// annotation cluster.open-cluster-management.io/experimental-scheduling-disable,
// with which OCM's controller leaves a Placement to another scheduler, is
// not read: the result is what OCM's scheduler would choose.
//
// Errors are as for [Scheduler.Schedule], plus: a nil or unnamed object in
// hub, two objects with one namespace and name, and an eligible
// ManagedClusterSet whose selector cannot be built (OCM's controller then
// writes nothing), each with an empty Result; a Placement that uses CEL
// selectors or a malformed spreadPolicy, with an empty Result; and, with
// OCM's Misconfigured status, tolerations and a prioritizerPolicy that
// OCM refuses.
func (s Scheduler) ScheduleHub(p *clusterv1beta1.Placement, hub Hub) (Result, error) {
	if p == nil {
		return Result{}, errors.New("nil Placement: want a Placement to schedule")
	}
	obj := ifield.Object("placement", p.Namespace, p.Name)
	cfg := parseConfig(&p.Spec)
	f, errs := readFleet(p, hub.Clusters, hub.Decisions, hub.Scores, usesClaims(&p.Spec))
	errs = append(errs, checkObjects("clusterSets", "ManagedClusterSet", hub.ClusterSets)...)
	errs = append(errs, checkObjects("bindings", "ManagedClusterSetBinding", hub.Bindings)...)
	var sets boundSets
	if len(errs) == 0 {
		sets, errs = bindSets(p, hub.ClusterSets, hub.Bindings)
	}
	if len(errs) > 0 || len(cfg.refusals) > 0 {
		return Result{}, refuse(obj, errs, &cfg)
	}
	return s.schedule(p, &cfg, &f, &sets, obj)
}

// refuse joins the problems that leave no Result, in the Placement's
// name: those of the input, then every problem of the spec.
func refuse(obj string, inputErrs []error, cfg *config) error {
	return ifield.About(obj, slices.Concat(inputErrs, cfg.refusals, cfg.problems())...)
}

// checkObjects reports nil and unnamed entries of objs (the field list of
// Hub), then each namespace and name held by two entries, in name order.
func checkObjects[E any, P interface {
	*E
	metav1.Object
}](list, kind string, objs []P) []error {
	var errs []error
	seen := make(map[string]int, len(objs))
	var dups []string
	for i, o := range objs {
		switch {
		case o == nil:
			errs = append(errs, fmt.Errorf("%s[%d]: nil %s: want a %s", list, i, kind, kind))
			continue
		case o.GetName() == "":
			errs = append(errs, fmt.Errorf("%s[%d]: %s with an empty name: want metadata.name", list, i, kind))
			continue
		}
		key := o.GetName()
		if ns := o.GetNamespace(); ns != "" {
			key = ns + "/" + key
		}
		if seen[key]++; seen[key] == 2 {
			dups = append(dups, key)
		}
	}
	slices.Sort(dups)
	for _, key := range dups {
		errs = append(errs, fmt.Errorf("duplicate %s %q: want each once", kind, key))
	}
	return errs
}
