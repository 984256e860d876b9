package e2e_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// history waits until the add-on's revision history in namespace ns
// satisfies ok, and returns it.
func (e *env) history(t testing.TB, ns string, ok func([]hubplan.HistoryEntry) bool) []hubplan.HistoryEntry {
	t.Helper()
	var h []hubplan.HistoryEntry
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var list appsv1.ControllerRevisionList
		require.NoError(ct, e.c.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{hubplan.HistoryLabel: e.addonName}))
		crs := make([]*appsv1.ControllerRevision, len(list.Items))
		for i := range list.Items {
			crs[i] = &list.Items[i]
		}
		var err error
		h, err = hubplan.HistoryOf(e.addonName, crs)
		require.NoError(ct, err)
		assert.True(ct, ok(h), "history: %+v", h)
	}, 60*time.Second, poll, "revision history")
	return h
}

// completedOn reports whether the history's revision of configs hash h
// completed on every cluster of o.
func completedOn(o seeded, h string) func([]hubplan.HistoryEntry) bool {
	return func(history []hubplan.HistoryEntry) bool {
		return slices.ContainsFunc(history, func(e hubplan.HistoryEntry) bool {
			return len(e.Record.Configs) == 1 && e.Record.Configs[0].SpecHash == h && e.Completed != nil &&
				slices.Equal(e.Clusters, slices.Sorted(slices.Values(o.Clusters())))
		})
	}
}

// setSoak sets the minSuccessTime of the add-on's install strategy.
func (e *env) setSoak(t testing.TB, d time.Duration) {
	t.Helper()
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cma addonv1beta1.ClusterManagementAddOn
		if err := e.c.Get(context.Background(), types.NamespacedName{Name: e.addonName}, &cma); err != nil {
			return err
		}
		s := &cma.Spec.InstallStrategy.Placements[0].RolloutStrategy
		require.NotNil(t, s.ProgressivePerGroup, "the seed's strategy")
		s.ProgressivePerGroup.MinSuccessTime = metav1.Duration{Duration: d}
		return e.c.Update(context.Background(), &cma)
	}))
}

// TestUndo: prod needs an approval, and each group soaks. The add-on goes
// from A to B, prod approved; B turns out broken. The soak is then made
// ten minutes, and `rolloutctl undo` restores A, a revision every cluster
// ran: with spec.fastRollback it reaches dev, stg and prod in that order,
// each group as soon as the one before applied, within seconds, without
// the soaks and without a new approval of prod. addon-framework's add-on
// manager renders the works, and the work gate holds them: no work ever
// carries content its add-on was not handed first.
func TestUndo(t *testing.T) {
	t.Parallel()
	// A hub of its own: the work gate's configuration holds every add-on's
	// works on the hub.
	e := newEnv(t)
	o := seedHub(t, e, "30s")
	hashA, hashB := specHash(t, testhub.Image), specHash(t, newImage)
	seen := e.recordVersions(t, addonName)
	e.startGated(t, e.hub.Config, func(*ctrl.Options) {},
		hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{e.lifecycle}, HistoryNamespace: e.namespace})
	e.workAgents(t, applyTime, nil)
	e.startAddOnManager(t, &byNameAddon{c: e.c})
	e.installed(t, o, addonName, hashA, 90*time.Second)

	ctx := context.Background()
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName},
		Spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}, FastRollback: true}}))
	e.history(t, e.namespace, completedOn(o, hashA))

	e.setAgentImage(t, newImage)
	c := &controlled{env: e, o: o}
	c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	ar := c.rollout(t)
	require.Len(t, ar.Status.PendingApprovals, 1)
	pa := ar.Status.PendingApprovals[0]
	require.NoError(t, e.c.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "prod-b"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: pa.Placement, Group: "prod", Revision: pa.Revision}}))
	e.installed(t, o, addonName, hashB, 60*time.Second)
	history := e.history(t, e.namespace, completedOn(o, hashB))
	require.Len(t, history, 2)

	// B is broken in prod. Soaks are now long; the undo must not wait for them.
	e.setSoak(t, 10*time.Minute)
	cli := binary(t, "./cmd/rolloutctl", "rolloutctl")
	operator := e.impersonating(t, "olga", "system:masters")
	out, code := rolloutctl(t, cli, operator, "history", addonName, "--namespace", e.namespace)
	require.Equal(t, 0, code, out)
	assert.True(t, strings.HasPrefix(lineWith(out, "2", "current,", "completed", newImage), "2 "), out)
	line := lineWith(out, "1", "completed", testhub.Image)
	assert.True(t, strings.HasPrefix(line, "1 ") && !strings.Contains(line, "current"), out)
	undoAt := time.Now()
	out, code = rolloutctl(t, cli, operator, "undo", addonName, "--namespace", e.namespace)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "restored revision 1")

	e.installed(t, o, addonName, hashA, 45*time.Second)
	took := time.Since(undoAt)
	t.Logf("undo to A reached every group in %s (soak 10m each, prod's approval not given)", took.Round(time.Millisecond))
	ar = c.rollout(t)
	require.Len(t, ar.Status.Placements, 1)
	assert.True(t, ar.Status.Placements[0].FastRollback, "the status does not say the fast path was taken")
	// status plans with the history as the controller does
	out, code = rolloutctl(t, cli, operator, "status", addonName, "--namespace", e.namespace)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "  fast rollback: a revision every cluster taking it ran before", out)
	assert.Empty(t, ar.Status.PendingApprovals)
	var approvals v1alpha1.RolloutApprovalList
	require.NoError(t, e.c.List(ctx, &approvals))
	assert.Len(t, approvals.Items, 1, "an approval was needed for the rollback")

	seen.stop()
	seen.requireStaged(t, map[string]string{hashA: testhub.Image, hashB: newImage, "": testhub.Image})
	for _, cl := range o.Clusters() {
		assert.Equal(t, []string{hashA, hashB, hashA}, seen.desired(cl), "%s: desired specs in order", cl)
	}
	// Group by group: each cluster's work took A again after the one
	// before it had.
	var order []time.Time
	for _, cl := range []string{"dev-cluster", "stg-cluster", "prod-cluster"} {
		at := seen.imageSince(cl, testhub.Image, undoAt)
		require.False(t, at.IsZero(), "%s's work never took A again", cl)
		order = append(order, at)
	}
	assert.True(t, slices.IsSortedFunc(order, func(a, b time.Time) int { return a.Compare(b) }), "A again at %v: not dev, stg, prod", order)
	e.history(t, e.namespace, func(h []hubplan.HistoryEntry) bool {
		// A, rolled out again, takes the next number
		return completedOn(o, hashA)(h) && h[len(h)-1].Number == 3 && h[len(h)-1].Record.Configs[0].SpecHash == hashA
	})
}

