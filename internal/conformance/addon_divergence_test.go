package conformance

// A3 (docs/compatibility.md): an add-on with spec.configs of its own. OCM's
// add-on manager itself runs here, beside rolloutkit, on one hub. Not
// parallel: OCM reads the package-level RolloutClock.

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// A3: every add-on has applied the desired config, stg-cluster's through
// spec.configs that name the very config the ClusterManagementAddOn gives.
// OCM v1.2.0 compares that add-on's desired configs with the placement's by
// pointer (desiredConfigsEqual in
// pkg/addon/controllers/addonconfiguration/graph.go), so it never counts it
// as succeeded: its install progression stays at 2/3 progressing. rolloutkit
// compares by value (docs/semantics.md §5.3) and completes. Without
// spec.configs both complete: the difference is exactly the custom configs.
func TestDivergence_CustomConfigsComplete(t *testing.T) {
	now := baseNow
	strategies := map[string]clusterv1alpha1.RolloutStrategy{
		"ProgressivePerGroup": {Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
			RolloutConfig: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}, ProgressDeadline: "15m"},
		}},
		"All": {Type: clusterv1alpha1.All},
	}
	for _, tc := range []struct {
		name     string
		strategy string
		custom   []string
		// OCM's Progressing condition of the install progression
		ocmReason, ocmMessage string
	}{{
		name: "ProgressivePerGroup, spec.configs on stg-cluster", strategy: "ProgressivePerGroup", custom: []string{"stg-cluster"},
		ocmReason: addonv1alpha1.ProgressingReasonProgressing, ocmMessage: "2/3 progressing..., 0 failed 0 timeout.",
	}, {
		name: "All, spec.configs on stg-cluster", strategy: "All", custom: []string{"stg-cluster"},
		ocmReason: addonv1alpha1.ProgressingReasonProgressing, ocmMessage: "2/3 progressing..., 0 failed 0 timeout.",
	}, {
		name: "ProgressivePerGroup, no spec.configs", strategy: "ProgressivePerGroup",
		ocmReason: addonv1alpha1.ProgressingReasonCompleted, ocmMessage: "3/3 completed with no errors, 0 failed 0 timeout.",
	}, {
		name: "All, no spec.configs", strategy: "All",
		ocmReason: addonv1alpha1.ProgressingReasonCompleted, ocmMessage: "3/3 completed with no errors, 0 failed 0 timeout.",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := seedAddonHub(t, now, strategies[tc.strategy], tc.custom...)

			theirs, wrote := runOCMAddonManager(t, now, h)
			assert.Equal(t, []string{"patch clustermanagementaddons/status"}, wrote, "OCM writes the install progression only")
			cond := meta.FindStatusCondition(theirs.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, cond, "OCM's install progression condition")
			assert.Equal(t, tc.ocmReason, cond.Reason, "OCM")
			assert.Equal(t, tc.ocmMessage, cond.Message, "OCM")
			require.Len(t, theirs.ConfigReferences, 1)
			if tc.ocmReason == addonv1alpha1.ProgressingReasonCompleted {
				assert.Equal(t, h.desired(), theirs.ConfigReferences[0].LastAppliedConfig, "OCM: complete, the desired config is applied")
			} else {
				assert.Nil(t, theirs.ConfigReferences[0].LastAppliedConfig, "OCM: never complete, never applied")
			}

			ours, addons := runOurAddon(t, now, h)
			for _, a := range addons {
				assert.Equal(t, slices.Contains(tc.custom, a.Status.Cluster), a.Custom, a.Status.Cluster)
			}
			cond = meta.FindStatusCondition(ours.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, cond, "our install progression condition")
			assert.Equal(t, addonv1beta1.ProgressingReasonCompleted, cond.Reason, "ours")
			assert.Equal(t, metav1.ConditionFalse, cond.Status, "ours")
			assert.Equal(t, "selected clusters 3. configured addons 3/3 completed with no errors, 0 failed 0 timeout.", cond.Message, "ours (A1: OCM's text has no prefix)")
			require.Len(t, ours.ConfigReferences, 1)
			assert.Equal(t, &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent(proxyReferent), SpecHash: h.configHash},
				ours.ConfigReferences[0].LastAppliedConfig, "ours: complete, the desired config is applied")
		})
	}
}
