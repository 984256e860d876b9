package e2e_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// TestApprovalScopes runs the approvals' admission webhook as the
// controller serves it, on a hub that authorizes with RBAC, with the
// shipped example role (config/samples/approver_prod_role.yaml) bound to
// bob: bob approves cluster-proxy's prod; an approval of its stg is
// refused (Forbidden), naming the permission bob lacks; an approver bound
// to the wildcard "cluster-proxy/*" approves stg.
func TestApprovalScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	e.startAdmission(t)

	raw, err := os.ReadFile("../config/samples/approver_prod_role.yaml")
	require.NoError(t, err)
	var prodRole rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal(raw, &prodRole))
	require.NoError(t, e.c.Create(ctx, &prodRole))
	require.NoError(t, e.c.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "approve-cluster-proxy"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{v1alpha1.Group}, Resources: []string{"rolloutapprovals"}, Verbs: []string{"create"}},
			{APIGroups: []string{v1alpha1.Group}, Resources: []string{"decisiongroups"}, ResourceNames: []string{"cluster-proxy/*"}, Verbs: []string{"approve"}}}}))
	bind := func(role, user string) {
		require.NoError(t, e.c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role + "-" + user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}))
	}
	bind(prodRole.Name, "bob")
	bind("approve-cluster-proxy", "carol")
	as := func(user string) client.Client {
		cfg := rest.CopyConfig(e.hub.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"sre"}}
		c, err := testhub.NewClient(cfg)
		require.NoError(t, err)
		return c
	}
	approval := func(group string) *v1alpha1.RolloutApproval {
		return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{GenerateName: "cluster-proxy-" + group + "-"},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy", Group: group, Revision: "r1",
				Placement: v1alpha1.PlacementRef{Namespace: "open-cluster-management", Name: "global"}}}
	}
	bob, carol := as("bob"), as("carol")
	prod := approval("prod")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.NoError(ct, bob.Create(ctx, prod), "bob approves prod (once the role's binding is in force)")
	}, 10*time.Second, poll)
	assert.Equal(t, "bob", prod.Spec.Username)

	err = bob.Create(ctx, approval("stg"))
	require.Error(t, err, "bob approved stg")
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), `user "bob" may not approve group "stg" of add-on "cluster-proxy": `+
		`needs verb "approve" on decisiongroups.rolloutkit.io named "cluster-proxy/stg" (or "cluster-proxy/*")`)
	err = bob.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{GenerateName: "other-prod-"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: "managed-serviceaccount", Group: "prod", Revision: "r1"}})
	require.Error(t, err, "bob approved another add-on's prod")
	assert.Contains(t, err.Error(), `named "managed-serviceaccount/prod" (or "managed-serviceaccount/*")`)

	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.NoError(ct, carol.Create(ctx, approval("stg")), "carol approves stg through the add-on's wildcard")
	}, 10*time.Second, poll)
}
