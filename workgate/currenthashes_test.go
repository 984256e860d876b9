package workgate_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
	"github.com/rolloutkit/rolloutkit/workgate"
)

func TestCurrentHashes(t *testing.T) {
	t.Parallel()
	errNotFound := errors.New("not found in the cache")
	proxy := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	deploy := addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}
	configMaps := addonv1beta1.ConfigGroupResource{Resource: "configmaps"}
	proxyRef := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	deployRef := addonv1beta1.ConfigReferent{Namespace: "open-cluster-management", Name: "cluster-proxy"}
	cmRef := addonv1beta1.ConfigReferent{Namespace: "open-cluster-management-cluster-proxy", Name: "proxy-tuning"}
	// The refs were handed older specs (hashA) than the configs' current.
	ref := func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) addonv1beta1.ConfigReference {
		return addonv1beta1.ConfigReference{ConfigGroupResource: gr, LastObservedGeneration: 3,
			DesiredConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: r, SpecHash: hashA}}
	}
	refs := []addonv1beta1.ConfigReference{
		ref(proxy, proxyRef),
		{ConfigGroupResource: configMaps}, // supported, none desired
		ref(deploy, deployRef),
		ref(configMaps, cmRef),
	}
	current := map[addonv1beta1.ConfigReferent]string{proxyRef: hashB, deployRef: hashC, cmRef: hashB}
	// specHash reads current, and fails for the referents in missing.
	specHash := func(missing ...addonv1beta1.ConfigReferent) addon.SpecHashFunc {
		return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
			if slices.Contains(missing, r) {
				return "", errNotFound
			}
			h, ok := current[r]
			if !ok {
				return "", fmt.Errorf("called for %v %v, which no desiredConfig names", gr, r)
			}
			return h, nil
		}
	}
	for _, tt := range []struct {
		name     string
		refs     []addonv1beta1.ConfigReference
		missing  []addonv1beta1.ConfigReferent
		want     map[string]string
		errNames []string // the configs the error names; none for no error
	}{
		{name: "no references", want: map[string]string{}},
		{name: "every config read", refs: refs, want: map[string]string{
			proxyKey: hashB, deployKey: hashC,
			"configmaps/open-cluster-management-cluster-proxy/proxy-tuning": hashB,
		}},
		{name: "one config unreadable", refs: refs, missing: []addonv1beta1.ConfigReferent{deployRef},
			want:     map[string]string{proxyKey: hashB, "configmaps/open-cluster-management-cluster-proxy/proxy-tuning": hashB},
			errNames: []string{`addondeploymentconfigs.addon.open-cluster-management.io "open-cluster-management/cluster-proxy"`}},
		{name: "two configs unreadable", refs: refs, missing: []addonv1beta1.ConfigReferent{proxyRef, cmRef},
			want: map[string]string{deployKey: hashC},
			errNames: []string{`managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy"`,
				`configmaps "open-cluster-management-cluster-proxy/proxy-tuning"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := deepCopyRefs(tt.refs)
			got, err := workgate.CurrentHashes(tt.refs, specHash(tt.missing...))
			assert.Equal(t, before, tt.refs, "CurrentHashes modified its input")
			assert.Equal(t, tt.want, got)
			if len(tt.errNames) == 0 {
				require.NoError(t, err)
				assert.ElementsMatch(t, slices.Collect(maps.Keys(addon.ConfigHashes(tt.refs))), slices.Collect(maps.Keys(got)),
					"keyed as the work's annotation keys its configs")
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, errNotFound)
			for _, name := range tt.errNames {
				assert.Contains(t, err.Error(), name)
			}
		})
	}
}

// deepCopyRefs copies refs, desiredConfigs too.
func deepCopyRefs(refs []addonv1beta1.ConfigReference) []addonv1beta1.ConfigReference {
	if refs == nil {
		return nil
	}
	out := make([]addonv1beta1.ConfigReference, len(refs))
	for i := range refs {
		refs[i].DeepCopyInto(&out[i])
	}
	return out
}
