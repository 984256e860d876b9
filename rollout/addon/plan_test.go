package addon_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

func writtenClusters(ws []addon.Write) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Cluster)
	}
	return out
}

// TestPlanAddonSeed: the seed's new config, dev done and soaked: stg is
// given the new configs, prod waits (Configured False), dev is not
// written again.
func TestPlanAddonSeed(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	mcas := []*addonv1beta1.ManagedClusterAddOn{
		addontest.AppliedAddon("dev-cluster", addontest.NewHash, addontest.PlanNow.Add(-10*time.Minute)),
		addontest.AppliedAddon("stg-cluster", addontest.OldHash, addontest.PlanNow.Add(-time.Hour)),
		addontest.AppliedAddon("prod-cluster", addontest.OldHash, addontest.PlanNow.Add(-time.Hour)),
	}
	before := []*addonv1beta1.ManagedClusterAddOn{mcas[0].DeepCopy(), mcas[1].DeepCopy(), mcas[2].DeepCopy()}
	cmaBefore := cma.DeepCopy()
	steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(addontest.PlanNow)}, cma,
		[]addon.PlacementInput{{Placement: addontest.PlacementObject(addontest.SeedPlacement(), intstr.FromString("100%")), Groups: addontest.SeedGroups()}},
		mcas, lookup(t, proxyConfig(t, "proxyAgent", "proxyServer")))
	require.NoError(t, err)
	require.Len(t, steps, 1)
	s := steps[0]
	require.NoError(t, s.Err)
	assert.Equal(t, addontest.SeedPlacement(), s.Ref)
	assert.Equal(t, []string{"stg-cluster"}, addontest.StartingNow(s.Result))
	assert.Equal(t, []string{"prod-cluster", "stg-cluster"}, writtenClusters(s.Writes))

	prod, stg := s.Writes[0], s.Writes[1]
	assert.Equal(t, addontest.OldHash, prod.ConfigReferences[0].DesiredConfig.SpecHash, "prod keeps its configs")
	assert.Equal(t, metav1.ConditionFalse, addontest.Condition(prod.Conditions, "Configured").Status)
	assert.Equal(t, addon.ReasonNotConfigured, addontest.Condition(prod.Conditions, "Configured").Reason)
	assert.Equal(t, addontest.NewHash, stg.ConfigReferences[0].DesiredConfig.SpecHash, "stg gets the new configs")
	assert.Equal(t, addontest.OldHash, stg.ConfigReferences[0].LastAppliedConfig.SpecHash, "stg's agent has not applied them yet")
	assert.Equal(t, metav1.ConditionTrue, addontest.Condition(stg.Conditions, "Configured").Status)
	assert.Equal(t, "Completed", addontest.Condition(stg.Conditions, "Progressing").Reason, "other conditions are kept")

	assert.Equal(t, addon.Progress{Selected: 3, Rolling: 1, Succeeded: 1}, s.Progress)
	c := addontest.Condition(s.Progression.Conditions, "Progressing")
	assert.Equal(t, "selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.", c.Message)
	assert.Equal(t, addontest.PlanNow, c.LastTransitionTime.Time)
	assert.Equal(t, addontest.NewHash, s.Progression.ConfigReferences[0].DesiredConfig.SpecHash)

	assert.Equal(t, before, mcas, "add-ons not modified")
	assert.Equal(t, cmaBefore, cma, "ClusterManagementAddOn not modified")
	stg.ConfigReferences[0].LastAppliedConfig.SpecHash = "x"
	assert.Equal(t, addontest.OldHash, mcas[1].Status.ConfigReferences[0].LastAppliedConfig.SpecHash, "writes share nothing with the add-ons")
}

