package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// fleetSecond is the second add-on of TestFleetStatus: a copy of the
// seeded one, with no AddOnRollout.
const fleetSecond = "managed-serviceaccount"

// TestFleetStatus runs the compiled rolloutctl on a hub with two add-ons,
// one governed by an AddOnRollout whose dev group waits for an approval
// and one not governed:
//
//   - status with no add-on, as a user bound only to rolloutkit-viewer,
//     lists both, each with its rollout, revision, phase and wait;
//   - pause --all --reason, as the viewer, is refused by RBAC;
//   - pause --all --reason, as an operator, pauses both (creating the
//     second's AddOnRollout), and the table shows the reason;
//   - resume --all resumes both and the reason is gone.
func TestFleetStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // a hub of its own: the shipped ClusterRoles have fixed names
	seedHub(t, e, "60s")
	e.placements(t)
	ctx := context.Background()
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName},
		Spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"dev"}}}))
	var cma addonv1beta1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(ctx, types.NamespacedName{Name: addonName}, &cma))
	second := &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: fleetSecond, Annotations: cma.Annotations}, Spec: cma.Spec}
	require.NoError(t, e.c.Create(ctx, second))
	roles := shippedRoles(t)
	require.NoError(t, e.c.Create(ctx, roles[viewerRole].DeepCopy()))
	e.bind(t, viewerRole, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "vic"})
	cli := binary(t, "./cmd/rolloutctl", "rolloutctl")
	viewer, operator := e.impersonating(t, "vic"), e.impersonating(t, "olga", "system:masters")

	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, code := rolloutctl(ct, cli, viewer, "status")
		assert.Equal(ct, 0, code, out)
		assert.Contains(ct, out, "ADDON ")
		assert.NotEmpty(ct, lineWith(out, addonName, "yes", "group", "dev:", "Approval"), out)
		assert.NotEmpty(ct, lineWith(out, fleetSecond, "not", "governed"), out)
	}, 30*time.Second, poll, "the viewer sees both add-ons, dev of the governed one waiting for its approval")

	out, code := rolloutctl(t, cli, viewer, "pause", "--all", "--reason", "change freeze")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, `is forbidden: User "vic" cannot`)

	out, code = rolloutctl(t, cli, operator, "pause", "--all", "--reason", "change freeze")
	require.Equal(t, 0, code, out)
	for _, name := range []string{addonName, fleetSecond} {
		var ar v1alpha1.AddOnRollout
		require.NoError(t, e.c.Get(ctx, types.NamespacedName{Name: name}, &ar))
		assert.True(t, ar.Spec.Paused, name)
		assert.Equal(t, "change freeze", ar.Annotations["rolloutkit.io/pause-reason"], name)
		assert.NotEmpty(t, ar.Annotations["rolloutkit.io/paused-at"], name)
	}
	out, code = rolloutctl(t, cli, viewer, "status")
	require.Equal(t, 0, code, out)
	assert.NotEmpty(t, lineWith(out, addonName, "paused", "(change", "freeze)"), out)
	assert.NotEmpty(t, lineWith(out, fleetSecond, "paused", "(change", "freeze)"), out)

	out, code = rolloutctl(t, cli, operator, "resume", "--all")
	require.Equal(t, 0, code, out)
	for _, name := range []string{addonName, fleetSecond} {
		var ar v1alpha1.AddOnRollout
		require.NoError(t, e.c.Get(ctx, types.NamespacedName{Name: name}, &ar))
		assert.False(t, ar.Spec.Paused, name)
		assert.NotContains(t, ar.Annotations, "rolloutkit.io/pause-reason", name)
	}
	out, code = rolloutctl(t, cli, viewer, "status")
	require.Equal(t, 0, code, out)
	assert.False(t, strings.Contains(out, "change freeze"), out)
}
