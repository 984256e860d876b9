package planreport

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// New plans, at now and held back by gates, every install-strategy
// placement of the ClusterManagementAddOn named name, or of the hub's only
// one when name is empty. It fails when the add-on is not in the hub (or,
// with name empty, the hub has none or several), when a placement is found
// neither as a Placement nor as PlacementDecisions, and on objects the
// planner refuses. h is not modified.
//
// The plan is hubplan.Planner.Plan's, the call the controller makes: under
// the gates of the hub's AddOnRollout named after the add-on, if there is
// one (its pause, approvals, windows and verifications, with the results
// its status records), after the gates given here. An invalid
// AddOnRollout is no error: the add-on is held, as the controller holds
// it, and Report.Rollout.Invalid says why. Without an AddOnRollout the
// plan is addon.PlanAddon's, and the report has no Rollout. The inputs
// are read as the controller reads them (hubplan.ReadInputs): a
// placement's groups from its PlacementDecisions only, and a config that
// is not in h fails its placements' plans. An add-on whose spec names no
// config while its status, or its add-ons', names some is refused: the
// input cannot see its configs, and a plan from the empty set would be
// wrong.
func New(h *Hub, name string, now time.Time, gates []rollout.Gate) (*Report, error) {
	h = h.sorted()
	cma, err := pickAddon(h, name)
	if err != nil {
		return nil, err
	}
	if len(cma.Spec.InstallStrategy.Placements) == 0 {
		return nil, fmt.Errorf("clustermanagementaddon %q: spec.installStrategy has no placements: want type Placements with at least one placement", cma.Name)
	}
	rep := &Report{Addon: cma.Name, Now: now, Start: []string{}, InFlight: []InFlight{}, Next: []string{},
		TimedOut: []string{}, Removed: []string{}, Warnings: []string{}}
	found := make([]placed, len(cma.Spec.InstallStrategy.Placements))
	for i, ps := range cma.Spec.InstallStrategy.Placements {
		if found[i], err = placementSource(h, ps, now); err != nil {
			return nil, fmt.Errorf("placement %q (clustermanagementaddon %q spec.installStrategy.placements[%d]): %w", ps.Namespace+"/"+ps.Name, cma.Name, i, err)
		}
	}
	in, err := inputs(h, cma)
	if err != nil {
		return nil, err
	}
	if err := configsVisible(cma, in.Addons); err != nil {
		return nil, err
	}
	ctl := in.Controls
	p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: clock.At(now), Gates: gates}, ValidateQuery: h.ValidateQuery}.Plan(in)
	if err != nil {
		return nil, err
	}
	recheck := p.RecheckAfter
	for i, s := range p.Steps {
		ps := cma.Spec.InstallStrategy.Placements[i]
		pr := placementReport(ps, found[i], s)
		if ctl.Rollout != nil {
			pr = withStatus(pr, p.Status.Placements[i])
		}
		rep.add(ps, pr, s, found[i])
		recheck = rollout.Sooner(recheck, rollout.Sooner(s.Result.RecheckAfter, found[i].recheck))
	}
	rep.RecheckAfter = recheck.Seconds()
	if ctl.Rollout != nil {
		rep.Rollout = rolloutReport(ctl.Rollout, p, h.RolloutApprovals, now)
	}
	return rep, nil
}

// add adds placement ps's report pr, of step s, to the totals of r: the
// clusters to start, in flight, timed out and removed, the breach, and
// the warnings, each named after the placement.
func (r *Report) add(ps addonv1beta1.PlacementStrategy, pr Placement, s hubplan.Step, found placed) {
	r.Placements = append(r.Placements, pr)
	r.Start = append(r.Start, pr.Start...)
	r.InFlight = append(r.InFlight, pr.InFlight...)
	r.Next = append(r.Next, pr.Next...)
	for _, c := range s.Result.TimedOut {
		r.TimedOut = append(r.TimedOut, c.Cluster)
	}
	for _, c := range s.Result.Removed {
		r.Removed = append(r.Removed, c.Cluster)
	}
	r.Breach = r.Breach || s.Result.MaxFailureBreach
	warnings := found.warnings
	for _, w := range s.Result.Warnings {
		warnings = append(warnings, w.String())
	}
	for _, w := range warnings {
		r.Warnings = append(r.Warnings, ps.Namespace+"/"+ps.Name+": "+w)
	}
}

