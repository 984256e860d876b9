package hubplan_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// controlHub is a hub as a test drives it: the seed's add-on and its
// dev/stg/prod placement (ProgressivePerGroup, 5m soak, 15m deadline), one
// add-on per cluster, an AddOnRollout and its approvals, and a fake clock.
// apply writes what a plan decided, as the controller would; finish plays
// the add-on agents. Every cluster starts on config spec hash "v1",
// applied an hour before addontest.PlanNow, and the config is "v2": a rollout is due.
type controlHub struct {
	t      *testing.T
	clock  *fake.Clock
	cma    *addonv1beta1.ClusterManagementAddOn
	groups []grouping.Group
	hash   string // the config's spec hash now
	mcas   map[string]*addonv1beta1.ManagedClusterAddOn
	ctl    hubplan.Controls
	// planner is what plan plans with: its Rollout's clock and gates are
	// set at each call.
	planner hubplan.Planner
}

// newControlHub is a hub whose AddOnRollout has spec, or none when spec is
// nil.
func newControlHub(t *testing.T, spec *v1alpha1.AddOnRolloutSpec) *controlHub {
	t.Helper()
	h := &controlHub{t: t, clock: fake.New(addontest.PlanNow), cma: addontest.SeedCMA(t), groups: addontest.SeedGroups(), hash: "v2",
		mcas: make(map[string]*addonv1beta1.ManagedClusterAddOn)}
	for _, g := range h.groups {
		for _, c := range g.Clusters {
			h.mcas[c] = addontest.AppliedAddon(c, "v1", addontest.PlanNow.Add(-time.Hour))
		}
	}
	if spec != nil {
		h.ctl.Rollout = &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy", Generation: 1}, Spec: *spec}
	}
	return h
}

// inputs are the add-on, its placements, its add-ons and its spec hashes.
func (h *controlHub) inputs() (*addonv1beta1.ClusterManagementAddOn, []addon.PlacementInput, []*addonv1beta1.ManagedClusterAddOn, addon.SpecHashFunc) {
	clusters := make([]string, 0, len(h.mcas))
	for c := range h.mcas {
		clusters = append(clusters, c)
	}
	slices.Sort(clusters)
	mcas := make([]*addonv1beta1.ManagedClusterAddOn, len(clusters))
	for i, c := range clusters {
		mcas[i] = h.mcas[c]
	}
	hash := h.hash
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) { return hash, nil }
	in := []addon.PlacementInput{{Placement: addontest.PlacementObject(addontest.SeedPlacement(), intstr.FromString("100%")), Groups: h.groups}}
	return h.cma, in, mcas, specHash
}

// plan plans at the clock's time, with the hub's controls.
func (h *controlHub) plan(gates ...rollout.Gate) hubplan.Plan {
	h.t.Helper()
	cma, in, mcas, specHash := h.inputs()
	planner := h.planner
	planner.Rollout = rollout.Planner{Clock: h.clock, Gates: gates}
	p, err := planner.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: h.ctl, SpecHash: specHash})
	require.NoError(h.t, err)
	return p
}

// apply writes the plan: the add-ons' statuses, the AddOnRollout's status
// with the results of the checks run, and the approvals' statuses.
func (h *controlHub) apply(p hubplan.Plan, results ...hubplan.CheckResult) {
	for _, s := range p.Steps {
		for _, w := range s.Writes {
			m := h.mcas[w.Cluster].DeepCopy()
			m.Status.ConfigReferences, m.Status.Conditions = w.ConfigReferences, w.Conditions
			h.receive(m)
			h.mcas[w.Cluster] = m
		}
	}
	h.ctl = p.Record(h.ctl, results)
	for _, as := range p.Approvals {
		i := slices.IndexFunc(h.ctl.Approvals, func(a *v1alpha1.RolloutApproval) bool { return a.Name == as.Name })
		a := h.ctl.Approvals[i].DeepCopy()
		a.Status.Conditions = as.Conditions
		h.ctl.Approvals[i] = a
	}
}

// step moves the clock by d, plans, applies the plan and returns it.
func (h *controlHub) step(d time.Duration, results ...hubplan.CheckResult) hubplan.Plan {
	h.t.Helper()
	h.clock.Step(d)
	p := h.plan()
	h.apply(p, results...)
	return p
}