// TestPlanAddonLastPlacementWins: a cluster that two placements select is
// planned only by the last; the first still plans its other clusters.
func TestPlanAddonLastPlacementWins(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	other := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "canary"}
	ps := cma.Spec.InstallStrategy.Placements[0]
	ps.PlacementRef = other
	ps.RolloutStrategy = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}
	cma.Spec.InstallStrategy.Placements = append(cma.Spec.InstallStrategy.Placements, ps)
	canary := []grouping.Group{{GroupKey: grouping.GroupKey{Index: 0}, Clusters: []string{"prod-cluster", "stg-cluster"}}}
	mcas := []*addonv1beta1.ManagedClusterAddOn{addontest.EmptyAddon("dev-cluster"), addontest.EmptyAddon("stg-cluster"), addontest.EmptyAddon("prod-cluster")}

	steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(addontest.PlanNow)}, cma, []addon.PlacementInput{
		{Placement: addontest.PlacementObject(addontest.SeedPlacement(), intstr.FromString("100%")), Groups: addontest.SeedGroups()},
		{Placement: addontest.PlacementObject(other, intstr.IntOrString{}), Groups: canary},
	}, mcas, lookup(t, proxyConfig(t)))
	require.NoError(t, err)
	require.Len(t, steps, 2)
	assert.Equal(t, []string{"dev-cluster"}, addontest.StartingNow(steps[0].Result), "the seed placement keeps only dev")
	assert.Equal(t, []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}},
	}, steps[0].Groups)
	assert.Equal(t, 1, steps[0].Progress.Selected)
	assert.Equal(t, []string{"prod-cluster", "stg-cluster"}, addontest.StartingNow(steps[1].Result), "the last placement rolls out what it owns, all at once")
	assert.Equal(t, []string{"dev-cluster"}, writtenClusters(steps[0].Writes))
	assert.Equal(t, []string{"prod-cluster", "stg-cluster"}, writtenClusters(steps[1].Writes))
}

// TestPlanAddonRefused: a placement that cannot be planned says why in its
// install progression, keeps its configs, writes nothing, and leaves the
// others to go ahead.
func TestPlanAddonRefused(t *testing.T) {
	t.Parallel()
	prevConfigs := []addonv1beta1.InstallConfigReference{{ConfigGroupResource: addontest.ProxyGR(),
		DesiredConfig:     &addonv1beta1.ConfigSpecHash{ConfigReferent: addontest.ProxyReferent(), SpecHash: addontest.OldHash},
		LastAppliedConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: addontest.ProxyReferent(), SpecHash: addontest.OldHash}}}
	tests := []struct {
		name      string
		edit      func(*addonv1beta1.ClusterManagementAddOn, *addon.PlacementInput, *addon.SpecHashFunc)
		reason    string
		message   string
		fieldPath string
	}{
		{
			name: "invalid rollout strategy",
			edit: func(c *addonv1beta1.ClusterManagementAddOn, _ *addon.PlacementInput, _ *addon.SpecHashFunc) {
				c.Spec.InstallStrategy.Placements[0].RolloutStrategy.ProgressivePerGroup.ProgressDeadline = "10mfoo"
			},
			reason:    addon.ReasonInvalidRolloutStrategy,
			message:   `spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline: Invalid value: "10mfoo"`,
			fieldPath: "spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline",
		},
		{
			name: "missing Placement",
			edit: func(_ *addonv1beta1.ClusterManagementAddOn, in *addon.PlacementInput, _ *addon.SpecHashFunc) {
				in.Placement = nil
			},
			reason:  addon.ReasonPlacementNotFound,
			message: `placement "open-cluster-management/cluster-proxy-placement" (spec.installStrategy.placements[0]) not found`,
		},
		{
			name: "missing config object",
			edit: func(_ *addonv1beta1.ClusterManagementAddOn, _ *addon.PlacementInput, h *addon.SpecHashFunc) {
				*h = table(nil)
			},
			reason:  addon.ReasonConfigurationError,
			message: `managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": not found`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cma := addontest.SeedCMA(t)
			cma.Status.InstallProgressions = []addonv1beta1.InstallProgression{{PlacementRef: addontest.SeedPlacement(), ConfigReferences: prevConfigs}}
			in := addon.PlacementInput{Placement: addontest.PlacementObject(addontest.SeedPlacement(), intstr.FromString("100%")), Groups: addontest.SeedGroups()}
			specHash := lookup(t, proxyConfig(t, "proxyAgent"))
			tt.edit(cma, &in, &specHash)
			mcas := []*addonv1beta1.ManagedClusterAddOn{addontest.EmptyAddon("dev-cluster")}
			steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(addontest.PlanNow)}, cma, []addon.PlacementInput{in}, mcas, specHash)
			require.NoError(t, err)
			s := steps[0]
			require.Error(t, s.Err)
			assert.Empty(t, s.Writes)
			assert.Equal(t, prevConfigs, s.Progression.ConfigReferences, "configs left as they were")
			c := addontest.Condition(s.Progression.Conditions, "Progressing")
			assert.Equal(t, metav1.ConditionFalse, c.Status)
			assert.Equal(t, tt.reason, c.Reason)
			assert.Equal(t, tt.reason, s.Reason)
			assert.Contains(t, c.Message, tt.message)
			assert.NotContains(t, c.Message, "\n")
			assert.Equal(t, addontest.PlanNow, c.LastTransitionTime.Time)
			if tt.fieldPath != "" {
				var fe *field.Error
				require.True(t, errors.As(s.Err, &fe))
				assert.Equal(t, tt.fieldPath, fe.Field)
			}
		})
	}
}

