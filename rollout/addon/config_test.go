package addon_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// barFooCMA has defaults core/bars "test" and core/foos "test" and two
// placements, as OCM's graph tests do.
func barFooCMA(p1, p2 []addonv1beta1.AddOnConfig) *addonv1beta1.ClusterManagementAddOn {
	return &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "test"},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs: []addonv1beta1.AddOnConfig{
				addOnConfig("core", "foos", "", "test"),
				addOnConfig("core", "bars", "", "test"),
			},
			InstallStrategy: addonv1beta1.InstallStrategy{
				Type: addonv1beta1.AddonInstallStrategyPlacements,
				Placements: []addonv1beta1.PlacementStrategy{
					{PlacementRef: addonv1beta1.PlacementRef{Namespace: "ns", Name: "p1"}, Configs: p1},
					{PlacementRef: addonv1beta1.PlacementRef{Namespace: "ns", Name: "p2"}, Configs: p2},
				},
			},
		},
	}
}

func mcaWith(configs ...addonv1beta1.AddOnConfig) *addonv1beta1.ManagedClusterAddOn {
	return &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "test"},
		Spec:       addonv1beta1.ManagedClusterAddOnSpec{Configs: configs},
	}
}

func TestDesired(t *testing.T) {
	t.Parallel()
	p1 := addonv1beta1.PlacementRef{Namespace: "ns", Name: "p1"}
	tests := []struct {
		name      string
		cma       *addonv1beta1.ClusterManagementAddOn
		placement addonv1beta1.PlacementRef
		mca       *addonv1beta1.ManagedClusterAddOn
		want      []addon.Config
	}{
		{
			name:      "seed: the default ManagedProxyConfiguration through the placement",
			cma:       addontest.SeedCMA(t),
			placement: addontest.SeedPlacement(),
			want:      []addon.Config{cfg("proxy.open-cluster-management.io", "managedproxyconfigurations", "", "cluster-proxy", "h-managedproxyconfigurations-cluster-proxy")},
		},
		{
			name: "seed: no placement (defaults node)",
			cma:  addontest.SeedCMA(t),
			want: []addon.Config{cfg("proxy.open-cluster-management.io", "managedproxyconfigurations", "", "cluster-proxy", "h-managedproxyconfigurations-cluster-proxy")},
		},
		{
			name:      "defaults only, sorted by group then resource",
			cma:       barFooCMA(nil, nil),
			placement: p1,
			want: []addon.Config{
				cfg("core", "bars", "", "test", "h-bars-test"),
				cfg("core", "foos", "", "test", "h-foos-test"),
			},
		},
		{
			name:      "placement overrides one group/resource, keeps the other",
			cma:       barFooCMA([]addonv1beta1.AddOnConfig{addOnConfig("core", "foos", "", "test1")}, nil),
			placement: p1,
			want: []addon.Config{
				cfg("core", "bars", "", "test", "h-bars-test"),
				cfg("core", "foos", "", "test1", "h-foos-test1"),
			},
		},
		{
			name: "placement with several configs of one group/resource keeps them all, in order",
			cma: barFooCMA([]addonv1beta1.AddOnConfig{
				addOnConfig("core", "bars", "", "test2"),
				addOnConfig("core", "bars", "", "test1"),
			}, nil),
			placement: p1,
			want: []addon.Config{
				cfg("core", "bars", "", "test2", "h-bars-test2"),
				cfg("core", "bars", "", "test1", "h-bars-test1"),
				cfg("core", "foos", "", "test", "h-foos-test"),
			},
		},
		{
			name: "a repeated namespace/name is kept once",
			cma: barFooCMA([]addonv1beta1.AddOnConfig{
				addOnConfig("core", "bars", "", "test1"),
				addOnConfig("core", "bars", "", "test1"),
			}, nil),
			placement: p1,
			want: []addon.Config{
				cfg("core", "bars", "", "test1", "h-bars-test1"),
				cfg("core", "foos", "", "test", "h-foos-test"),
			},
		},
		{
			name:      "same name in two namespaces are two configs",
			cma:       barFooCMA([]addonv1beta1.AddOnConfig{addOnConfig("core", "bars", "a", "x"), addOnConfig("core", "bars", "b", "x")}, nil),
			placement: p1,
			want: []addon.Config{
				cfg("core", "bars", "a", "x", "h-bars-x"),
				cfg("core", "bars", "b", "x", "h-bars-x"),
				cfg("core", "foos", "", "test", "h-foos-test"),
			},
		},
		{
			name:      "another placement's configs do not apply",
			cma:       barFooCMA(nil, []addonv1beta1.AddOnConfig{addOnConfig("core", "bars", "", "test2")}),
			placement: p1,
			want: []addon.Config{
				cfg("core", "bars", "", "test", "h-bars-test"),
				cfg("core", "foos", "", "test", "h-foos-test"),
			},
		},
		{
			name:      "the add-on's spec.configs override the placement's",
			cma:       barFooCMA([]addonv1beta1.AddOnConfig{addOnConfig("core", "foos", "", "test1"), addOnConfig("core", "bars", "", "test1")}, nil),
			placement: p1,
			mca:       mcaWith(addOnConfig("core", "bars", "", "mine")),
			want: []addon.Config{
				cfg("core", "bars", "", "mine", "h-bars-mine"),
				cfg("core", "foos", "", "test1", "h-foos-test1"),
			},
		},
		{
			name:      "the add-on's spec.configs override the defaults without a placement",
			cma:       barFooCMA(nil, nil),
			mca:       mcaWith(addOnConfig("core", "foos", "ns", "mine")),
			placement: addonv1beta1.PlacementRef{},
			want: []addon.Config{
				cfg("core", "bars", "", "test", "h-bars-test"),
				cfg("core", "foos", "ns", "mine", "h-foos-mine"),
			},
		},
		{
			name:      "the add-on may add a group/resource that has no default",
			cma:       barFooCMA(nil, nil),
			placement: p1,
			mca:       mcaWith(addOnConfig("addon.open-cluster-management.io", "addondeploymentconfigs", "ns", "deploy")),
			want: []addon.Config{
				cfg("addon.open-cluster-management.io", "addondeploymentconfigs", "ns", "deploy", "h-addondeploymentconfigs-deploy"),
				cfg("core", "bars", "", "test", "h-bars-test"),
				cfg("core", "foos", "", "test", "h-foos-test"),
			},
		},
		{
			name:      "an add-on without spec.configs takes the placement's",
			cma:       barFooCMA([]addonv1beta1.AddOnConfig{addOnConfig("core", "foos", "", "test1")}, nil),
			placement: p1,
			mca:       mcaWith(),
			want: []addon.Config{
				cfg("core", "bars", "", "test", "h-bars-test"),
				cfg("core", "foos", "", "test1", "h-foos-test1"),
			},
		},
		{
			name: "a default without a name (supported, no default) gives nothing",
			cma: func() *addonv1beta1.ClusterManagementAddOn {
				c := barFooCMA(nil, nil)
				c.Spec.DefaultConfigs[0].Name = ""
				c.Spec.DefaultConfigs[1].Name = addonv1beta1.ReservedNoDefaultConfigName
				return c
			}(),
			placement: p1,
			want:      []addon.Config{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmaBefore := tt.cma.DeepCopy()
			mcaBefore := tt.mca.DeepCopy()
			got, err := addon.PlacementConfigs(tt.cma, tt.placement, addontest.Names())
			if tt.mca != nil {
				got, err = addon.Desired(tt.cma, tt.placement, tt.mca, addontest.Names())
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, cmaBefore, tt.cma, "Desired must not modify the ClusterManagementAddOn")
			assert.Equal(t, mcaBefore, tt.mca, "Desired must not modify the ManagedClusterAddOn")
		})
	}
}

