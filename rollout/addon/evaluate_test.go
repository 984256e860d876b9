package addon_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

func clustersOf(addons []addon.Cluster) []string {
	var out []string
	for _, a := range addons {
		out = append(out, a.Status.Cluster)
	}
	return out
}

func statusesOf(addons []addon.Cluster) []rollout.Status {
	var out []rollout.Status
	for _, a := range addons {
		out = append(out, a.Status.Status)
	}
	return out
}

func TestEvaluateSeed(t *testing.T) {
	t.Parallel()
	mcas := readMCAs(t, "managedclusteraddons.yaml")
	// prod, dev, stg: the output is by cluster name whatever the input order.
	shuffled := []*addonv1beta1.ManagedClusterAddOn{mcas[2], mcas[0], mcas[1]}
	before := make([]*addonv1beta1.ManagedClusterAddOn, len(shuffled))
	for i, m := range shuffled {
		before[i] = m.DeepCopy()
	}
	cma := addontest.SeedCMA(t)
	cmaBefore := cma.DeepCopy()

	got, err := addon.Evaluate(cma, addontest.SeedPlacement(), shuffled, lookup(t, proxyConfig(t)))
	require.NoError(t, err)
	assert.Equal(t, []string{"dev-cluster", "prod-cluster", "stg-cluster"}, clustersOf(got))
	assert.Equal(t, []rollout.Status{rollout.Succeeded, rollout.Succeeded, rollout.Succeeded}, statusesOf(got))
	for _, a := range got {
		assert.False(t, a.Custom)
		assert.Equal(t, []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addontest.ProxyReferent(), SpecHash: addontest.OldHash}}, a.Configs)
	}
	assert.Equal(t, before, shuffled, "Evaluate must not modify the add-ons")
	assert.Equal(t, cmaBefore, cma, "Evaluate must not modify the ClusterManagementAddOn")

	upgraded, err := addon.Evaluate(cma, addontest.SeedPlacement(), shuffled, lookup(t, proxyConfig(t, "proxyAgent", "proxyServer")))
	require.NoError(t, err)
	assert.Equal(t, []rollout.Status{rollout.ToApply, rollout.ToApply, rollout.ToApply}, statusesOf(upgraded))
	assert.Equal(t, addontest.NewHash, upgraded[0].Configs[0].SpecHash)

	// Statuses is what Planner.Plan takes.
	assert.Equal(t, []rollout.ClusterStatus{
		{Cluster: "dev-cluster", Status: rollout.ToApply},
		{Cluster: "prod-cluster", Status: rollout.ToApply},
		{Cluster: "stg-cluster", Status: rollout.ToApply},
	}, addon.Statuses(upgraded))
}

func TestEvaluateConfigsAreNotShared(t *testing.T) {
	t.Parallel()
	got, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), readMCAs(t, "managedclusteraddons.yaml"), lookup(t, proxyConfig(t)))
	require.NoError(t, err)
	got[0].Configs[0].SpecHash = "changed by the caller"
	assert.Equal(t, addontest.OldHash, got[1].Configs[0].SpecHash)
}

func TestEvaluateCustomAddon(t *testing.T) {
	t.Parallel()
	mcas := readMCAs(t, "managedclusteraddons.yaml")
	// stg-cluster runs its own ManagedProxyConfiguration.
	mcas[1] = edit(mcas[1], func(m *addonv1beta1.ManagedClusterAddOn) {
		m.Spec.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: addontest.ProxyGR(), ConfigReferent: addonv1beta1.ConfigReferent{Name: "stg-proxy"}}}
	})
	stgCfg := proxyConfig(t)
	stgCfg.SetName("stg-proxy")
	got, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), mcas, lookup(t, proxyConfig(t), stgCfg))
	require.NoError(t, err)
	require.Len(t, got, 3)
	stg := got[2]
	assert.Equal(t, "stg-cluster", stg.Status.Cluster)
	assert.True(t, stg.Custom)
	assert.Equal(t, []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addonv1beta1.ConfigReferent{Name: "stg-proxy"}, SpecHash: addontest.OldHash}}, stg.Configs)
	// Same hash, other name: its status references cluster-proxy, so ToApply.
	assert.Equal(t, rollout.ToApply, stg.Status.Status)
	assert.False(t, got[0].Custom)
	assert.Equal(t, rollout.Succeeded, got[0].Status.Status)
}