// TestPlanAddonProgressiveWindow: Progressive without maxConcurrency takes
// the Placement's clustersPerDecisionGroup as its window, as OCM's add-on
// manager does.
func TestPlanAddonProgressiveWindow(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	cma.Spec.InstallStrategy.Placements[0].RolloutStrategy = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive}
	groups := []grouping.Group{{GroupKey: grouping.GroupKey{Index: 0}, Clusters: []string{"a", "b", "c", "d"}}}
	for _, tt := range []struct {
		cpg      intstr.IntOrString
		starting []string
	}{
		{intstr.FromInt32(1), []string{"a"}},
		{intstr.FromString("50%"), []string{"a", "b"}},
		{intstr.IntOrString{}, []string{"a", "b", "c", "d"}},
	} {
		steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(addontest.PlanNow)}, cma,
			[]addon.PlacementInput{{Placement: addontest.PlacementObject(addontest.SeedPlacement(), tt.cpg), Groups: groups}}, nil, lookup(t, proxyConfig(t)))
		require.NoError(t, err)
		assert.Equal(t, tt.starting, addontest.StartingNow(steps[0].Result), "clustersPerDecisionGroup %s", tt.cpg.String())
	}
}

func TestPlanAddonArguments(t *testing.T) {
	t.Parallel()
	manual := addontest.SeedCMA(t)
	manual.Spec.InstallStrategy.Type = addonv1beta1.AddonInstallStrategyManual
	unknown := addontest.SeedCMA(t)
	unknown.Spec.InstallStrategy.Type = "Everywhere"
	for name, call := range map[string]func() ([]addon.Step, error){
		"nil cma": func() ([]addon.Step, error) {
			return addon.PlanAddon(rollout.Planner{}, nil, nil, nil, addontest.Names())
		},
		"manual with placements": func() ([]addon.Step, error) {
			return addon.PlanAddon(rollout.Planner{}, manual, make([]addon.PlacementInput, 1), nil, addontest.Names())
		},
		"unknown strategy": func() ([]addon.Step, error) {
			return addon.PlanAddon(rollout.Planner{}, unknown, nil, nil, addontest.Names())
		},
		"length": func() ([]addon.Step, error) {
			return addon.PlanAddon(rollout.Planner{}, addontest.SeedCMA(t), nil, nil, addontest.Names())
		},
		"nil hash": func() ([]addon.Step, error) {
			return addon.PlanAddon(rollout.Planner{}, addontest.SeedCMA(t), make([]addon.PlacementInput, 1), nil, nil)
		},
	} {
		steps, err := call()
		assert.Error(t, err, name)
		assert.Nil(t, steps, name)
	}
}