func TestDesiredHashesFromLookup(t *testing.T) {
	t.Parallel()
	got, err := addon.PlacementConfigs(addontest.SeedCMA(t), addontest.SeedPlacement(), lookup(t, proxyConfig(t)))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, addontest.OldHash, got[0].SpecHash)
	assert.Equal(t, `managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy"`, got[0].String())

	got, err = addon.PlacementConfigs(addontest.SeedCMA(t), addontest.SeedPlacement(), lookup(t, proxyConfig(t, "proxyAgent", "proxyServer")))
	require.NoError(t, err)
	assert.Equal(t, addontest.NewHash, got[0].SpecHash)
}

func TestDesiredErrors(t *testing.T) {
	t.Parallel()
	manual := addontest.SeedCMA(t)
	manual.Spec.InstallStrategy.Type = addonv1beta1.AddonInstallStrategyManual
	unset := addontest.SeedCMA(t)
	unset.Spec.InstallStrategy.Type = ""
	dupDefault := addontest.SeedCMA(t)
	dupDefault.Spec.DefaultConfigs = append(dupDefault.Spec.DefaultConfigs, dupDefault.Spec.DefaultConfigs[0])
	dupPlacement := addontest.SeedCMA(t)
	dupPlacement.Spec.InstallStrategy.Placements = append(dupPlacement.Spec.InstallStrategy.Placements, dupPlacement.Spec.InstallStrategy.Placements[0])
	none := addontest.SeedCMA(t)
	none.Spec.InstallStrategy.Placements = nil

	tests := []struct {
		name      string
		cma       *addonv1beta1.ClusterManagementAddOn
		placement addonv1beta1.PlacementRef
		specHash  addon.SpecHashFunc
		wantErr   string
		field     bool
		notFound  bool
	}{
		{
			name: "unknown placement", cma: addontest.SeedCMA(t),
			placement: addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "other"},
			specHash:  addontest.Names(),
			wantErr:   `clustermanagementaddon "cluster-proxy": spec.installStrategy.placements: Not found: "open-cluster-management/other": want one of the listed placements: "open-cluster-management/cluster-proxy-placement"`,
			field:     true,
		},
		{
			name: "no placement listed", cma: none, placement: addontest.SeedPlacement(), specHash: addontest.Names(),
			wantErr: `spec.installStrategy.placements: Not found: "open-cluster-management/cluster-proxy-placement": want a placement listed there (none is)`,
			field:   true,
		},
		{
			name: "placement under a Manual strategy", cma: manual, placement: addontest.SeedPlacement(), specHash: addontest.Names(),
			wantErr: `clustermanagementaddon "cluster-proxy": spec.installStrategy.type: Invalid value: "Manual": want "Placements" to roll out by placement "open-cluster-management/cluster-proxy-placement"`,
			field:   true,
		},
		{
			name: "placement under an unset strategy", cma: unset, placement: addontest.SeedPlacement(), specHash: addontest.Names(),
			wantErr: `spec.installStrategy.type: Invalid value: "": want "Placements"`,
			field:   true,
		},
		{
			name: "default listed twice", cma: dupDefault, placement: addontest.SeedPlacement(), specHash: addontest.Names(),
			wantErr: `clustermanagementaddon "cluster-proxy": spec.defaultConfigs[1]: Duplicate value: "managedproxyconfigurations.proxy.open-cluster-management.io": want one entry per group and resource (spec.defaultConfigs[0] has it)`,
			field:   true,
		},
		{
			name: "placement listed twice", cma: dupPlacement, placement: addontest.SeedPlacement(), specHash: addontest.Names(),
			wantErr: `spec.installStrategy.placements[1]: Duplicate value: "open-cluster-management/cluster-proxy-placement": want each placement listed once (spec.installStrategy.placements[0] has it)`,
			field:   true,
		},
		{
			name: "lookup error names the config", cma: addontest.SeedCMA(t), placement: addontest.SeedPlacement(), specHash: lookup(t),
			wantErr:  `clustermanagementaddon "cluster-proxy": spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": not found`,
			notFound: true,
		},
		{
			name: "nil ClusterManagementAddOn", placement: addontest.SeedPlacement(), specHash: addontest.Names(),
			wantErr: "nil ClusterManagementAddOn: want an object",
		},
		{
			name: "nil lookup", cma: addontest.SeedCMA(t), placement: addontest.SeedPlacement(),
			wantErr: "nil SpecHashFunc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := addon.PlacementConfigs(tt.cma, tt.placement, tt.specHash)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Contains(t, err.Error(), tt.wantErr)
			var fe *field.Error
			assert.Equal(t, tt.field, errors.As(err, &fe), "a *field.Error")
			assert.Equal(t, tt.notFound, errors.Is(err, errNotFound), "wraps the lookup error")
		})
	}
}