// pickAddon returns the add-on named name, or the only one when name is
// empty.
func pickAddon(h *Hub, name string) (*addonv1beta1.ClusterManagementAddOn, error) {
	var names []string
	for _, c := range h.ClusterManagementAddOns {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	switch {
	case name != "":
		return nil, fmt.Errorf("clustermanagementaddon %q is not in the input (found %s)", name, quoteList(names))
	case len(h.ClusterManagementAddOns) == 0:
		return nil, errors.New("no ClusterManagementAddOn in the input: include clustermanagementaddons in the kubectl get")
	case len(h.ClusterManagementAddOns) > 1:
		return nil, fmt.Errorf("%d ClusterManagementAddOns in the input (%s): choose one with -addon", len(h.ClusterManagementAddOns), quoteList(names))
	}
	return h.ClusterManagementAddOns[0], nil
}

// placementReport is the report of one placement's groups and clusters,
// from where its groups came from and its step.
func placementReport(ps addonv1beta1.PlacementStrategy, found placed, s hubplan.Step) Placement {
	pr := Placement{Namespace: ps.Namespace, Name: ps.Name, Strategy: string(ps.RolloutStrategy.Type), Source: found.source,
		Start: []string{}, InFlight: []InFlight{}, Next: []string{}}
	if pr.Strategy == "" {
		pr.Strategy = "All"
	}
	if c := meta.FindStatusCondition(s.Progression.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing); c != nil {
		pr.Progress = c.Message
		if s.Err != nil {
			pr.NotPlanned = &NotPlanned{Reason: c.Reason, Message: c.Message}
		}
	}
	for gi, g := range s.Groups {
		out := Group{Index: g.Index, Name: g.Name, Clusters: append([]string{}, g.Clusters...), Phase: "NotPlanned", Reason: "not planned"}
		if s.Err == nil {
			gp := s.Result.Groups[gi]
			out.Phase, out.Reason, out.Wait = gp.Phase.String(), gp.Reason, waitOf(gp.Wait)
		}
		pr.Groups = append(pr.Groups, out)
	}
	for _, c := range s.Result.ToRollout {
		pr.Next = append(pr.Next, c.Cluster)
		if c.Status == rollout.ToApply {
			pr.Start = append(pr.Start, c.Cluster)
			continue
		}
		pr.InFlight = append(pr.InFlight, InFlight{Cluster: c.Cluster, Status: c.Status.String(), Until: timeOrNil(c.RecheckTime)})
	}
	return pr
}

// waitOf is w in the report's shape; nil when the group waits for nothing.
func waitOf(w rollout.Wait) *Wait {
	if w.Kind == rollout.WaitNone {
		return nil
	}
	out := &Wait{Kind: w.Kind.String(), Gates: w.Gates, Until: timeOrNil(w.Until), RolloutFailures: w.RolloutFailures, Window: w.Window}
	switch w.Kind {
	case rollout.WaitGroup, rollout.WaitMandatory, rollout.WaitCluster:
		out.Group = &GroupRef{Index: w.Group.Index, Name: w.Group.Name}
	}
	if c := w.Cluster; c.Name != "" {
		out.Cluster = &ClusterRef{Cluster: c.Name, Status: c.Status.String(), Until: timeOrNil(c.Until), Others: c.Others}
	}
	return out
}

// timeOrNil is a pointer to t, or nil when t is zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// quoteList shows names quoted, sorted and comma-separated, or none.
func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := quoted(names)
	sort.Strings(q)
	return strings.Join(q, ", ")
}
