package planreport

import (
	"fmt"
	"time"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/placement"
)

// placed says where a placement's decision groups came from, with what
// scheduling its Placement said.
type placed struct {
	// source says where the groups came from, for Placement.Source.
	source string
	// warnings are the scheduler's and the report's, without the
	// placement's name.
	warnings []string
	// recheck is when the schedule may change on its own (a toleration or
	// an AddOnPlacementScore expires); 0 when it does not.
	recheck time.Duration
}

// placementSource says where the decision groups of an install-strategy
// placement come from: its PlacementDecisions, as the controller takes
// them (hubplan.ReadInputs). A Placement in the hub is also
// scheduled as OCM's scheduler would, for its warnings and recheck time
// only; one the scheduler refuses is an error.
func placementSource(h *Hub, ps addonv1beta1.PlacementStrategy, now time.Time) (placed, error) {
	var out placed
	r := reader{h}
	p, _ := r.Placement(ps.Namespace, ps.Name)
	ds, _ := r.PlacementDecisions(ps.Namespace, ps.Name)
	if p == nil {
		// Not planned (addon.ReasonPlacementNotFound), as the controller
		// plans nothing for it.
		out.source = "nowhere: the Placement is not in the input (include placements and placementdecisions in the kubectl get)"
		return out, nil
	}
	scheduled, everyCluster, err := schedule(h, p, now)
	if err != nil {
		return out, err
	}
	for _, w := range scheduled.Warnings {
		out.warnings = append(out.warnings, w.String())
	}
	out.recheck = scheduled.RecheckAfter
	if len(ds) > 0 {
		out.source = fmt.Sprintf("%d PlacementDecisions", len(ds))
		return out, nil
	}
	if everyCluster {
		out.warnings = append(out.warnings, fmt.Sprintf("no ManagedClusterSet and no ManagedClusterSetBinding in the input, "+
			"so every ManagedCluster was taken as a candidate; OCM selects only the clusters of the sets bound to namespace %q: "+
			"include managedclustersets and managedclustersetbindings in the kubectl get", p.Namespace))
	}
	out.source = "no PlacementDecisions: no groups until the placement controller writes them"
	if len(scheduled.Clusters) > 0 {
		out.warnings = append(out.warnings, fmt.Sprintf("the Placement selects %d clusters but the input has no PlacementDecisions of it: "+
			"the controller rolls out to no group until they exist (include placementdecisions in the kubectl get)", len(scheduled.Clusters)))
	}
	return out, nil
}

// schedule schedules p as OCM's scheduler would, against the whole hub. A
// hub with no ManagedClusterSet and no ManagedClusterSetBinding at all was
// most likely listed without them (a real hub has at least the default
// and global sets): then every cluster is a candidate, and everyCluster is
// true.
func schedule(h *Hub, p *clusterv1beta1.Placement, now time.Time) (res placement.Result, everyCluster bool, err error) {
	s := placement.Scheduler{Clock: clock.At(now)}
	if len(h.ManagedClusterSets) == 0 && len(h.ManagedClusterSetBindings) == 0 {
		res, err = s.Schedule(p, h.Clusters)
		return res, true, err
	}
	res, err = s.ScheduleHub(p, h.schedulerHub())
	return res, false, err
}

// inputs reads the add-on cma's plan inputs from h
// (hubplan.ReadInputs).
func inputs(h *Hub, cma *addonv1beta1.ClusterManagementAddOn) (hubplan.Inputs, error) {
	in, err := hubplan.ReadInputs(reader{h}, cma.Name)
	if err != nil {
		return in, err
	}
	if h.Works == nil && h.WorksPublished {
		in.Controls.Works, in.Controls.ReleaseSettle = hubplan.WorksFromAddOns(cma.Name, in.Addons), hubplan.DefaultReleaseSettle
	}
	if in.Controls.Rollout != nil {
		in.Controls.History, err = hubplan.HistoryOf(cma.Name, h.Revisions)
	}
	return in, err
}
