package placement_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// TestSchedulePrioritizers keeps numberOfClusters of a, b, c and d by the
// policy's scores. a and b are in other Placements' decisions (a twice),
// c in the Placement's own; d has the most allocatable CPU, then c, b, a;
// the AddOnPlacementScore "load" rates b highest, a's has expired.
func TestSchedulePrioritizers(t *testing.T) {
	t.Parallel()
	now := seedTime()
	hub := globalHub(
		withResources(mc("a"), "1", "8", "1Gi", "8Gi"),
		withResources(mc("b"), "2", "8", "2Gi", "8Gi"),
		withResources(mc("c"), "4", "8", "2Gi", "8Gi"),
		withResources(mc("d"), "8", "8", "2Gi", "8Gi"),
	)
	hub.Decisions = []*clusterv1beta1.PlacementDecision{
		placementDecision("ns", "other", "a", "b"), placementDecision("ns2", "third", "a"),
		placementDecision("ns", "p", "c"),
	}
	hub.Scores = []*clusterv1alpha1.AddOnPlacementScore{
		score("a", "load", now.Add(-time.Minute), item("free", 100)),
		score("b", "load", now.Add(time.Hour), item("free", 90)),
		score("c", "load", time.Time{}, item("free", 10)),
	}
	exact := func(cs ...clusterv1beta1.PrioritizerConfig) clusterv1beta1.PrioritizerPolicy {
		return clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact, Configurations: cs}
	}
	tests := []struct {
		name    string
		policy  clusterv1beta1.PrioritizerPolicy
		number  int32
		want    []string
		recheck time.Duration
	}{
		// Balance + Steady: a -100, b 0 (+0), c 100+100, d 100.
		{"the defaults: Steady and Balance", clusterv1beta1.PrioritizerPolicy{}, 2, []string{"c", "d"}, 0},
		{"Additive is the defaults", clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeAdditive}, 1, []string{"c"}, 0},
		{"Additive: Steady off, Balance alone ties c and d, c first by name",
			clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{builtInConfig("Steady", 0)}}, 1, []string{"c"}, 0},
		{"Additive: a weight for Steady outweighs Balance",
			clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{builtInConfig("Balance", 1), builtInConfig("Steady", 3)}}, 1, []string{"c"}, 0},
		{"Exact: CPU only", exact(builtInConfig("ResourceAllocatableCPU", 1)), 2, []string{"c", "d"}, 0},
		{"Exact: a negative weight picks the least", exact(builtInConfig("ResourceAllocatableCPU", -1)), 2, []string{"a", "b"}, 0},
		{"Exact: memory, ties by name", exact(builtInConfig("ResourceAllocatableMemory", 1)), 2, []string{"b", "c"}, 0},
		{"Exact: nothing enabled, the first names", exact(), 3, []string{"a", "b", "c"}, 0},
		{"Exact: an AddOn score; a's has expired, b's counts until it expires",
			exact(addOnConfig("load", "free", 1)), 1, []string{"b"}, time.Hour},
		{"Additive plus an AddOn score", clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{addOnConfig("load", "free", 3)}},
			2, []string{"b", "c"}, time.Hour},
		{"numberOfClusters above the candidates: scores are not read", exact(addOnConfig("load", "free", 1)), 9, []string{"a", "b", "c", "d"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Spec.PrioritizerPolicy = tt.policy
			p.Spec.NumberOfClusters = ptr.To(tt.number)
			res, err := placement.Scheduler{Clock: fake.New(now)}.ScheduleHub(p, hub)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Clusters)
			assert.Equal(t, tt.recheck, res.RecheckAfter)
		})
	}
}

func TestSchedulePrioritizerPolicyMisconfigured(t *testing.T) {
	t.Parallel()
	typeless := builtInConfig("Balance", 1)
	typeless.ScoreCoordinate.Type = ""
	addOnless := addOnConfig("x", "y", 2)
	addOnless.ScoreCoordinate.AddOn = nil
	tests := []struct {
		name    string
		policy  clusterv1beta1.PrioritizerPolicy
		paths   []string
		message string // OCM's
	}{
		{"a bad mode", clusterv1beta1.PrioritizerPolicy{Mode: "Best", Configurations: []clusterv1beta1.PrioritizerConfig{{}}},
			[]string{"spec.prioritizerPolicy.mode"}, ":incorrect prioritizer policy mode: Best"},
		{"no scoreCoordinate", clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{builtInConfig("Nope", 1), {Weight: 1}}},
			[]string{"spec.prioritizerPolicy.configurations[0].scoreCoordinate.builtIn", "spec.prioritizerPolicy.configurations[1].scoreCoordinate"},
			":scoreCoordinate field is required"},
		{"an unknown built-in", clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{builtInConfig("Spread", 1)}},
			[]string{"spec.prioritizerPolicy.configurations[0].scoreCoordinate.builtIn"}, ":incorrect builtin prioritizer: Spread"},
		{"AddOn without addOn", clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{addOnless}},
			[]string{"spec.prioritizerPolicy.configurations[0].scoreCoordinate.addOn"}, ":addOn should not be empty"},
		{"an empty type is not BuiltIn to OCM's controller", clusterv1beta1.PrioritizerPolicy{Configurations: []clusterv1beta1.PrioritizerConfig{typeless}},
			[]string{"spec.prioritizerPolicy.configurations[0].scoreCoordinate.type"}, ":addOn should not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Spec.PrioritizerPolicy = tt.policy
			res, err := placement.Scheduler{Clock: fake.New(seedTime())}.Schedule(p, []*clusterv1.ManagedCluster{mc("a")})
			require.Error(t, err)
			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, len(tt.paths), "%v", err)
			for i, pr := range problems {
				var fe *field.Error
				require.True(t, errors.As(pr, &fe), "%v", pr)
				assert.Equal(t, tt.paths[i], fe.Field)
			}
			assert.Nil(t, res.Clusters)
			mis := condition(t, res.Status, clusterv1beta1.PlacementConditionMisconfigured)
			assert.Equal(t, tt.message, mis.Message)
			assert.Equal(t, "NoManagedClusterMatched", condition(t, res.Status, clusterv1beta1.PlacementConditionSatisfied).Reason)
		})
	}
}

// TestSchedulePrioritizerWeights: a configuration sets the weight of its
// coordinate, the last one winning, and a weight of 0 turns a prioritizer
// off, even one OCM would refuse.
func TestSchedulePrioritizerWeights(t *testing.T) {
	t.Parallel()
	p := newPlacement(intstr.IntOrString{}, nil)
	p.Spec.NumberOfClusters = ptr.To(int32(1))
	p.Spec.PrioritizerPolicy.Configurations = []clusterv1beta1.PrioritizerConfig{
		builtInConfig("Nope", 2), builtInConfig("Nope", 0),
		builtInConfig("ResourceAllocatableCPU", -5), builtInConfig("ResourceAllocatableCPU", 5),
	}
	res, err := placement.Schedule(p, []*clusterv1.ManagedCluster{
		withResources(mc("small"), "1", "4", "", ""), withResources(mc("big"), "4", "4", "", ""),
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"big"}, res.Clusters)
}
