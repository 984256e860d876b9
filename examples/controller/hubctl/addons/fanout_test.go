package addons

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/progress"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
)

// TestAddonReconcileStartWritesProgress: the patch that gives an add-on
// its new desired configs also carries the Progressing condition its works
// give for them, so the progress reconciler has nothing left to write: one
// write where OCM's add-on manager sends two. An add-on never deployed
// waits for its manifests (WaitingForManifestApplied, as OCM says before
// anything is applied); one whose work already carries the new configs,
// applied, is Completed at once with them as last applied.
func TestAddonReconcileStartWritesProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		deployed    bool
		reason      string
		lastApplied bool
	}{
		{"never deployed", false, "WaitingForManifestApplied", false},
		{"work already rendered", true, addonv1beta1.ProgressingReasonCompleted, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
			dev := hubtest.FreshAddon("dev-cluster", hubtest.SeedAddonName)
			objs := hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfg}, hubtest.SeedPlacement(t),
				hubtest.FreshAddons(hubtest.SeedAddonName, "stg-cluster", "prod-cluster"))
			refs := []addonv1beta1.ConfigReference{{ConfigGroupResource: hubtest.ProxyGR, DesiredConfig: &addonv1beta1.ConfigSpecHash{
				ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: hubtest.SpecHashOf(t, cfg)}}}
			if tc.deployed {
				dev.Status.Conditions = hubtest.RolledOut().Status.Conditions[:1] // ManifestApplied True
				objs = append(objs, hubtest.DeployWork(t, refs))
			}
			objs = append(objs, dev)
			h := hubtest.NewAddonHub(t, hubclient.V1alpha1, nil, objs...)
			devWrites := 0
			h.Client = interceptor.NewClient(h.Client.(client.WithWatch), interceptor.Funcs{
				SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					if obj.GetNamespace() == "dev-cluster" && obj.GetName() == hubtest.SeedAddonName {
						devWrites++
					}
					return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				},
			})
			_, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, 1, devWrites, "writes to dev's add-on")
			m := h.Addon("dev-cluster", hubtest.SeedAddonName)
			assert.Equal(t, hubtest.SpecHashOf(t, cfg), hubtest.DesiredHash(t, m))
			cond := meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, cond, "the start write carries no Progressing condition")
			assert.Equal(t, tc.reason, cond.Reason)
			assert.Equal(t, metav1.NewTime(hubtest.Start).Unix(), cond.LastTransitionTime.Unix())
			if tc.lastApplied {
				require.NotNil(t, m.Status.ConfigReferences[0].LastAppliedConfig)
				assert.Equal(t, hubtest.SpecHashOf(t, cfg), m.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)
			} else {
				assert.Nil(t, m.Status.ConfigReferences[0].LastAppliedConfig)
			}

			_, err = (&progress.ProgressReconciler{Client: h.Client, Clock: clockfake.New(hubtest.Start), Version: h.Version}).Reconcile(context.Background(),
				ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "dev-cluster", Name: hubtest.SeedAddonName}})
			require.NoError(t, err)
			assert.Equal(t, 1, devWrites, "the progress reconciler wrote after the start write")
		})
	}
}

// TestAddonReconcileWaitingWritesInBatches: a rollout's first step starts
// its first group and turns every other add-on's Configured condition
// False; of those flips one reconcile writes waitingWrites at most, after
// the starts, and asks to run again within waitingRetry; the next writes
// the rest, and then waits for the first group's deadline.
func TestAddonReconcileWaitingWritesInBatches(t *testing.T) {
	t.Parallel()
	cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
	first := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: hubtest.SeedRef.Namespace, Name: hubtest.SeedRef.Name + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: hubtest.SeedRef.Name, clusterv1beta1.DecisionGroupIndexLabel: "0", clusterv1beta1.DecisionGroupNameLabel: "dev"}},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "dev-0000"}}}}
	rest := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: hubtest.SeedRef.Namespace, Name: hubtest.SeedRef.Name + "-decision-2",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: hubtest.SeedRef.Name, clusterv1beta1.DecisionGroupIndexLabel: "1", clusterv1beta1.DecisionGroupNameLabel: "prod"}}}
	waiting := make([]string, waitingWrites+50)
	for i := range waiting {
		waiting[i] = fmt.Sprintf("prod-%04d", i)
		rest.Status.Decisions = append(rest.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: waiting[i]})
	}
	h := hubtest.NewAddonHub(t, hubclient.V1alpha1, nil, hubtest.HubObjects(
		[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfg, hubtest.PlacementIn(hubtest.SeedRef.Namespace, hubtest.SeedRef.Name), first, rest},
		hubtest.FreshAddons(hubtest.SeedAddonName, append([]string{"dev-0000"}, waiting...)...))...)
	r := newAddonReconciler(h, clockfake.New(hubtest.Start), nil)
	flipped := func() int {
		n := 0
		for _, c := range waiting {
			if hubtest.ConfiguredStatus(h.Addon(c, hubtest.SeedAddonName)) == metav1.ConditionFalse {
				n++
			}
		}
		return n
	}

	res, err := reconcileAddon(r, hubtest.SeedAddonName)
	require.NoError(t, err)
	assert.Equal(t, hubtest.SpecHashOf(t, cfg), hubtest.DesiredHash(t, h.Addon("dev-0000", hubtest.SeedAddonName)), "the first group did not start")
	assert.Equal(t, waitingWrites, flipped())
	assert.Equal(t, waitingRetry, res.RequeueAfter)

	res, err = reconcileAddon(r, hubtest.SeedAddonName)
	require.NoError(t, err)
	assert.Equal(t, len(waiting), flipped())
	assert.Equal(t, 15*time.Minute, res.RequeueAfter, "the first group's progress deadline")
}

