package addon_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Group/resources in OCM's order (group, then resource): by resource alone
// configmaps would come after addondeploymentconfigs.
var (
	configMapGR = addonv1beta1.ConfigGroupResource{Group: "", Resource: "configmaps"}
	deployGR    = addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}
)

// specHash returns a config spec hash, nil for an empty hash.
func specHash(namespace, name, h string) *addonv1beta1.ConfigSpecHash {
	if h == "" {
		return nil
	}
	return &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Namespace: namespace, Name: name}, SpecHash: h}
}

// configRef returns a status.configReferences entry with the given desired
// and last-applied spec hashes ("" for none).
func configRef(gr addonv1beta1.ConfigGroupResource, namespace, name, desired, applied string, generation int64) addonv1beta1.ConfigReference {
	return addonv1beta1.ConfigReference{
		ConfigGroupResource:    gr,
		LastObservedGeneration: generation,
		DesiredConfig:          specHash(namespace, name, desired),
		LastAppliedConfig:      specHash(namespace, name, applied),
	}
}

func config(gr addonv1beta1.ConfigGroupResource, namespace, name, h string) addon.Config {
	return addon.Config{GroupResource: gr, Referent: addonv1beta1.ConfigReferent{Namespace: namespace, Name: name}, SpecHash: h}
}

func cloneConfigRefs(refs []addonv1beta1.ConfigReference) []addonv1beta1.ConfigReference {
	if refs == nil {
		return nil
	}
	out := make([]addonv1beta1.ConfigReference, len(refs))
	for i := range refs {
		refs[i].DeepCopyInto(&out[i])
	}
	return out
}

func TestConfigReferences(t *testing.T) {
	t.Parallel()
	seedApplied := configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash, addontest.OldHash, 1)
	tests := []struct {
		name    string
		current []addonv1beta1.ConfigReference
		desired []addon.Config
		want    []addonv1beta1.ConfigReference
		// repeats: desired lists a config twice, which ClusterStatus
		// counts twice (Desired never does this).
		repeats bool
	}{
		{
			name:    "a new add-on: the desired configs, nothing applied yet",
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, "", 0)},
		},
		{
			name:    "seed upgrade: the new spec hash; lastAppliedConfig and generation kept",
			current: []addonv1beta1.ConfigReference{seedApplied},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, addontest.OldHash, 1)},
		},
		{
			name:    "revert while applying: the old hash again, lastAppliedConfig kept",
			current: []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, addontest.OldHash, 2)},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash, addontest.OldHash, 2)},
		},
		{
			name:    "a config no longer desired is dropped, its replacement appended",
			current: []addonv1beta1.ConfigReference{seedApplied},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy-canary", addontest.NewHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy-canary", addontest.NewHash, "", 0)},
		},
		{
			name:    "the namespace is part of the config's name",
			current: []addonv1beta1.ConfigReference{configRef(deployGR, "ns1", "deploy", "h1", "h1", 3)},
			desired: []addon.Config{config(deployGR, "ns2", "deploy", "h1")},
			want:    []addonv1beta1.ConfigReference{configRef(deployGR, "ns2", "deploy", "h1", "", 0)},
		},
		{
			name:    "so is the group/resource",
			current: []addonv1beta1.ConfigReference{configRef(deployGR, "", "cluster-proxy", addontest.OldHash, addontest.OldHash, 1)},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash, "", 0)},
		},
		{
			name: "an entry without desiredConfig is dropped",
			current: []addonv1beta1.ConfigReference{
				{ConfigGroupResource: addontest.ProxyGR(), LastAppliedConfig: specHash("", "cluster-proxy", addontest.OldHash)},
				configRef(deployGR, "", "deploy", "h1", "h1", 1),
			},
			desired: []addon.Config{config(deployGR, "", "deploy", "h1"), config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
			want: []addonv1beta1.ConfigReference{
				configRef(deployGR, "", "deploy", "h1", "h1", 1),
				configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, "", 0),
			},
		},
		{
			name: "by group then resource; kept entries in their order, then new ones in desired order",
			current: []addonv1beta1.ConfigReference{
				seedApplied,
				configRef(deployGR, "", "b", "hb", "hb", 1),
				configRef(deployGR, "", "gone", "hg", "hg", 1),
				configRef(deployGR, "", "a", "ha", "ha", 1),
			},
			desired: []addon.Config{
				config(configMapGR, "ns", "x", "hx"),
				config(deployGR, "", "a", "ha2"),
				config(deployGR, "", "d", "hd"),
				config(deployGR, "", "c", "hc"),
				config(deployGR, "", "b", "hb"),
				config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash),
			},
			want: []addonv1beta1.ConfigReference{
				configRef(configMapGR, "ns", "x", "hx", "", 0),
				configRef(deployGR, "", "b", "hb", "hb", 1),
				configRef(deployGR, "", "a", "ha2", "ha", 1),
				configRef(deployGR, "", "d", "hd", "", 0),
				configRef(deployGR, "", "c", "hc", "", 0),
				seedApplied,
			},
		},
		{
			name:    "nothing desired: every entry dropped, an empty list",
			current: []addonv1beta1.ConfigReference{seedApplied},
			want:    []addonv1beta1.ConfigReference{},
		},
		{
			name: "a config repeated in current is kept once, the first time",
			current: []addonv1beta1.ConfigReference{
				seedApplied,
				configRef(addontest.ProxyGR(), "", "cluster-proxy", "older", "older", 0),
			},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, addontest.OldHash, 1)},
		},
		{
			name:    "a config repeated in desired is taken once, the first time",
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash), config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash)},
			want:    []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, "", 0)},
			repeats: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			current, desired := cloneConfigRefs(tt.current), append([]addon.Config(nil), tt.desired...)

			got := addon.ConfigReferences(current, desired)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, addon.ConfigReferences(got, desired), "merging again changes nothing")

			// Once written, the add-on is no longer ToApply: the planner
			// sees it progressing (or done).
			mca := &addonv1beta1.ManagedClusterAddOn{}
			mca.Namespace, mca.Status.ConfigReferences = "c1", got
			if !tt.repeats {
				st, err := addon.ClusterStatus(mca, desired)
				require.NoError(t, err)
				assert.NotEqual(t, rollout.ToApply, st.Status)
			}

			// The inputs are untouched, and the result shares nothing with them.
			for i := range got {
				for _, h := range []*addonv1beta1.ConfigSpecHash{got[i].DesiredConfig, got[i].LastAppliedConfig} {
					if h != nil {
						h.SpecHash, h.Name = "mutated", "mutated"
					}
				}
			}
			assert.Equal(t, tt.current, current)
			assert.Equal(t, tt.desired, desired)
		})
	}
}

