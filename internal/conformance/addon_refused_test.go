package conformance

// A4 and A5 (docs/compatibility.md): an install-strategy placement that
// cannot be planned. OCM's add-on manager itself runs here, beside
// rolloutkit, on one hub. Not parallel: OCM reads the package-level
// RolloutClock.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// planOurs runs addon.PlanAddon on h's objects, converted to v1beta1 as the
// API server serves them.
func planOurs(t *testing.T, now time.Time, h addonHub) []addon.Step {
	t.Helper()
	cma, mcas := h.betaObjects(t)
	groups, err := placement.GroupsFromDecisions(h.decisions)
	require.NoError(t, err)
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
		return h.configHash, nil
	}
	steps, err := addon.PlanAddon(rollout.Planner{Clock: fake.New(now)}, cma,
		[]addon.PlacementInput{{Placement: h.placement, Groups: groups}}, mcas, specHash)
	require.NoError(t, err)
	return steps
}

// TestDivergence_RefusedPlacementReported: a placement that cannot be
// planned. OCM's addon-configuration sync returns an error and writes
// nothing, so the ClusterManagementAddOn's status does not say why the
// rollout stopped (only the add-on manager's log does). rolloutkit writes
// the placement's install progression with Progressing False and a reason
// and message naming what is wrong, and plans the add-on's other
// placements (rollout/addon's TestPlanAddonRefused shows those go ahead).
func TestDivergence_RefusedPlacementReported(t *testing.T) {
	now := baseNow
	strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
		RolloutConfig: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}, ProgressDeadline: "15m"},
	}}
	for _, tc := range []struct {
		name   string
		edit   func(*addonHub)
		reason string
	}{{
		name:   "A4: the Placement is missing",
		edit:   func(h *addonHub) { h.placement = nil },
		reason: addon.ReasonPlacementNotFound,
	}, {
		name: "A5: the rollout strategy does not validate",
		edit: func(h *addonHub) {
			h.cma.Spec.InstallStrategy.Placements[0].RolloutStrategy.ProgressivePerGroup.MaxFailures.Type = 1
			h.cma.Spec.InstallStrategy.Placements[0].RolloutStrategy.ProgressivePerGroup.MaxFailures.StrVal = "15x"
		},
		reason: addon.ReasonInvalidRolloutStrategy,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := seedAddonHub(t, now, strategy)
			tc.edit(&h)

			cma, _, wrote, err := syncOCMAddonManager(t, now, h)
			require.Error(t, err, "OCM's sync fails")
			assert.Empty(t, wrote, "OCM writes nothing")
			require.Len(t, cma.Status.InstallProgressions, 1)
			assert.Nil(t, meta.FindStatusCondition(cma.Status.InstallProgressions[0].Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing),
				"OCM's install progression says nothing")

			steps := planOurs(t, now, h)
			require.Len(t, steps, 1)
			require.Error(t, steps[0].Err)
			assert.Empty(t, steps[0].Writes)
			c := meta.FindStatusCondition(steps[0].Progression.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, c)
			assert.Equal(t, metav1.ConditionFalse, c.Status)
			assert.Equal(t, tc.reason, c.Reason)
			assert.Equal(t, steps[0].Err.Error(), c.Message)
		})
	}
}