// TestAddonReconcileWriteErrorsAllKept: when some add-on writes fail, the
// others are still made, and the reconcile's error and its Warning event
// name every failure, not only the first.
func TestAddonReconcileWriteErrorsAllKept(t *testing.T) {
	t.Parallel()
	failing := map[string]bool{"stg-cluster": true, "prod-cluster": true}
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, func(_ client.Client, verb string, obj client.Object) error {
		if verb == "status patch" && failing[obj.GetNamespace()] {
			return fmt.Errorf("refused %s", obj.GetNamespace())
		}
		return nil
	}, hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")},
		hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
	rec := events.NewFakeRecorder(10)
	_, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), rec), hubtest.SeedAddonName)
	require.Error(t, err)
	assert.ErrorContains(t, err, "refused stg-cluster")
	assert.ErrorContains(t, err, "refused prod-cluster")
	assert.NotEmpty(t, hubtest.DesiredHash(t, h.Addon("dev-cluster", hubtest.SeedAddonName)), "dev's write was not made")
	require.Len(t, rec.Events, 1)
	event := <-rec.Events
	assert.Contains(t, event, "refused stg-cluster")
	assert.Contains(t, event, "refused prod-cluster")
}

// TestAddonReconcileConflictStopsFanOut: a write refused as a conflict
// says the cache is behind, and so are the writes computed from it. The
// first write of a step goes alone, and a refusal of it sends nothing
// else; a refusal later stops the writes not yet sent, so that only those
// in flight with it (addonWriters at most) are sent, and the reconcile
// returns the conflict.
func TestAddonReconcileConflictStopsFanOut(t *testing.T) {
	t.Parallel()
	clusters := make([]string, 3*addonWriters)
	for i := range clusters {
		clusters[i] = fmt.Sprintf("dev-%04d", i)
	}
	decision := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: hubtest.SeedRef.Namespace, Name: hubtest.SeedRef.Name + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: hubtest.SeedRef.Name, clusterv1beta1.DecisionGroupIndexLabel: "0", clusterv1beta1.DecisionGroupNameLabel: "dev"}}}
	for _, c := range clusters {
		decision.Status.Decisions = append(decision.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	for _, tc := range []struct {
		name      string
		refuse    func(n int32) bool // whether the n-th write sent (from 1) is refused
		most      int32              // writes sent, at most
		refusedIn int                // reconciles refused in a row before the writes go through
	}{
		{"the probe refused", func(int32) bool { return true }, 1, 3},
		{"a later write refused", func(n int32) bool { return n == 2 }, 1 + addonWriters, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int32
			var refusing atomic.Bool
			refusing.Store(true)
			refused := make(chan struct{})
			var once sync.Once
			h := hubtest.NewAddonHub(t, hubclient.V1beta1, func(_ client.Client, verb string, obj client.Object) error {
				if verb != "status patch" || obj.GetNamespace() == "" || !refusing.Load() {
					return nil // not an add-on's (the ClusterManagementAddOn's progressions), or not refused
				}
				n := sent.Add(1)
				if tc.refuse(n) {
					once.Do(func() { close(refused) })
					return apierrors.NewConflict(schema.GroupResource{Group: "addon.open-cluster-management.io", Resource: "managedclusteraddons"},
						obj.GetName(), errors.New("the object has been modified"))
				}
				if n > 1 {
					// in flight while the refusal is answered, and slower than
					// it, as on an API server under load
					<-refused
					time.Sleep(50 * time.Millisecond)
				}
				return nil
			}, hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"),
				hubtest.PlacementIn(hubtest.SeedRef.Namespace, hubtest.SeedRef.Name), decision}, hubtest.FreshAddons(hubtest.SeedAddonName, clusters...))...)
			r := newAddonReconciler(h, clockfake.New(hubtest.Start), nil)
			for i := range tc.refusedIn {
				sent.Store(0)
				_, err := reconcileAddon(r, hubtest.SeedAddonName)
				require.Error(t, err)
				assert.True(t, onlyConflicts(err), "reconcile %d: not a conflict: %v", i, err)
				assert.LessOrEqual(t, sent.Load(), tc.most, "writes sent by reconcile %d", i)
			}
			refusing.Store(false)
			_, err := reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			for _, c := range clusters {
				assert.NotEmpty(t, hubtest.DesiredHash(t, h.Addon(c, hubtest.SeedAddonName)), "%s did not start", c)
			}
		})
	}
}

// TestRateLimiter: a reconcile that fails in a row retries after a delay
// doubling from conflictRetry to maxConflictRetry, and one that succeeds
// starts it over.
func TestRateLimiter(t *testing.T) {
	t.Parallel()
	rl := rateLimiter()
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: hubtest.SeedAddonName}}
	for _, want := range []time.Duration{conflictRetry, 2 * conflictRetry, 4 * conflictRetry} {
		assert.Equal(t, want, rl.When(req))
	}
	for range 10 {
		rl.When(req)
	}
	assert.Equal(t, maxConflictRetry, rl.When(req))
	rl.Forget(req)
	assert.Equal(t, conflictRetry, rl.When(req))
}
