package placement_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// richHub is a hub that exercises every part of the scheduler: sets of
// both kinds, bindings in two namespaces, taints of every effect (some
// tolerated for a while), scores (some expired), and decisions of the
// Placement and of others.
func richHub(r *rand.Rand, now time.Time) placement.Hub {
	envs, regions, sets := []string{"dev", "stg", "prod"}, []string{"eu", "us", "ap"}, []string{"a", "b"}
	effects := []clusterv1.TaintEffect{clusterv1.TaintEffectNoSelect, clusterv1.TaintEffectNoSelectIfNew, clusterv1.TaintEffectPreferNoSelect}
	var hub placement.Hub
	for i := range 60 {
		c := mc(fmt.Sprintf("c-%02d", i), "env="+envs[r.IntN(3)], "region="+regions[r.IntN(3)],
			clusterv1beta2.ClusterSetLabel+"="+sets[r.IntN(2)])
		withClaims(c, "platform="+[]string{"AWS", "GCP"}[r.IntN(2)])
		withResources(c, fmt.Sprint(1+r.IntN(8)), "8", fmt.Sprintf("%dGi", 1+r.IntN(8)), "8Gi")
		for range r.IntN(3) {
			tainted(c, taint([]string{unreachable, "gpu"}[r.IntN(2)], "", effects[r.IntN(3)], now.Add(-time.Duration(r.IntN(600))*time.Second)))
		}
		hub.Clusters = append(hub.Clusters, c)
		if r.IntN(2) == 0 {
			hub.Scores = append(hub.Scores, score(c.Name, "load", now.Add(time.Duration(r.IntN(7200)-3600)*time.Second), item("free", int32(r.IntN(201)-100))))
		}
	}
	hub.ClusterSets = []*clusterv1beta2.ManagedClusterSet{
		exclusiveSet("a"), exclusiveSet("b"), selectorSet("prod", &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}),
	}
	hub.Bindings = []*clusterv1beta2.ManagedClusterSetBinding{binding("ns", "a"), binding("ns", "prod"), binding("other", "b")}
	hub.Decisions = []*clusterv1beta1.PlacementDecision{
		placementDecision("ns", "p", "c-01", "c-02", "c-03", "c-40"), placementDecision("ns", "q", "c-04", "c-05", "c-01"),
	}
	return hub
}

// richPlacement uses every part of the spec.
func richPlacement() *clusterv1beta1.Placement {
	p := newPlacement(intstr.FromString("30%"), []clusterv1beta1.ClusterPredicate{
		labelPredicate("env=prod"), claimPredicate("platform", metav1.LabelSelectorOpIn, "AWS"),
	}, envGroup("prod"), envGroup("dev"))
	p.Spec.NumberOfClusters = ptr.To(int32(12))
	p.Spec.Tolerations = []clusterv1beta1.Toleration{
		toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 300),
		toleration("gpu", clusterv1beta1.TolerationOpExists, "", clusterv1.TaintEffectNoSelectIfNew, -1),
	}
	p.Spec.PrioritizerPolicy.Configurations = []clusterv1beta1.PrioritizerConfig{
		addOnConfig("load", "free", 2), builtInConfig("ResourceAllocatableMemory", 1),
	}
	p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{
		term("region", clusterv1beta1.TopologyKeyTypeLabel, 2, clusterv1beta1.ScheduleAnyway),
	}
	return p
}

func copyHub(h placement.Hub) placement.Hub {
	out := placement.Hub{}
	for _, o := range h.Clusters {
		out.Clusters = append(out.Clusters, o.DeepCopy())
	}
	for _, o := range h.ClusterSets {
		out.ClusterSets = append(out.ClusterSets, o.DeepCopy())
	}
	for _, o := range h.Bindings {
		out.Bindings = append(out.Bindings, o.DeepCopy())
	}
	for _, o := range h.Scores {
		out.Scores = append(out.Scores, o.DeepCopy())
	}
	for _, o := range h.Decisions {
		out.Decisions = append(out.Decisions, o.DeepCopy())
	}
	return out
}