func TestInstall(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	p := addontest.PlacementObject(addontest.SeedPlacement(), intstr.IntOrString{})
	tests := []struct {
		name           string
		strategy       string
		placements     []addon.PlacementInput
		existing       []string
		create, remove []string
	}{
		{name: "fresh hub", strategy: addonv1beta1.AddonInstallStrategyPlacements,
			placements: []addon.PlacementInput{{Placement: p, Groups: addontest.SeedGroups()}},
			create:     []string{"dev-cluster", "prod-cluster", "stg-cluster"}},
		{name: "a cluster left, another came", strategy: addonv1beta1.AddonInstallStrategyPlacements,
			placements: []addon.PlacementInput{{Placement: p, Groups: addontest.SeedGroups()}},
			existing:   []string{"dev-cluster", "old-cluster", "stg-cluster"},
			create:     []string{"prod-cluster"}, remove: []string{"old-cluster"}},
		{name: "a missing Placement selects nothing", strategy: addonv1beta1.AddonInstallStrategyPlacements,
			placements: []addon.PlacementInput{{Groups: addontest.SeedGroups()}},
			existing:   []string{"dev-cluster"}, remove: []string{"dev-cluster"}},
		{name: "manual", strategy: addonv1beta1.AddonInstallStrategyManual,
			placements: []addon.PlacementInput{{Placement: p, Groups: addontest.SeedGroups()}},
			existing:   []string{"old-cluster"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := cma.DeepCopy()
			c.Spec.InstallStrategy.Type = tt.strategy
			create, remove := addon.Install(c, tt.placements, tt.existing)
			assert.Equal(t, tt.create, create)
			assert.Equal(t, tt.remove, remove)
		})
	}
}

func TestLastPlacementWins(t *testing.T) {
	t.Parallel()
	g := func(i int32, cs ...string) grouping.Group {
		return grouping.Group{GroupKey: grouping.GroupKey{Index: i}, Clusters: cs}
	}
	all := [][]grouping.Group{{g(0, "a", "b"), g(1, "c")}, {g(0, "b")}, nil, {g(0, "c", "d")}}
	got := addon.LastPlacementWins(all)
	assert.Equal(t, [][]grouping.Group{{g(0, "a"), g(1)}, {g(0, "b")}, nil, {g(0, "c", "d")}}, got)
	assert.Equal(t, []string{"a", "b"}, all[0][0].Clusters, "input not modified")
}

// TestPlanAddonManual: a Manual install strategy's add-ons (created by
// hand) are configured all at once with the default configs, as OCM's
// add-on manager's defaults node does; no install progression.
func TestPlanAddonManual(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
	mcas := []*addonv1beta1.ManagedClusterAddOn{
		addontest.EmptyAddon("prod-cluster"), addontest.EmptyAddon("dev-cluster"),
		addontest.AppliedAddon("stg-cluster", addontest.NewHash, addontest.PlanNow.Add(-time.Hour)),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "other-addon"}},
	}
	steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(addontest.PlanNow)}, cma, nil, mcas, lookup(t, proxyConfig(t, "proxyAgent", "proxyServer")))
	require.NoError(t, err)
	require.Len(t, steps, 1)
	s := steps[0]
	require.NoError(t, s.Err)
	assert.Equal(t, -1, s.Index)
	assert.Zero(t, s.Ref)
	assert.Zero(t, s.Progression)
	assert.Equal(t, []grouping.Group{{Clusters: []string{"dev-cluster", "prod-cluster", "stg-cluster"}}}, s.Groups)
	assert.Equal(t, []string{"dev-cluster", "prod-cluster"}, addontest.StartingNow(s.Result), "every add-on not yet configured, at once")
	assert.Equal(t, []string{"dev-cluster", "prod-cluster"}, writtenClusters(s.Writes))
	assert.Equal(t, addontest.NewHash, s.Writes[0].ConfigReferences[0].DesiredConfig.SpecHash)
	assert.Equal(t, addon.Progress{Selected: 3, Rolling: 2, Succeeded: 1}, s.Progress)

	bad, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(addontest.PlanNow)}, cma, nil, mcas, table(nil))
	require.NoError(t, err)
	require.Error(t, bad[0].Err)
	assert.Equal(t, addon.ReasonConfigurationError, bad[0].Reason)
	assert.Empty(t, bad[0].Writes)
}
