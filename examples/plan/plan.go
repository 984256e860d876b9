package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// report is what plan prints, in the shape of its JSON output.
type report struct {
	Addon        string            `json:"addon"`
	Now          time.Time         `json:"now"`
	Placements   []placementReport `json:"placements"`
	Next         []string          `json:"next"`
	TimedOut     []string          `json:"timedOut"`
	Removed      []string          `json:"removed"`
	Breach       bool              `json:"breach"`
	RecheckAfter float64           `json:"recheckAfter"` // seconds
	Warnings     []string          `json:"warnings"`
}

type placementReport struct {
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	Strategy  string        `json:"strategy"`
	Source    string        `json:"source"` // where the groups came from
	Groups    []groupReport `json:"groups"`
	Next      []string      `json:"next"`
	Progress  string        `json:"progress"` // the CMA's install progression condition message
}

type groupReport struct {
	Index    int32    `json:"index"`
	Name     string   `json:"name"`
	Clusters []string `json:"clusters"`
	Phase    string   `json:"phase"`
	Reason   string   `json:"reason"`
}

// planAddon plans every install-strategy placement of the add-on named
// name (or the only one) at now.
func planAddon(h *hub, name string, now time.Time, gates []rollout.Gate) (*report, error) {
	cma, err := pickAddon(h, name)
	if err != nil {
		return nil, err
	}
	if len(cma.Spec.InstallStrategy.Placements) == 0 {
		return nil, fmt.Errorf("clustermanagementaddon %q: spec.installStrategy has no placements: want type Placements with at least one placement", cma.Name)
	}
	rep := &report{Addon: cma.Name, Now: now, Next: []string{}, TimedOut: []string{}, Removed: []string{}, Warnings: []string{}}
	var recheck time.Duration
	for i, ps := range cma.Spec.InstallStrategy.Placements {
		pr, res, warnings, err := planPlacement(h, cma, i, ps, now, gates)
		if err != nil {
			return nil, err
		}
		rep.Placements = append(rep.Placements, pr)
		rep.Next = append(rep.Next, pr.Next...)
		for _, c := range res.TimedOut {
			rep.TimedOut = append(rep.TimedOut, c.Cluster)
		}
		for _, c := range res.Removed {
			rep.Removed = append(rep.Removed, c.Cluster)
		}
		rep.Breach = rep.Breach || res.MaxFailureBreach
		if d := res.RecheckAfter; d > 0 && (recheck == 0 || d < recheck) {
			recheck = d
		}
		rep.Warnings = append(rep.Warnings, warnings...)
	}
	rep.RecheckAfter = recheck.Seconds()
	return rep, nil
}

