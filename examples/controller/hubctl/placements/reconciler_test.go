package placements

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
)

func unreachableSince(at time.Time) clusterv1.Taint {
	return clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.NewTime(at)}
}

func globalSet() *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "global"},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{}}}}
}

func binding(namespace, set string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: set},
		Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set}}
}

func tolerating(seconds int64) func(*clusterv1beta1.Placement) {
	return func(p *clusterv1beta1.Placement) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, clusterv1beta1.Toleration{
			Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: &seconds})
	}
}

func scoring(resource string) func(*clusterv1beta1.Placement) {
	return func(p *clusterv1beta1.Placement) {
		p.Spec.PrioritizerPolicy.Configurations = append(p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
			ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn,
				AddOn: &clusterv1beta1.AddOnScore{ResourceName: resource, ScoreName: "score"}},
			Weight: 1,
		})
	}
}

func withCEL(p *clusterv1beta1.Placement) {
	p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.metadata.name == "a"`}}}}}
}

// decided returns the clusters in a Placement's PlacementDecisions, sorted.
func decided(t *testing.T, c client.Reader, p *clusterv1beta1.Placement) []string {
	t.Helper()
	var l clusterv1beta1.PlacementDecisionList
	require.NoError(t, c.List(context.Background(), &l, client.InNamespace(p.Namespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: p.Name}))
	out := []string{}
	for _, d := range l.Items {
		for _, cd := range d.Status.Decisions {
			out = append(out, cd.ClusterName)
		}
	}
	slices.Sort(out)
	return out
}

func reconcileOnce(t *testing.T, r *PlacementReconciler, p *clusterv1beta1.Placement) (ctrl.Result, error) {
	t.Helper()
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
}

// TestPlacementReconcile schedules one Placement against a hub with the
// global set bound in namespace "ns" and clusters a and b, b unreachable
// for 20s.
func TestPlacementReconcile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		placement *clusterv1beta1.Placement
		want      []string
		reason    string
		recheck   time.Duration
	}{
		{name: "a taint drops its cluster", placement: hubtest.PlacementIn("ns", "p"),
			want: []string{"a"}, reason: "AllDecisionsScheduled"},
		{name: "a toleration keeps its cluster, and the reconcile comes back when it expires", placement: hubtest.PlacementIn("ns", "p", tolerating(60)),
			want: []string{"a", "b"}, reason: "AllDecisionsScheduled", recheck: 40 * time.Second},
		{name: "no binding in the namespace: nothing selected", placement: hubtest.PlacementIn("unbound", "p"),
			want: []string{}, reason: "NoManagedClusterSetBindings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := hubtest.FakeHub(t, hubtest.Cluster("a"), hubtest.Cluster("b", unreachableSince(hubtest.Start.Add(-20*time.Second))),
				globalSet(), binding("ns", "global"), tc.placement)
			r := &PlacementReconciler{Client: c, Clock: clockfake.New(hubtest.Start)}
			res, err := reconcileOnce(t, r, tc.placement)
			require.NoError(t, err)
			assert.Equal(t, tc.recheck, res.RequeueAfter)
			assert.Equal(t, tc.want, decided(t, c, tc.placement))
			var p clusterv1beta1.Placement
			require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(tc.placement), &p))
			sat := meta.FindStatusCondition(p.Status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
			require.NotNil(t, sat)
			assert.Equal(t, tc.reason, sat.Reason)
		})
	}
}

// TestPlacementSchedulingDisabled: a Placement annotated
// experimental-scheduling-disable "true" is left to another scheduler, as
// OCM's controller leaves it: no decision and no status is written.
func TestPlacementSchedulingDisabled(t *testing.T) {
	t.Parallel()
	p := hubtest.PlacementIn("ns", "p")
	p.Annotations = map[string]string{clusterv1beta1.PlacementDisableAnnotation: "true"}
	c := hubtest.FakeHub(t, hubtest.Cluster("a"), globalSet(), binding("ns", "global"), p)
	r := &PlacementReconciler{Client: c, Clock: clockfake.New(hubtest.Start)}
	res, err := reconcileOnce(t, r, p)
	require.NoError(t, err)
	assert.Zero(t, res)
	assert.Empty(t, decided(t, c, p))
	var got clusterv1beta1.Placement
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(p), &got))
	assert.Empty(t, got.Status.Conditions)

	got.Annotations = nil
	require.NoError(t, c.Update(context.Background(), &got))
	_, err = reconcileOnce(t, r, p)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, decided(t, c, p), "without the annotation the Placement is scheduled")
}

// TestPlacementRecheck: when the toleration expires, the reconcile the
// first one asked for drops the cluster, and asks for no other.
func TestPlacementRecheck(t *testing.T) {
	t.Parallel()
	p := hubtest.PlacementIn("ns", "p", tolerating(60))
	c := hubtest.FakeHub(t, hubtest.Cluster("a"), hubtest.Cluster("b", unreachableSince(hubtest.Start.Add(-20*time.Second))), globalSet(), binding("ns", "global"), p)
	clk := clockfake.New(hubtest.Start)
	r := &PlacementReconciler{Client: c, Clock: clk}
	res, err := reconcileOnce(t, r, p)
	require.NoError(t, err)
	require.Equal(t, 40*time.Second, res.RequeueAfter)
	clk.Step(res.RequeueAfter)
	res, err = reconcileOnce(t, r, p)
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter)
	assert.Equal(t, []string{"a"}, decided(t, c, p))
}

// TestDecisionsNeverHoldAClusterTwice: stg's only cluster is tainted, the
// stg group empties and prod's cluster moves from the third decision to
// the second. After every write the reconciler sends, no cluster is in two
// decisions of the Placement.
func TestDecisionsNeverHoldAClusterTwice(t *testing.T) {
	t.Parallel()
	labelled := func(name, env string) *clusterv1.ManagedCluster {
		mc := hubtest.Cluster(name)
		mc.Labels = map[string]string{"env": env}
		return mc
	}
	p := hubtest.PlacementIn("ns", "p", func(p *clusterv1beta1.Placement) {
		for _, env := range []string{"dev", "stg", "prod"} {
			p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups = append(p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups,
				clusterv1beta1.DecisionGroup{GroupName: env, ClusterSelector: clusterv1beta1.GroupClusterSelector{
					LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": env}}}})
		}
	})
	var twice []string
	writes := 0
	check := func(ctx context.Context, c client.Client) {
		writes++
		var l clusterv1beta1.PlacementDecisionList
		require.NoError(t, c.List(ctx, &l, client.InNamespace("ns")))
		seen := map[string]string{}
		for _, d := range l.Items {
			for _, cd := range d.Status.Decisions {
				if other, ok := seen[cd.ClusterName]; ok {
					twice = append(twice, fmt.Sprintf("write %d: %s in %s and %s", writes, cd.ClusterName, other, d.Name))
				}
				seen[cd.ClusterName] = d.Name
			}
		}
	}
	c := hubtest.FakeHubBuilder(t, labelled("d", "dev"), labelled("s", "stg"), labelled("x", "prod"), globalSet(), binding("ns", "global"), p).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				err := c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				check(ctx, c)
				return err
			},
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				err := c.Delete(ctx, obj, opts...)
				check(ctx, c)
				return err
			},
		}).Build()
	r := &PlacementReconciler{Client: c, Clock: clockfake.New(hubtest.Start)}
	_, err := reconcileOnce(t, r, p)
	require.NoError(t, err)
	require.Equal(t, []string{"d", "s", "x"}, decided(t, c, p))

	var s clusterv1.ManagedCluster
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: "s"}, &s))
	s.Spec.Taints = []clusterv1.Taint{unreachableSince(hubtest.Start)}
	require.NoError(t, c.Update(context.Background(), &s))
	before := writes
	_, err = reconcileOnce(t, r, p)
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "x"}, decided(t, c, p))
	var l clusterv1beta1.PlacementDecisionList
	require.NoError(t, c.List(context.Background(), &l, client.InNamespace("ns")))
	assert.Len(t, l.Items, 2, "the third decision is deleted")
	assert.Greater(t, writes, before, "nothing was written")
	assert.Empty(t, twice)
}

// TestPlacementCEL: a Placement with a celSelector is not scheduled. The
// error names the field and is terminal (retrying cannot help until the
// Placement changes), and nothing is written.
func TestPlacementCEL(t *testing.T) {
	t.Parallel()
	p := hubtest.PlacementIn("ns", "p", withCEL)
	c := hubtest.FakeHub(t, hubtest.Cluster("a"), globalSet(), binding("ns", "global"), p)
	r := &PlacementReconciler{Client: c, Clock: clockfake.New(hubtest.Start)}
	_, err := reconcileOnce(t, r, p)
	require.Error(t, err)
	assert.True(t, errors.Is(err, reconcile.TerminalError(nil)), "not terminal: %v", err)
	var fe *field.Error
	require.True(t, errors.As(err, &fe), "no field error in %v", err)
	assert.Equal(t, "spec.predicates[0].requiredClusterSelector.celSelector.celExpressions", fe.Field)
	assert.Empty(t, decided(t, c, p))
	var got clusterv1beta1.Placement
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(p), &got))
	assert.Empty(t, got.Status.Conditions)
}

// TestPlacementWatches: which Placements each watched object enqueues.
func TestPlacementWatches(t *testing.T) {
	t.Parallel()
	c := hubtest.FakeHub(t, hubtest.PlacementIn("a", "plain"), hubtest.PlacementIn("a", "cpu", scoring("cpu")), hubtest.PlacementIn("b", "mem", scoring("mem")))
	r := &PlacementReconciler{Client: c}
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	all := []reconcile.Request{req("a", "cpu"), req("a", "plain"), req("b", "mem")}
	score := func(cluster, name string) client.Object {
		return &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
	}
	decision := func(ns, placement string) client.Object {
		d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: placement + "-decision-1"}}
		if placement != "" {
			d.Labels = map[string]string{clusterv1beta1.PlacementLabel: placement}
		}
		return d
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		got  []reconcile.Request
		want []reconcile.Request
	}{
		{"a cluster: every placement", r.allPlacements(ctx, hubtest.Cluster("x")), all},
		{"a cluster set: every placement", r.allPlacements(ctx, globalSet()), all},
		{"a binding: the placements of its namespace", r.placementsOfBinding(ctx, binding("a", "global")), all[:2]},
		{"a binding where no placement is", r.placementsOfBinding(ctx, binding("c", "global")), nil},
		{"a score: the placements that read it, in any namespace", r.placementsOfScore(ctx, score("x", "mem")), all[2:]},
		{"a score no placement reads", r.placementsOfScore(ctx, score("x", "disk")), nil},
		{"a decision: its placement", placementOfDecision(ctx, decision("a", "plain")), all[1:2]},
		{"a decision without the placement label", placementOfDecision(ctx, decision("a", "")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.ElementsMatch(t, tc.want, tc.got)
		})
	}
}

// TestReadHub: readHub hands the scheduler every object it reads, of
// every namespace.
func TestReadHub(t *testing.T) {
	t.Parallel()
	validUntil := metav1.NewTime(hubtest.Start.Add(time.Hour))
	c := hubtest.FakeHub(t, hubtest.Cluster("a"), hubtest.Cluster("b"), globalSet(), binding("ns", "global"), binding("other", "global"),
		&clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "cpu"},
			Status: clusterv1alpha1.AddOnPlacementScoreStatus{ValidUntil: ptr.To(validUntil)}},
		&clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p-decision-1"}},
		&clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "q-decision-1"}})
	h, err := hubclient.ReadPlacementHub(context.Background(), c)
	require.NoError(t, err)
	assert.Len(t, h.Clusters, 2)
	assert.Len(t, h.ClusterSets, 1)
	assert.Len(t, h.Bindings, 2)
	assert.Len(t, h.Scores, 1)
	assert.Len(t, h.Decisions, 2)
}
