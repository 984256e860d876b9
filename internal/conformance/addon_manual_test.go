package conformance

// A Manual install strategy: OCM v1.2.0's addon-configuration controller
// (its defaults node) beside addon.PlanAddon, on add-ons made by hand.
// Not parallel: OCM reads the package-level RolloutClock.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// TestManualAgrees: the seed's add-on with a Manual install strategy, its
// ClusterManagementAddOn's status carrying the default config's spec hash
// as OCM's cma-config controller writes it, and add-ons made by hand on
// dev-cluster (fresh) and stg-cluster (already configured and applied).
// OCM configures the fresh one at once with the default config and
// leaves the other; addon.PlanAddon writes the same desired configs to
// the same add-ons.
func TestManualAgrees(t *testing.T) {
	now := baseNow
	h := seedAddonHub(t, now, clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
	h.cma.Spec.InstallStrategy = addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual}
	h.cma.Status.InstallProgressions = nil
	h.placement, h.decisions = nil, nil
	var kept []*addonv1alpha1.ManagedClusterAddOn
	for _, m := range h.mcas {
		switch m.Namespace {
		case "dev-cluster":
			kept = append(kept, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}})
		case "stg-cluster":
			kept = append(kept, m)
		}
	}
	h.mcas = kept

	_, theirs, _, err := syncOCMAddonManager(t, now, h)
	require.NoError(t, err)
	ocmDesired := map[string]string{}
	for _, m := range theirs {
		for _, r := range m.Status.ConfigReferences {
			if r.DesiredConfig != nil {
				ocmDesired[m.Namespace] = r.DesiredConfig.Name + "@" + r.DesiredConfig.SpecHash
			}
		}
	}
	assert.Equal(t, map[string]string{"dev-cluster": "cluster-proxy@" + h.configHash, "stg-cluster": "cluster-proxy@" + h.configHash}, ocmDesired,
		"OCM configures every add-on of a Manual strategy with the default config")

	cma, mcas := h.betaObjects(t)
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
		return h.configHash, nil
	}
	steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(now)}, cma, nil, mcas, specHash)
	require.NoError(t, err)
	require.Len(t, steps, 1)
	require.NoError(t, steps[0].Err)
	ours := map[string]string{}
	for _, m := range mcas {
		for _, r := range m.Status.ConfigReferences {
			ours[m.Namespace] = r.DesiredConfig.Name + "@" + r.DesiredConfig.SpecHash
		}
	}
	for _, w := range steps[0].Writes {
		for _, r := range w.ConfigReferences {
			ours[w.Cluster] = r.DesiredConfig.Name + "@" + r.DesiredConfig.SpecHash
		}
	}
	assert.Equal(t, ocmDesired, ours, "rolloutkit writes the same desired configs")
}
