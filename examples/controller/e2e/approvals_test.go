package e2e_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// approvalRetention is the retention of TestApprovalsSayWhat's
// controller: short, so that the test sees an approval expire.
const approvalRetention = 3 * time.Second

// TestApprovalsSayWhat: the status lists each placement's configs with
// the spec hash of the config object as the hub holds it and the image
// it names, and an approval waited for names them too. An approval of a
// revision superseded for longer than the retention is deleted, with an
// event; the one used for the current revision is kept.
func TestApprovalsSayWhat(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "60s")
	e.start(t, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true,
			Lifecycles: []string{e.lifecycle}, Verifier: verify.Verifier{HTTP: &http.Client{}}, ApprovalRetention: approvalRetention})
		return err
	})
	e.agents(t, applyTime, nil)
	e.installed(t, o, e.addonName, specHash(t, testhub.Image), 60*time.Second)
	c := &controlled{env: e, o: o}
	c.govern(t, v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})
	e.requireConfigs(t, c.rollout(t).Status.Placements[0].Configs, testhub.Image)
	_, oldRev := c.group(t, "prod")
	approve := func(name, revision string) {
		t.Helper()
		require.NoError(t, e.c.Create(context.Background(), &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: e.named(name)},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: e.addonName, Placement: v1alpha1.PlacementRef{Namespace: e.namespace, Name: seedPlacement},
				Group: "prod", Revision: revision}}))
	}
	approve("prod-old", oldRev)

	e.setAgentImage(t, newImage)
	c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	ar := c.rollout(t)
	require.Len(t, ar.Status.PendingApprovals, 1)
	pa := ar.Status.PendingApprovals[0]
	e.requireConfigs(t, pa.Configs, newImage)
	assert.Equal(t, ar.Status.Placements[0].Configs, pa.Configs)
	c.event(t, addons.EventApprovalRequested, "image "+newImage)
	approve("prod-new", pa.Revision)

	e.installed(t, o, e.addonName, specHash(t, newImage), 60*time.Second)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.False(ct, e.approvalExists(ct, "prod-old"), "the superseded approval is kept")
	}, 30*time.Second, poll, "the superseded approval deleted")
	c.event(t, addons.EventApprovalDeleted, "deleted RolloutApproval "+e.named("prod-old"))
	time.Sleep(2 * approvalRetention)
	assert.True(t, e.approvalExists(t, "prod-new"), "the approval used for the current revision was deleted")
}

// requireConfigs checks that configs are the test's config object, with
// its spec hash as the hub holds it now, and image.
func (e *env) requireConfigs(t *testing.T, configs []v1alpha1.RevisionConfig, image string) {
	t.Helper()
	require.Len(t, configs, 1)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(e.proxyConfig(t, image).GroupVersionKind())
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: e.config}, u))
	h, err := hash.Spec(u)
	require.NoError(t, err)
	assert.Equal(t, v1alpha1.RevisionConfig{Group: u.GroupVersionKind().Group, Resource: "managedproxyconfigurations", Name: e.config,
		SpecHash: h, Image: image}, configs[0])
}

// approvalExists reports whether the hub has the test's approval name.
func (e *env) approvalExists(t tb, name string) bool {
	t.Helper()
	err := e.c.Get(context.Background(), types.NamespacedName{Name: e.named(name)}, &v1alpha1.RolloutApproval{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

// TestAddOnNotFound: an AddOnRollout named after a typo and a
// RolloutApproval of an add-on the hub does not have each get a
// condition saying so, False with reason AddOnNotFound, naming the
// add-on; the AddOnRollout's status is confirmed like any other.
func TestAddOnNotFound(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	e.controller(t)
	ctx := context.Background()
	typo := e.named("cluster-prxy")
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: typo},
		Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}))
	require.NoError(t, e.c.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: e.named("typo")},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: typo, Placement: v1alpha1.PlacementRef{Namespace: e.namespace, Name: seedPlacement},
			Group: "prod", Revision: "0123456789ab"}}))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var ar v1alpha1.AddOnRollout
		require.NoError(ct, e.c.Get(ctx, types.NamespacedName{Name: typo}, &ar))
		c := meta.FindStatusCondition(ar.Status.Conditions, hubplan.ConditionProgressing)
		require.NotNil(ct, c, "no Progressing condition")
		assert.Equal(ct, metav1.ConditionFalse, c.Status)
		assert.Equal(ct, hubplan.ReasonAddOnNotFound, c.Reason)
		assert.Contains(ct, c.Message, `no ClusterManagementAddOn "`+typo+`"`)
		assert.NotNil(ct, ar.Status.LastConfirmedTime)
		assert.NotNil(ct, ar.Status.RecheckTime)
		var a v1alpha1.RolloutApproval
		require.NoError(ct, e.c.Get(ctx, types.NamespacedName{Name: e.named("typo")}, &a))
		c = meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved)
		require.NotNil(ct, c, "no Approved condition")
		assert.Equal(ct, metav1.ConditionFalse, c.Status)
		assert.Equal(ct, hubplan.ReasonAddOnNotFound, c.Reason)
	}, 30*time.Second, poll, "AddOnNotFound conditions")
}