func pickAddon(h *hub, name string) (*addonv1beta1.ClusterManagementAddOn, error) {
	var names []string
	for _, c := range h.cmas {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	switch {
	case name != "":
		return nil, fmt.Errorf("clustermanagementaddon %q is not in the input (found %s)", name, quoteList(names))
	case len(h.cmas) == 0:
		return nil, errors.New("no ClusterManagementAddOn in the input: include clustermanagementaddons in the kubectl get")
	case len(h.cmas) > 1:
		return nil, fmt.Errorf("%d ClusterManagementAddOns in the input (%s): choose one with -addon", len(h.cmas), quoteList(names))
	}
	return h.cmas[0], nil
}

// planPlacement plans one install-strategy placement.
func planPlacement(h *hub, cma *addonv1beta1.ClusterManagementAddOn, i int, ps addonv1beta1.PlacementStrategy, now time.Time, gates []rollout.Gate) (placementReport, rollout.Result, []string, error) {
	ref := fmt.Sprintf("placement %q (clustermanagementaddon %q spec.installStrategy.placements[%d])", ps.Namespace+"/"+ps.Name, cma.Name, i)
	pr := placementReport{Namespace: ps.Namespace, Name: ps.Name, Strategy: string(ps.RolloutStrategy.Type), Next: []string{}}
	if pr.Strategy == "" {
		pr.Strategy = "All"
	}
	var warnings []string
	warn := func(msg string) { warnings = append(warnings, ps.Namespace+"/"+ps.Name+": "+msg) }

	p := h.placement(ps.Namespace, ps.Name)
	var scheduled *placement.Result
	if p != nil {
		res, err := placement.Scheduler{Clock: fake.New(now)}.Schedule(p, h.clusters)
		if err != nil {
			return pr, rollout.Result{}, nil, fmt.Errorf("%s: %w", ref, err)
		}
		scheduled = &res
		for _, w := range res.Warnings {
			warn(w.String())
		}
	}
	var groups []grouping.Group
	if ds := h.decisionsOf(ps.Namespace, ps.Name); len(ds) > 0 {
		gs, err := placement.GroupsFromDecisions(ds)
		if err != nil {
			return pr, rollout.Result{}, nil, fmt.Errorf("%s: %w", ref, err)
		}
		groups = gs
		pr.Source = fmt.Sprintf("%d PlacementDecisions", len(ds))
	} else if scheduled != nil {
		groups = scheduled.Groups
		pr.Source = fmt.Sprintf("scheduled from the Placement and %d ManagedClusters (no PlacementDecisions in the input)", len(h.clusters))
	} else {
		return pr, rollout.Result{}, nil, fmt.Errorf("%s: neither the Placement nor its PlacementDecisions are in the input: include placements and placementdecisions in the kubectl get", ref)
	}

	addons, err := addon.Evaluate(cma, ps.PlacementRef, h.addonsOn(cma.Name, groups), h.specHash(cma))
	if err != nil {
		return pr, rollout.Result{}, nil, fmt.Errorf("%s: %w", ref, err)
	}
	planner := rollout.Planner{Clock: fake.New(now), Gates: gates}
	if p != nil && ps.RolloutStrategy.Type == "Progressive" {
		// OCM's add-on manager uses clustersPerDecisionGroup as the window
		// when maxConcurrency is unset.
		cpg := p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup
		if cpg != (intstr.IntOrString{}) {
			planner.DefaultConcurrency = &cpg
		}
	}
	res, err := planner.Plan(ps.RolloutStrategy, groups, addon.Statuses(addons))
	if err != nil {
		return pr, rollout.Result{}, nil, fmt.Errorf("%s: rolloutStrategy: %w", ref, err)
	}
	for _, w := range res.Warnings {
		warn(w)
	}
	for gi, g := range groups {
		gp := res.Groups[gi]
		pr.Groups = append(pr.Groups, groupReport{Index: g.Index, Name: g.Name, Clusters: append([]string{}, g.Clusters...),
			Phase: gp.Phase.String(), Reason: gp.Reason})
	}
	for _, c := range res.ToRollout {
		pr.Next = append(pr.Next, c.Cluster)
	}
	pr.Progress = addon.Tally(groups, addons, res).Condition().Message
	return pr, res, warnings, nil
}

func (h *hub) placement(ns, name string) *clusterv1beta1.Placement {
	for _, p := range h.placements {
		if p.Namespace == ns && p.Name == name {
			return p
		}
	}
	return nil
}

// decisionsOf returns the PlacementDecisions of placement ns/name, found as
// OCM finds them: by the placement label, in the placement's namespace.
func (h *hub) decisionsOf(ns, name string) []*clusterv1beta1.PlacementDecision {
	var ds []*clusterv1beta1.PlacementDecision
	for _, d := range h.decisions {
		if d.Namespace == ns && d.Labels[clusterv1beta1.PlacementLabel] == name {
			ds = append(ds, d)
		}
	}
	return ds
}

// addonsOn returns the ManagedClusterAddOns named name on the clusters of
// groups (an add-on lives in its cluster's namespace).
func (h *hub) addonsOn(name string, groups []grouping.Group) []*addonv1beta1.ManagedClusterAddOn {
	in := map[string]bool{}
	for _, g := range groups {
		for _, c := range g.Clusters {
			in[c] = true
		}
	}
	var out []*addonv1beta1.ManagedClusterAddOn
	for _, m := range h.mcas {
		if m.Name == name && in[m.Namespace] {
			out = append(out, m)
		}
	}
	return out
}

// specHash finds a config's spec hash: the hash of the config object when
// the input holds it, else the desired spec hash OCM's add-on manager
// recorded in the ClusterManagementAddOn's status.
func (h *hub) specHash(cma *addonv1beta1.ClusterManagementAddOn) addon.SpecHashFunc {
	return func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (string, error) {
		for _, o := range h.others {
			gvk := o.GroupVersionKind()
			if gvk.Group == gr.Group && o.GetName() == ref.Name && o.GetNamespace() == ref.Namespace && isResourceOf(gr.Resource, gvk) {
				return hash.Spec(o)
			}
		}
		for _, ip := range cma.Status.InstallProgressions {
			for _, c := range ip.ConfigReferences {
				if c.ConfigGroupResource == gr && c.DesiredConfig != nil && c.DesiredConfig.ConfigReferent == ref {
					return c.DesiredConfig.SpecHash, nil
				}
			}
		}
		for _, c := range cma.Status.DefaultConfigReferences {
			if c.ConfigGroupResource == gr && c.DesiredConfig != nil && c.DesiredConfig.ConfigReferent == ref {
				return c.DesiredConfig.SpecHash, nil
			}
		}
		return "", fmt.Errorf("no spec hash: the input holds neither the config object nor a desiredConfig for it in clustermanagementaddon %q status", cma.Name)
	}
}

// isResourceOf tells whether resource is the plural of kind, as the API
// server names resources (managedproxyconfigurations for
// ManagedProxyConfiguration).
func isResourceOf(resource string, gvk schema.GroupVersionKind) bool {
	k := strings.ToLower(gvk.Kind)
	return resource == k+"s" || resource == k+"es" || (strings.HasSuffix(k, "y") && resource == k[:len(k)-1]+"ies")
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	sort.Strings(q)
	return strings.Join(q, ", ")
}
