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
	"github.com/rolloutkit/rolloutkit/internal/seed"
)

// The seed's Placement.
const (
	seedNamespace = "open-cluster-management"
	seedPlacement = "cluster-proxy-placement"
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
	e := newEnv(t)
	o := seedHub(t, e, "30s")
	e.controller(t)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.agents(t, applyTime, failingOn("stg-cluster", newHash))
	e.installed(t, o, addonName, oldHash, 60*time.Second)

	e.taint(t, "stg-cluster", clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnreachable,
		Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.Now()})
	// The reconciler writes the decisions first and the Placement's status
	// after them, so the two are read until both show stg gone.
	eventually(t, 30*time.Second, "stg-cluster dropped from the decisions and the decision groups", func() (bool, string) {
		got := e.decided(t, seedNamespace, seedPlacement)
		var groups []string
		for _, g := range e.placementIn(t, seedNamespace, seedPlacement).Status.DecisionGroups {
			groups = append(groups, fmt.Sprintf("%d:%s", g.DecisionGroupIndex, g.DecisionGroupName))
		}
		return slices.Equal(got, []string{"dev-cluster", "prod-cluster"}) && slices.Equal(groups, []string{"0:dev", "1:prod"}),
			fmt.Sprintf("decided %v, groups %v", got, groups)
	})

	ob := e.observe(t, o.Clusters(), addonName, newHash)
	require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, newImage))
	e.installedOn(t, []string{"dev-cluster", "prod-cluster"}, addonName, newHash, 60*time.Second)
	ob.close()
	e.requireOrder(t, ob, addonName, "dev-cluster", "prod-cluster")
	assert.NotContains(t, ob.desired["stg-cluster"], newHash, "stg-cluster's desiredConfig was written with the new config")
	// A cluster no placement selects loses its add-on, as in OCM.
	assert.False(t, e.addon(t, "stg-cluster", addonName).exists, "stg-cluster's add-on was kept")
	// Its work stays as it was: a bare API server has no garbage collector
	// to delete it with its add-on.
	assert.Equal(t, oldHash, e.works(t, addonName)["stg-cluster"].target, "stg-cluster's work got the new config")
}

// TestClusterSetsAndTolerations runs the Placement reconciler alone on the
// seed's hub (the global set, bound in the seed Placement's namespace)
// and schedules two more Placements in parallel: one in a namespace
// without a binding, and one kept on a tainted cluster by a toleration
// that expires.
func TestClusterSetsAndTolerations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seedHub(t, e, "30s")
	e.placements(t)
	t.Run("no binding", func(t *testing.T) {
		t.Parallel()
		e.noBinding(t)
	})
	t.Run("toleration expires", func(t *testing.T) {
		t.Parallel()
		e.tolerationExpires(t)
	})
}

// noBinding: a Placement in a namespace with no ManagedClusterSetBinding
// selects nothing and says so with OCM's reason; once the global set is
// bound there, it selects the seed's three clusters.
func (e *env) noBinding(t *testing.T) {
	ctx := context.Background()
	const ns = "unbound"
	p, err := seed.Placement()
	require.NoError(t, err)
	p.Namespace = ns
	require.NoError(t, e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	require.NoError(t, e.c.Create(ctx, p))
	eventually(t, 30*time.Second, "PlacementSatisfied False, NoManagedClusterSetBindings", func() (bool, string) {
		c := meta.FindStatusCondition(e.placementIn(t, ns, p.Name).Status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
		if c == nil {
			return false, "no condition"
		}
		return c.Status == metav1.ConditionFalse && c.Reason == "NoManagedClusterSetBindings", fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	})
	assert.Empty(t, e.decided(t, ns, p.Name), "clusters decided without a binding")
	assert.Zero(t, e.placementIn(t, ns, p.Name).Status.NumberOfSelectedClusters)

	require.NoError(t, e.c.Create(ctx, testhub.GlobalBinding(ns)))
	eventually(t, 30*time.Second, "the seed's clusters decided once the global set is bound", func() (bool, string) {
		got := e.decided(t, ns, p.Name)
		return slices.Equal(got, []string{"dev-cluster", "prod-cluster", "stg-cluster"}), fmt.Sprint(got)
	})
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
		ObjectMeta: metav1.ObjectMeta{Name: "edge-1", Labels: map[string]string{"tier": "edge"}},
		Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true, Taints: []clusterv1.Taint{{
			Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.NewTime(added),
		}}},
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: seedNamespace, Name: "edge"},
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
	eventually(t, time.Until(expiry), "edge-1 selected while tolerated", func() (bool, string) {
		got := e.decided(t, seedNamespace, p.Name)
		return slices.Equal(got, []string{"edge-1"}), fmt.Sprint(got)
	})
	eventually(t, time.Until(expiry)+5*time.Second, "edge-1 dropped when the toleration expires", func() (bool, string) {
		got := e.decided(t, seedNamespace, p.Name)
		return len(got) == 0, fmt.Sprint(got)
	})
	seen := time.Now()
	assert.False(t, seen.Before(expiry), "edge-1 dropped by %s, before its toleration expired at %s",
		seen.Format("15:04:05.000"), expiry.Format("15:04:05.000"))
}

// taint adds a taint to a ManagedCluster, as OCM's registration
// controller does.
func (e *env) taint(t testing.TB, cluster string, taint clusterv1.Taint) {
	t.Helper()
	var mc clusterv1.ManagedCluster
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: cluster}, &mc))
	next := mc.DeepCopy()
	next.Spec.Taints = append(next.Spec.Taints, taint)
	require.NoError(t, e.c.Patch(context.Background(), next, client.MergeFromWithOptions(&mc, client.MergeFromWithOptimisticLock{})))
}

// decided returns the clusters in the PlacementDecisions of a Placement,
// sorted.
func (e *env) decided(t testing.TB, namespace, name string) []string {
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
func (e *env) placementIn(t testing.TB, namespace, name string) *clusterv1beta1.Placement {
	t.Helper()
	var p clusterv1beta1.Placement
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, &p))
	return &p
}