// imageSince is when cluster's work first carried image after since;
// zero when it did not.
func (v *versions) imageSince(cluster, image string, since time.Time) time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, w := range v.works {
		if w.cluster == cluster && w.at.After(since) && slices.Contains(w.images, image) {
			return w.at
		}
	}
	return time.Time{}
}

// TestAutomaticRollback: spec.onFailure: Rollback and a verification of
// stg that fails. The add-on goes from A to B: dev and stg take B, stg's
// check fails, and the controller restores A's config spec on the hub by
// itself: dev and stg go back to A, prod never leaves it, and the status
// and a RolledBack event say from which revision to which and why. A
// failure of A then does not roll back again.
func TestAutomaticRollback(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "60s")
	reg := prometheus.NewRegistry()
	ctl := e.startManager(t, e.hub.Config, func(*ctrl.Options) {}, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true,
			Lifecycles: []string{e.lifecycle}, Metrics: reg, Verifier: verify.Verifier{HTTP: &http.Client{}}, HistoryNamespace: e.namespace})
		return err
	})
	e.agents(t, applyTime, nil)
	c := &controlled{env: e, o: o, ctl: ctl, reg: reg, oldHash: specHash(t, testhub.Image), newHash: specHash(t, newImage)}
	e.installed(t, o, e.addonName, c.oldHash, 60*time.Second)
	hook := newWebhook(t, http.StatusOK)
	c.govern(t, v1alpha1.AddOnRolloutSpec{OnFailure: v1alpha1.OnFailureRollback, Verifications: []v1alpha1.Verification{{
		Name: "smoke", Groups: []string{"stg"}, Interval: &metav1.Duration{Duration: time.Second},
		Webhook: &v1alpha1.WebhookCheck{URL: hook.srv.URL + "/verify"},
	}}})
	_, oldRev := c.group(t, "dev")
	e.history(t, e.namespace, completedOn(o, c.oldHash)) // A passed its check
	hook.set(http.StatusServiceUnavailable)
	ob := e.observe(t, o.Clusters(), e.addonName, c.oldHash)

	e.setAgentImage(t, newImage)
	c.event(t, addons.EventRolledBack, "to revision 1 ("+oldRev+`): VerificationFailed: verification smoke of group "stg" failed: webhook `)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Equal(ct, testhub.Image, e.agentImage(ct))
	}, 30*time.Second, poll, "the config's spec restored")
	e.installed(t, o, e.addonName, c.oldHash, 60*time.Second)
	ob.close()

	ar := c.rollout(t)
	require.Len(t, ar.Status.Rollbacks, 1)
	rb := ar.Status.Rollbacks[0]
	assert.Equal(t, v1alpha1.PlacementRef{Namespace: e.namespace, Name: seedPlacement}, rb.Placement)
	assert.Equal(t, hubplan.ReasonVerificationFailed, rb.Reason)
	assert.Equal(t, oldRev, rb.To)
	assert.Equal(t, int64(1), rb.ToNumber)
	assert.NotEqual(t, rb.From, rb.To)
	assert.Contains(t, rb.Message, "503 Service Unavailable")
	for _, cl := range []string{e.dev, e.stg} {
		assert.Equal(t, []string{c.oldHash, c.newHash, c.oldHash}, ob.desired[cl], "%s: desired", cl)
	}
	assert.Equal(t, []string{c.oldHash}, ob.desired[e.prod], "prod was handed B")

	// A, restored, fails the same check: it holds, and is not rolled back.
	c.waitGroup(t, "stg", 30*time.Second, func(g v1alpha1.GroupStatus) bool {
		return g.WaitsFor == "Verification" && strings.Contains(g.Message, "503")
	})
	ar = c.rollout(t)
	require.Len(t, ar.Status.Rollbacks, 1, "rolled back again")
	assert.Equal(t, rb, ar.Status.Rollbacks[0])
	assert.Equal(t, testhub.Image, e.agentImage(t))
}

// agentImage is spec.proxyAgent.image of the test's config object.
func (e *env) agentImage(t tb) string {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(proxyConfigGVR.GroupVersion().WithKind("ManagedProxyConfiguration"))
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: e.config}, u))
	image, _, err := unstructured.NestedString(u.Object, "spec", "proxyAgent", "image")
	require.NoError(t, err)
	return image
}
