package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/seed"
)

// TestUnreachableCluster: once the add-on is installed everywhere,
// stg-cluster goes offline and OCM's registration controller taints it
// unreachable. The Placement drops it from its decisions, and a new config
// rolls out over dev and then prod without waiting for it. Its agent would
// fail the new config and the failure budget is 0, so a rollout that still
// counted stg-cluster would halt before prod. Its add-on, which no
// placement selects any more, is deleted, as OCM's add-on manager deletes
// it; it never has the new hash.
func TestUnreachableCluster(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "30s")
	e.controller(t)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.agents(t, applyTime, failingOn(e.stg, newHash))
	e.installed(t, o, e.addonName, oldHash, 60*time.Second)

	e.taint(t, e.stg, clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnreachable,
		Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.Now()})
	// The reconciler writes the decisions first and the Placement's status
	// after them, so the two are read until both show stg gone.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var groups []string
		for _, g := range e.placementIn(ct, e.namespace, seedPlacement).Status.DecisionGroups {
			groups = append(groups, fmt.Sprintf("%d:%s", g.DecisionGroupIndex, g.DecisionGroupName))
		}
		assert.Equal(ct, []string{e.dev, e.prod}, e.decided(ct, e.namespace, seedPlacement), "decided")
		assert.Equal(ct, []string{"0:dev", "1:prod"}, groups, "decision groups")
	}, 30*time.Second, poll, "stg-cluster dropped from the decisions and the decision groups")

	ob := e.observe(t, o.Clusters(), e.addonName, newHash)
	e.setAgentImage(t, newImage)
	e.installedOn(t, []string{e.dev, e.prod}, e.addonName, newHash, 60*time.Second)
	ob.close()
	e.requireOrder(t, ob, e.addonName, e.dev, e.prod)
	assert.NotContains(t, ob.desired[e.stg], newHash, "stg-cluster's desiredConfig was written with the new config")
	// A cluster no placement selects loses its add-on, as in OCM.
	assert.False(t, e.addon(t, e.stg, e.addonName).exists, "stg-cluster's add-on was kept")
	// Its work stays as it was: a bare API server has no garbage collector
	// to delete it with its add-on.
	assert.Equal(t, oldHash, e.works(t, e.addonName)[e.stg].target, "stg-cluster's work got the new config")
}

// TestClusterSetsAndTolerations runs the Placement reconciler alone on the
// seed's hub (the test's cluster set, bound in the seed Placement's
// namespace) and schedules two more Placements in parallel: one in a
// namespace without a binding, and one kept on a tainted cluster by a
// toleration that expires.
func TestClusterSetsAndTolerations(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	seedHub(t, e, "30s")
	unbound := e.ownNamespace("unbound")
	e.placements(t)
	t.Run("no binding", func(t *testing.T) {
		t.Parallel()
		e.noBinding(t, unbound)
	})
	t.Run("toleration expires", func(t *testing.T) {
		t.Parallel()
		e.tolerationExpires(t)
	})
}

// noBinding: a Placement in namespace ns, which has no
// ManagedClusterSetBinding, selects nothing and says so with OCM's reason;
// once the test's cluster set is bound there, it selects the seed's three
// clusters.
func (e *env) noBinding(t *testing.T, ns string) {
	ctx := context.Background()
	p, err := seed.Placement()
	require.NoError(t, err)
	p.Namespace = ns
	require.NoError(t, e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	require.NoError(t, e.c.Create(ctx, p))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		c := meta.FindStatusCondition(e.placementIn(ct, ns, p.Name).Status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
		require.NotNil(ct, c, "no condition")
		assert.Equal(ct, metav1.ConditionFalse, c.Status, "%s %s: %s", c.Status, c.Reason, c.Message)
		assert.Equal(ct, "NoManagedClusterSetBindings", c.Reason, "%s %s: %s", c.Status, c.Reason, c.Message)
	}, 30*time.Second, poll, "PlacementSatisfied False, NoManagedClusterSetBindings")
	assert.Empty(t, e.decided(t, ns, p.Name), "clusters decided without a binding")
	assert.Zero(t, e.placementIn(t, ns, p.Name).Status.NumberOfSelectedClusters)

	require.NoError(t, e.c.Create(ctx, e.binding(ns)))
	want := []string{e.dev, e.prod, e.stg}
	slices.Sort(want)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Equal(ct, want, e.decided(ct, ns, p.Name))
	}, 30*time.Second, poll, "the seed's clusters decided once the cluster set is bound")
}

// tolerationExpires: a Placement tolerates the unreachable taint of
// edge-1 for a few seconds from the taint's timeAdded. It selects edge-1,
// then drops it when the toleration expires. Nothing on the hub changes
// then: only the reconciler's own recheck can drop it.
func (e *env) tolerationExpires(t *testing.T) {
	ctx := context.Background()
	const tolerated = 8 // seconds: long enough for a loaded machine to select it first
	// timeAdded is stored to the second: this is the time the hub keeps.
	added := time.Now().Truncate(time.Second)
	expiry := added.Add(tolerated * time.Second)
	mc := &clusterv1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: e.named("edge-1"), Labels: e.clusterLabels(map[string]string{"tier": "edge"})},
		Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true, Taints: []clusterv1.Taint{{
			Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.NewTime(added),
		}}},
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.namespace, Name: "edge"},
		Spec: clusterv1beta1.PlacementSpec{
			Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"tier": "edge"}},
			}}},
			Tolerations: []clusterv1beta1.Toleration{{Key: clusterv1.ManagedClusterTaintUnreachable,
				Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr.To[int64](tolerated)}},
		},
	}
	require.NoError(t, e.c.Create(ctx, mc))
	require.NoError(t, e.c.Create(ctx, p))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Equal(ct, []string{mc.Name}, e.decided(ct, e.namespace, p.Name))
	}, time.Until(expiry), poll, "edge-1 selected while tolerated")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Empty(ct, e.decided(ct, e.namespace, p.Name))
	}, time.Until(expiry)+5*time.Second, poll, "edge-1 dropped when the toleration expires")
	seen := time.Now()
	assert.False(t, seen.Before(expiry), "edge-1 dropped by %s, before its toleration expired at %s",
		seen.Format("15:04:05.000"), expiry.Format("15:04:05.000"))
}

// taint adds a taint to a ManagedCluster, as OCM's registration
// controller does.
func (e *env) taint(t tb, cluster string, taint clusterv1.Taint) {
	t.Helper()
	var mc clusterv1.ManagedCluster
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: cluster}, &mc))
	next := mc.DeepCopy()
	next.Spec.Taints = append(next.Spec.Taints, taint)
	require.NoError(t, e.c.Patch(context.Background(), next, client.MergeFromWithOptions(&mc, client.MergeFromWithOptimisticLock{})))
}

// decided returns the clusters in the PlacementDecisions of a Placement,
// sorted.
func (e *env) decided(t tb, namespace, name string) []string {
	t.Helper()
	var l clusterv1beta1.PlacementDecisionList
	require.NoError(t, e.c.List(context.Background(), &l, client.InNamespace(namespace),
		client.MatchingLabels{clusterv1beta1.PlacementLabel: name}))
	var out []string
	for _, d := range l.Items {
		for _, cd := range d.Status.Decisions {
			out = append(out, cd.ClusterName)
		}
	}
	slices.Sort(out)
	return out
}

// placementIn reads a Placement.
func (e *env) placementIn(t tb, namespace, name string) *clusterv1beta1.Placement {
	t.Helper()
	var p clusterv1beta1.Placement
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, &p))
	return &p
}