func TestEvaluateLooksUpEachConfigOnce(t *testing.T) {
	t.Parallel()
	calls := 0
	inner := lookup(t, proxyConfig(t))
	counting := func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		calls++
		return inner(gr, r)
	}
	mcas := readMCAs(t, "managedclusteraddons.yaml")
	// A custom add-on naming the same config does not look it up again.
	mcas[0] = edit(mcas[0], func(m *addonv1beta1.ManagedClusterAddOn) {
		m.Spec.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: addontest.ProxyGR(), ConfigReferent: addontest.ProxyReferent()}}
	})
	_, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), mcas, counting)
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	mcas := readMCAs(t, "managedclusteraddons.yaml")
	wrongName := edit(mcas[0], func(m *addonv1beta1.ManagedClusterAddOn) { m.Name = "managed-serviceaccount" })
	twin := edit(mcas[0], func(m *addonv1beta1.ManagedClusterAddOn) {})
	brokenStatus := edit(mcas[1], func(m *addonv1beta1.ManagedClusterAddOn) { m.Status.ConfigReferences[0].DesiredConfig = nil })
	unknownCfg := edit(mcas[2], func(m *addonv1beta1.ManagedClusterAddOn) {
		m.Spec.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: addontest.ProxyGR(), ConfigReferent: addonv1beta1.ConfigReferent{Name: "missing"}}}
	})

	tests := []struct {
		name      string
		cma       *addonv1beta1.ClusterManagementAddOn
		placement addonv1beta1.PlacementRef
		mcas      []*addonv1beta1.ManagedClusterAddOn
		specHash  addon.SpecHashFunc
		wantErr   []string
	}{
		{
			name: "every bad add-on is reported", cma: addontest.SeedCMA(t), placement: addontest.SeedPlacement(),
			mcas:     []*addonv1beta1.ManagedClusterAddOn{mcas[0], nil, wrongName, twin, brokenStatus, unknownCfg},
			specHash: lookup(t, proxyConfig(t)),
			wantErr: []string{
				"managedclusteraddons[1]: nil: want an object",
				`managedclusteraddon "dev-cluster/managed-serviceaccount": metadata.name: Invalid value: "managed-serviceaccount": want "cluster-proxy", the name of the ClusterManagementAddOn`,
				`managedclusteraddon "dev-cluster/cluster-proxy": metadata.namespace: Duplicate value: "dev-cluster": want one add-on per cluster (managedclusteraddons[0] is in it too)`,
				`managedclusteraddon "stg-cluster/cluster-proxy": status.configReferences[0].desiredConfig: Required value: the desired`,
				`managedclusteraddon "prod-cluster/cluster-proxy": spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "missing": not found`,
			},
		},
		{
			name: "a default that cannot be hashed", cma: addontest.SeedCMA(t), placement: addontest.SeedPlacement(),
			mcas: mcas, specHash: lookup(t),
			wantErr: []string{`clustermanagementaddon "cluster-proxy": spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": not found`},
		},
		{
			name: "unknown placement", cma: addontest.SeedCMA(t), placement: addonv1beta1.PlacementRef{Namespace: "ns", Name: "p"},
			mcas: mcas, specHash: lookup(t, proxyConfig(t)),
			wantErr: []string{`spec.installStrategy.placements: Not found: "ns/p": want one of the listed placements`},
		},
		{name: "nil ClusterManagementAddOn", mcas: mcas, specHash: addontest.Names(), wantErr: []string{"nil ClusterManagementAddOn"}},
		{name: "nil lookup", cma: addontest.SeedCMA(t), mcas: mcas, wantErr: []string{`evaluate add-ons of clustermanagementaddon "cluster-proxy": nil SpecHashFunc`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := addon.Evaluate(tt.cma, tt.placement, tt.mcas, tt.specHash)
			require.Error(t, err)
			assert.Nil(t, got)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestEvaluateWrapsLookupErrors(t *testing.T) {
	t.Parallel()
	_, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), readMCAs(t, "managedclusteraddons.yaml"), lookup(t))
	assert.True(t, errors.Is(err, errNotFound))
}

func TestEvaluateNoAddons(t *testing.T) {
	t.Parallel()
	got, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), nil, lookup(t, proxyConfig(t)))
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Empty(t, addon.Statuses(got))
}

func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			template := readMCAs(b, "managedclusteraddons.yaml")[0]
			mcas := make([]*addonv1beta1.ManagedClusterAddOn, n)
			for i := range mcas {
				mcas[i] = template.DeepCopy()
				mcas[i].Namespace = fmt.Sprintf("cluster-%06d", n-i)
			}
			cma := addontest.SeedCMA(b)
			specHash := lookup(b, proxyConfig(b, "proxyAgent"))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := addon.Evaluate(cma, addontest.SeedPlacement(), mcas, specHash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCustomAddonCompletes: an add-on with spec.configs of its own that has
// applied them counts as succeeded, so the install progression completes
// (docs/semantics.md §5.3; OCM's pointer comparison never lets it,
// docs/compatibility.md A3).
func TestCustomAddonCompletes(t *testing.T) {
	t.Parallel()
	mcas := readMCAs(t, "managedclusteraddons.yaml")
	custom := func(m *addonv1beta1.ManagedClusterAddOn) {
		m.Spec.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: addontest.ProxyGR(), ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}}
	}
	for i := range mcas {
		mcas[i] = edit(mcas[i], custom)
	}
	got, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), mcas, lookup(t, proxyConfig(t)))
	require.NoError(t, err)
	groups := make([]grouping.Group, 0, len(got))
	for i, a := range got {
		require.True(t, a.Custom)
		require.Equal(t, rollout.Succeeded, a.Status.Status, a.Status.Cluster)
		groups = append(groups, grouping.Group{GroupKey: grouping.GroupKey{Index: int32(i)}, Clusters: []string{a.Status.Cluster}})
	}
	p := addon.Tally(groups, got, rollout.Result{})
	assert.Equal(t, addon.Progress{Selected: 3, Succeeded: 3}, p)
	assert.True(t, p.Completed())
}