// TestDesiredNeedsAnAddon: Desired without an add-on is an error that
// names PlacementConfigs, which gives a placement's configs.
func TestDesiredNeedsAnAddon(t *testing.T) {
	t.Parallel()
	got, err := addon.Desired(addontest.SeedCMA(t), addontest.SeedPlacement(), nil, lookup(t, proxyConfig(t)))
	require.Error(t, err)
	assert.Nil(t, got)
	assert.Contains(t, err.Error(), "nil ManagedClusterAddOn")
	assert.Contains(t, err.Error(), "PlacementConfigs")
}

func TestDesiredReportsEveryLookupError(t *testing.T) {
	t.Parallel()
	_, err := addon.PlacementConfigs(barFooCMA(nil, nil), addonv1beta1.PlacementRef{Namespace: "ns", Name: "p1"}, table(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `spec hash of bars.core "test": not found`)
	assert.Contains(t, err.Error(), `spec hash of foos.core "test": not found`)
}

func TestConfigString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `configmaps "ns/c"`, cfg("", "configmaps", "ns", "c", "").String())
	assert.Equal(t, `addondeploymentconfigs.addon.open-cluster-management.io "ns/deploy"`,
		cfg("addon.open-cluster-management.io", "addondeploymentconfigs", "ns", "deploy", "").String())
}