// receive plays the agent of add-on m given configs it has not applied:
// its Progressing condition says so from now on.
func (h *controlHub) receive(m *addonv1beta1.ManagedClusterAddOn) {
	stale := false
	for _, r := range m.Status.ConfigReferences {
		if r.DesiredConfig != nil && (r.LastAppliedConfig == nil || r.LastAppliedConfig.SpecHash != r.DesiredConfig.SpecHash) {
			stale = true
		}
	}
	if !stale || addontest.Condition(m.Status.Conditions, "Progressing").Reason == "Progressing" {
		return
	}
	meta.SetStatusCondition(&m.Status.Conditions, metav1.Condition{Type: "Progressing", Status: metav1.ConditionTrue, Reason: "Progressing",
		LastTransitionTime: metav1.NewTime(h.clock.Now())})
}

// finish plays the agents of clusters: each applies its desired configs
// and completes now.
func (h *controlHub) finish(clusters ...string) {
	h.t.Helper()
	for _, c := range clusters {
		m := h.mcas[c].DeepCopy()
		for i := range m.Status.ConfigReferences {
			r := &m.Status.ConfigReferences[i]
			r.LastAppliedConfig = r.DesiredConfig.DeepCopy()
		}
		now := metav1.NewTime(h.clock.Now())
		for i := range m.Status.Conditions {
			if m.Status.Conditions[i].Type == "Progressing" {
				m.Status.Conditions[i] = metav1.Condition{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed", LastTransitionTime: now}
			}
		}
		h.mcas[c] = m
	}
}

// approve adds a RolloutApproval of group of the seed placement at
// revision.
func (h *controlHub) approve(name, group, revision string) {
	h.ctl.Approvals = append(slices.Clip(h.ctl.Approvals), approval(name, group, revision))
}

// edit changes the AddOnRollout's spec, as a new generation.
func (h *controlHub) edit(f func(*v1alpha1.AddOnRolloutSpec)) {
	ar := h.ctl.Rollout.DeepCopy()
	f(&ar.Spec)
	ar.Generation++
	h.ctl.Rollout = ar
}

// approval is a RolloutApproval of group of the seed's placement at
// revision.
func approval(name, group, revision string) *v1alpha1.RolloutApproval {
	return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.RolloutApprovalSpec{
		AddOn: "cluster-proxy", Placement: v1alpha1.PlacementRef{Namespace: addontest.SeedPlacement().Namespace, Name: addontest.SeedPlacement().Name},
		Group: group, Revision: revision}}
}

// groupLine renders a group's status as "name Phase WaitsFor", with the
// waits-for left out when empty.
func groupLine(g v1alpha1.GroupStatus) string {
	s := g.Name + " " + g.Phase
	if g.WaitsFor != "" {
		s += " " + g.WaitsFor
	}
	return s
}

// groupLines renders the groups of the plan's first placement.
func groupLines(p hubplan.Plan) []string {
	if len(p.Status.Placements) == 0 {
		return nil
	}
	var out []string
	for _, g := range p.Status.Placements[0].Groups {
		out = append(out, groupLine(g))
	}
	return out
}

// startedBy lists the clusters that start in the plan, over every step.
func startedBy(p hubplan.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, addontest.StartingNow(s.Result)...)
	}
	return out
}

// givenNew lists the clusters whose write gives them the config spec hash
// h as desired, over every step.
func givenNew(p hubplan.Plan, h string) []string {
	var out []string
	for _, s := range p.Steps {
		for _, w := range s.Writes {
			for _, r := range w.ConfigReferences {
				if r.DesiredConfig != nil && r.DesiredConfig.SpecHash == h {
					out = append(out, w.Cluster)
					break
				}
			}
		}
	}
	return out
}

// reasonOf is the reason of the plan's condition typ.
func reasonOf(p hubplan.Plan, typ string) string {
	return addontest.Condition(p.Status.Conditions, typ).Reason
}

// approvedReason is the reason of the Approved condition of the hub's
// approval name.
func (h *controlHub) approvedReason(name string) string {
	for _, a := range h.ctl.Approvals {
		if a.Name == name {
			return addontest.Condition(a.Status.Conditions, hubplan.ConditionApproved).Reason
		}
	}
	return ""
}

// revision is the revision of the seed placement at config spec hash h.
func revision(h string) string {
	return addon.Revision([]addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addontest.ProxyReferent(), SpecHash: h}})
}

// clusterNames lists the clusters' names.
func clusterNames(cs []rollout.ClusterStatus) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Cluster)
	}
	return out
}

// unjoin returns the errors joined in err.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// configSteps are the steps of addon.PlanAddon as Planner.Plan returns
// them without an AddOnRollout or works: config steps, no kind.
func configSteps(steps []addon.Step, err error) []hubplan.Step {
	if err != nil {
		panic(err)
	}
	out := make([]hubplan.Step, len(steps))
	for i, s := range steps {
		out[i] = hubplan.Step{Step: s}
	}
	return out
}