// TestConfigReferencesUnchanged checks that a caller can skip the write: with
// nothing to change, the result is equal to current, by reflect and by the
// API's semantic equality.
func TestConfigReferencesUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		current []addonv1beta1.ConfigReference
		desired []addon.Config
	}{
		{name: "nil, nothing desired"},
		{name: "empty, nothing desired", current: []addonv1beta1.ConfigReference{}},
		{
			name:    "seed: applied",
			current: []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash, addontest.OldHash, 1)},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash)},
		},
		{
			name:    "seed: applying the new hash",
			current: []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, addontest.OldHash, 1)},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
		},
		{
			name:    "not applied yet",
			current: []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, "", 0)},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
		},
		{
			name: "several, in OCM's order, desired in another order",
			current: []addonv1beta1.ConfigReference{
				configRef(configMapGR, "ns", "x", "hx", "hx", 4),
				configRef(deployGR, "", "b", "hb", "hb", 1),
				configRef(deployGR, "", "a", "ha", "", 0),
				configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash, addontest.OldHash, 1),
			},
			desired: []addon.Config{
				config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash),
				config(deployGR, "", "a", "ha"),
				config(deployGR, "", "b", "hb"),
				config(configMapGR, "ns", "x", "hx"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := addon.ConfigReferences(tt.current, tt.desired)
			assert.True(t, reflect.DeepEqual(tt.current, got), "reflect.DeepEqual: got %#v", got)
			assert.True(t, apiequality.Semantic.DeepEqual(tt.current, got), "Semantic.DeepEqual")
		})
	}
}

// TestConfigReferencesSeed writes the upgraded config to the seed's add-ons:
// each goes from ToApply to Progressing, and keeps what it last applied.
func TestConfigReferencesSeed(t *testing.T) {
	t.Parallel()
	mcas := readMCAs(t, "managedclusteraddons.yaml")
	addons, err := addon.Evaluate(addontest.SeedCMA(t), addontest.SeedPlacement(), mcas, lookup(t, proxyConfig(t, "proxyAgent", "proxyServer")))
	require.NoError(t, err)
	require.Len(t, addons, len(mcas))
	for _, a := range addons {
		assert.Equal(t, rollout.ToApply, a.Status.Status, a.Status.Cluster)
	}
	for _, a := range addons {
		i := slices.IndexFunc(mcas, func(m *addonv1beta1.ManagedClusterAddOn) bool { return m.Namespace == a.Status.Cluster })
		require.GreaterOrEqual(t, i, 0, a.Status.Cluster)
		mca := mcas[i]
		written := mca.DeepCopy()
		written.Status.ConfigReferences = addon.ConfigReferences(mca.Status.ConfigReferences, a.Configs)
		assert.Equal(t, []addonv1beta1.ConfigReference{configRef(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash, addontest.OldHash, 1)},
			written.Status.ConfigReferences, mca.Namespace)
		st, err := addon.ClusterStatus(written, a.Configs)
		require.NoError(t, err)
		assert.Equal(t, rollout.Progressing, st.Status, mca.Namespace)
	}
}
