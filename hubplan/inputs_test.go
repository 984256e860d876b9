package hubplan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// mapHub is a hub held in memory, as ReadInputs reads one; failing makes
// every read fail.
type mapHub struct {
	cma        *addonv1beta1.ClusterManagementAddOn
	placements []*clusterv1beta1.Placement
	decisions  []*clusterv1beta1.PlacementDecision
	addons     []*addonv1beta1.ManagedClusterAddOn
	rollout    *v1alpha1.AddOnRollout
	approvals  []*v1alpha1.RolloutApproval
	works      []*workv1.ManifestWork // nil: not read
	configs    []*unstructured.Unstructured
	failing    error
}

func (h mapHub) ClusterManagementAddOn(name string) (*addonv1beta1.ClusterManagementAddOn, error) {
	if h.cma == nil || h.cma.Name != name {
		return nil, nil
	}
	return h.cma, nil
}

func (h mapHub) Placement(ns, name string) (*clusterv1beta1.Placement, error) {
	for _, p := range h.placements {
		if p.Namespace == ns && p.Name == name {
			return p, h.failing
		}
	}
	return nil, h.failing
}

func (h mapHub) PlacementDecisions(ns, name string) ([]*clusterv1beta1.PlacementDecision, error) {
	var out []*clusterv1beta1.PlacementDecision
	for _, d := range h.decisions {
		if d.Namespace == ns && d.Labels[clusterv1beta1.PlacementLabel] == name {
			out = append(out, d)
		}
	}
	return out, nil
}

func (h mapHub) ManagedClusterAddOns(string) ([]*addonv1beta1.ManagedClusterAddOn, error) {
	return h.addons, nil
}

func (h mapHub) AddOnRollout(string) (*v1alpha1.AddOnRollout, error) { return h.rollout, nil }

func (h mapHub) RolloutApprovals(string) ([]*v1alpha1.RolloutApproval, error) {
	return h.approvals, nil
}

func (h mapHub) ManifestWorks(string) ([]*workv1.ManifestWork, bool, error) {
	return h.works, h.works != nil, nil
}

func (h mapHub) Config(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error) {
	for _, c := range h.configs {
		if c.GetName() == ref.Name {
			return c, nil
		}
	}
	return nil, errors.New(gr.Resource + " " + ref.Name + " not found")
}

// decision is placement ref's decision of group g with clusters.
func decision(ref addonv1beta1.PlacementRef, g grouping.GroupKey, clusters ...string) *clusterv1beta1.PlacementDecision {
	d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name + "-" + g.Name,
		Labels: map[string]string{clusterv1beta1.PlacementLabel: ref.Name, clusterv1beta1.DecisionGroupNameLabel: g.Name,
			clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	for _, c := range clusters {
		d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return d
}

// TestReadInputs: groups come from PlacementDecisions only (a Placement
// with groups in its status alone has none); a missing Placement is a zero
// input; the works are read only when the hub read them; a config the hub
// cannot give fails its placement's plan (ConfigurationError), with the
// hub's reason; a failed read is an error. The images of the configs are
// read through the hub too. Without the add-on, only the controls are
// read, and the plan is the AddOnRollout's status alone.
func TestReadInputs(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	ref := cma.Spec.InstallStrategy.Placements[0].PlacementRef
	p := addontest.PlacementObject(ref, intstr.FromString("100%"))
	withStatus := p.DeepCopy()
	withStatus.Status.DecisionGroups = []clusterv1beta1.DecisionGroupStatus{{DecisionGroupIndex: 0, DecisionGroupName: "dev", ClustersCount: 1}}
	cfg := proxyObject()
	dev := grouping.GroupKey{Name: "dev"}

	in, err := hubplan.ReadInputs(mapHub{cma: cma, placements: []*clusterv1beta1.Placement{p}, decisions: []*clusterv1beta1.PlacementDecision{decision(ref, dev, "dev-cluster")},
		configs: []*unstructured.Unstructured{cfg}}, cma.Name)
	require.NoError(t, err)
	assert.Equal(t, cma.Name, in.AddOn)
	assert.Same(t, cma, in.ClusterManagementAddOn)
	require.Len(t, in.Placements, 1)
	assert.Same(t, p, in.Placements[0].Placement)
	assert.Equal(t, []grouping.Group{{GroupKey: dev, Clusters: []string{"dev-cluster"}}}, in.Placements[0].Groups)
	assert.Nil(t, in.Controls.Works, "works not read")
	want, err := hash.Spec(cfg)
	require.NoError(t, err)
	got, err := in.SpecHash(addontest.ProxyGR(), addontest.ProxyReferent())
	require.NoError(t, err)
	assert.Equal(t, want, got)
	require.NotNil(t, in.Controls.Images)
	assert.Equal(t, "v2", in.Controls.Images(addontest.ProxyGR(), addontest.ProxyReferent()), "the config's image")
	assert.Empty(t, in.Controls.Images(addontest.ProxyGR(), addonv1beta1.ConfigReferent{Name: "missing"}), "a config that cannot be read")

	in, err = hubplan.ReadInputs(mapHub{cma: cma, placements: []*clusterv1beta1.Placement{withStatus}, works: []*workv1.ManifestWork{}}, cma.Name)
	require.NoError(t, err)
	assert.Nil(t, in.Placements[0].Groups, "groups in the Placement's status alone")
	assert.NotNil(t, in.Controls.Works, "works read, none")
	assert.Equal(t, hubplan.DefaultReleaseSettle, in.Controls.ReleaseSettle)
	plan, err := hubplan.Planner{Rollout: rollout.Planner{Clock: fake.New(addontest.PlanNow)}}.Plan(in)
	require.NoError(t, err)
	require.Len(t, plan.Steps, 1)
	assert.Equal(t, addon.ReasonConfigurationError, plan.Steps[0].Reason)
	assert.ErrorContains(t, plan.Steps[0].Err, "managedproxyconfigurations cluster-proxy not found")

	in, err = hubplan.ReadInputs(mapHub{cma: cma}, cma.Name)
	require.NoError(t, err)
	assert.Equal(t, []addon.PlacementInput{{}}, in.Placements, "no Placement")

	_, err = hubplan.ReadInputs(mapHub{cma: cma, failing: errors.New("connection refused")}, cma.Name)
	assert.EqualError(t, err, `placement "open-cluster-management/cluster-proxy-placement": connection refused`)
	_, err = hubplan.ReadInputs(mapHub{}, "")
	assert.EqualError(t, err, `read inputs: add-on name "": want the name of a ClusterManagementAddOn`)

	ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-prxy", Generation: 1}}
	in, err = hubplan.ReadInputs(mapHub{cma: cma, rollout: ar}, "cluster-prxy")
	require.NoError(t, err)
	assert.Nil(t, in.ClusterManagementAddOn, "no add-on of that name")
	assert.Nil(t, in.Placements)
	assert.Same(t, ar, in.Controls.Rollout)
	plan, err = hubplan.Planner{Rollout: rollout.Planner{Clock: fake.New(addontest.PlanNow)}}.Plan(in)
	require.NoError(t, err)
	assert.Empty(t, plan.Steps)
	assert.Equal(t, hubplan.ReasonAddOnNotFound, meta.FindStatusCondition(plan.Status.Conditions, hubplan.ConditionProgressing).Reason)
}

// proxyObject is the seed's config object, by name only.
func proxyObject() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "proxy.open-cluster-management.io/v1alpha1", "kind": "ManagedProxyConfiguration",
		"metadata": map[string]any{"name": "cluster-proxy"}, "spec": map[string]any{"proxyAgent": map[string]any{"image": "v2"}},
	}}
}
