package planreport

import (
	"fmt"
	"time"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/placement"
)

// placed is where a placement's decision groups come from, with what
// scheduling its Placement said.
type placed struct {
	groups []grouping.Group
	// source says where the groups came from, for Placement.Source.
	source string
	// warnings are the scheduler's, without the placement's name.
	warnings []string
	// recheck is when the schedule may change on its own (a toleration or
	// an AddOnPlacementScore expires); 0 when it does not.
	recheck time.Duration
}

// placementGroups finds the decision groups of an install-strategy
// placement: from its PlacementDecisions when the hub has any, else by
// scheduling its Placement. A Placement in the hub is scheduled either
// way, for its warnings; one the scheduler refuses is an error.
func placementGroups(h *Hub, ps addonv1beta1.PlacementStrategy, now time.Time) (placed, error) {
	var out placed
	p := h.placement(ps.Namespace, ps.Name)
	var scheduled placement.Result
	everyCluster := false
	if p != nil {
		var err error
		if scheduled, everyCluster, err = schedule(h, p, now); err != nil {
			return out, err
		}
		for _, w := range scheduled.Warnings {
			out.warnings = append(out.warnings, w.String())
		}
		out.recheck = scheduled.RecheckAfter
	}
	if ds := h.decisionsOf(ps.Namespace, ps.Name); len(ds) > 0 {
		gs, err := placement.GroupsFromDecisions(ds)
		if err != nil {
			return out, err
		}
		out.groups, out.source = gs, fmt.Sprintf("%d PlacementDecisions", len(ds))
		return out, nil
	}
	if p == nil {
		// Not planned (addon.ReasonPlacementNotFound), as the controller
		// plans nothing for it.
		out.source = "nowhere: neither the Placement nor its PlacementDecisions are in the input (include placements and placementdecisions in the kubectl get)"
		return out, nil
	}
	out.groups = scheduled.Groups
	out.source = fmt.Sprintf("scheduled from the Placement and %d ManagedClusters (no PlacementDecisions in the input)", len(h.Clusters))
	if everyCluster {
		out.warnings = append(out.warnings, fmt.Sprintf("no ManagedClusterSet and no ManagedClusterSetBinding in the input, "+
			"so every ManagedCluster was taken as a candidate; OCM selects only the clusters of the sets bound to namespace %q: "+
			"include managedclustersets and managedclustersetbindings in the kubectl get", p.Namespace))
	}
	return out, nil
}

// schedule schedules p as OCM's scheduler would, against the whole hub. A
// hub with no ManagedClusterSet and no ManagedClusterSetBinding at all was
// most likely listed without them (a real hub has at least the default
// and global sets): then every cluster is a candidate, and everyCluster is
// true.
func schedule(h *Hub, p *clusterv1beta1.Placement, now time.Time) (res placement.Result, everyCluster bool, err error) {
	s := placement.Scheduler{Clock: fake.New(now)}
	if len(h.ManagedClusterSets) == 0 && len(h.ManagedClusterSetBindings) == 0 {
		res, err = s.Schedule(p, h.Clusters)
		return res, true, err
	}
	res, err = s.ScheduleHub(p, h.schedulerHub())
	return res, false, err
}