func TestScheduleHubDoesNotModifyInputs(t *testing.T) {
	t.Parallel()
	now := seedTime()
	hub, p := richHub(rand.New(rand.NewPCG(1, 2)), now), richPlacement()
	wantHub, wantP := copyHub(hub), p.DeepCopy()
	order := slices.Clone(hub.Clusters)
	res, err := placement.Scheduler{Clock: fake.New(now)}.ScheduleHub(p, hub)
	require.NoError(t, err)
	require.NotEmpty(t, res.Clusters)
	assert.Equal(t, wantHub, hub)
	assert.Equal(t, wantP, p)
	assert.Equal(t, order, hub.Clusters, "cluster order changed")

	// The result shares nothing writable with the inputs.
	res.Decisions[0].Labels["x"] = "y"
	res.Status.Conditions[0].Message = "changed"
	assert.Equal(t, wantHub, hub)
	assert.Equal(t, wantP, p)
}

func TestScheduleHubOrderIndependent(t *testing.T) {
	t.Parallel()
	now := seedTime()
	r := rand.New(rand.NewPCG(5, 6))
	hub, p := richHub(r, now), richPlacement()
	s := placement.Scheduler{Clock: fake.New(now)}
	want, err := s.ScheduleHub(p, hub)
	require.NoError(t, err)
	require.NotEmpty(t, want.Clusters)
	require.NotZero(t, want.RecheckAfter)
	shuffle := func(n int, swap func(i, j int)) { r.Shuffle(n, swap) }
	for range 5 {
		h := copyHub(hub)
		shuffle(len(h.Clusters), func(i, j int) { h.Clusters[i], h.Clusters[j] = h.Clusters[j], h.Clusters[i] })
		shuffle(len(h.ClusterSets), func(i, j int) { h.ClusterSets[i], h.ClusterSets[j] = h.ClusterSets[j], h.ClusterSets[i] })
		shuffle(len(h.Bindings), func(i, j int) { h.Bindings[i], h.Bindings[j] = h.Bindings[j], h.Bindings[i] })
		shuffle(len(h.Scores), func(i, j int) { h.Scores[i], h.Scores[j] = h.Scores[j], h.Scores[i] })
		shuffle(len(h.Decisions), func(i, j int) { h.Decisions[i], h.Decisions[j] = h.Decisions[j], h.Decisions[i] })
		got, err := s.ScheduleHub(p, h)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// TestScheduleCELRefused: a CEL selector is an error naming the field, with
// an empty Result, from both entry points, alongside the other problems.
func TestScheduleCELRefused(t *testing.T) {
	t.Parallel()
	p := newPlacement(intstr.FromString("x"), []clusterv1beta1.ClusterPredicate{
		labelPredicate("env=prod"),
		{RequiredClusterSelector: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.metadata.name != "x"`},
		}}},
	})
	for name, run := range map[string]func() (placement.Result, error){
		"Schedule":    func() (placement.Result, error) { return placement.Schedule(p, []*clusterv1.ManagedCluster{mc("a")}) },
		"ScheduleHub": func() (placement.Result, error) { return placement.ScheduleHub(p, globalHub(mc("a"))) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := run()
			require.Error(t, err)
			assert.Equal(t, placement.Result{}, res)
			var fe *field.Error
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, "spec.predicates[1].requiredClusterSelector.celSelector.celExpressions", fe.Field)
			assert.Equal(t, field.ErrorTypeForbidden, fe.Type)
			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, 2, "%v", err)
			assert.Contains(t, problems[0].Error(), `spec.predicates[1].requiredClusterSelector.celSelector.celExpressions: Forbidden: `)
			assert.Equal(t, `spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "x": want a positive integer or a percentage 1%-100%`, problems[1].Error())
		})
	}
}

// TestScheduleIsScheduleHubOnTheGlobalSet: Schedule is ScheduleHub with
// every cluster bound through the global set and no decisions, whatever
// spec.clusterSets says.
func TestScheduleIsScheduleHubOnTheGlobalSet(t *testing.T) {
	t.Parallel()
	now := seedTime()
	hub, p := richHub(rand.New(rand.NewPCG(7, 8)), now), richPlacement()
	s := placement.Scheduler{Clock: fake.New(now)}
	want, err := s.ScheduleHub(p, globalHub(hub.Clusters...))
	require.NoError(t, err)
	p.Spec.ClusterSets = []string{"elsewhere"}
	got, err := s.Schedule(p, hub.Clusters)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
