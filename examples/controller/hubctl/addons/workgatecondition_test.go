package addons

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestAddonReconcileWorkGateCondition: the AddOnRollout's WorkGate
// condition says whether the work gate guards the add-on's works: True,
// Guarded, under the controller's configuration; False, NotGuarded, when
// the hub has none or the controller serves no gate.
func TestAddonReconcileWorkGateCondition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		serves bool
		objs   []client.Object
		status metav1.ConditionStatus
		reason string
	}{
		{name: "guarded", serves: true, objs: []client.Object{hubtest.GateConfiguration(gatehook.WorkGatePath, gatehook.WorkGateConfiguration)}, status: metav1.ConditionTrue, reason: hubplan.ReasonGuarded},
		{name: "no configuration", serves: true, status: metav1.ConditionFalse, reason: hubplan.ReasonNotGuarded},
		{name: "no gate served", serves: false, objs: []client.Object{hubtest.GateConfiguration(gatehook.WorkGatePath, gatehook.WorkGateConfiguration)}, status: metav1.ConditionFalse, reason: hubplan.ReasonNotGuarded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{}), tc.objs...)
			h.r.gate = gatehook.NewCheck(h.Client, tc.serves, h.clk)
			h.reconcile()
			cond := meta.FindStatusCondition(h.rollout().Status.Conditions, hubplan.ConditionWorkGate)
			require.NotNil(t, cond, "no WorkGate condition")
			assert.Equal(t, tc.status, cond.Status)
			assert.Equal(t, tc.reason, cond.Reason)
		})
	}
}
