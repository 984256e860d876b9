package placement

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// TestScores checks each prioritizer's score for clusters a, b, c and d
// against the value OCM v1.2.0's plugin computes for the same hub.
func TestScores(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	res := func(alloc, capacity string) clusterv1.ResourceList {
		l := clusterv1.ResourceList{}
		if alloc != "" {
			l[clusterv1.ResourceCPU] = resource.MustParse(alloc)
			l[clusterv1.ResourceMemory] = resource.MustParse("4Gi")
		}
		if capacity != "" {
			l[clusterv1.ResourceCPU] = resource.MustParse(capacity)
			l[clusterv1.ResourceMemory] = resource.MustParse("8Gi")
		}
		return l
	}
	cluster := func(name, alloc, capacity string) *clusterv1.ManagedCluster {
		c := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Status.Allocatable, c.Status.Capacity = res(alloc, ""), res("", capacity)
		return c
	}
	clusters := []*clusterv1.ManagedCluster{cluster("a", "2", "4"), cluster("b", "4", "4"), cluster("c", "8", "8"), cluster("d", "8", "")}
	pd := func(ns, owner string, names ...string) *clusterv1beta1.PlacementDecision {
		d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: owner + "-" + names[0],
			Labels: map[string]string{clusterv1beta1.PlacementLabel: owner}}}
		for _, n := range names {
			d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: n})
		}
		return d
	}
	decisions := []*clusterv1beta1.PlacementDecision{
		pd("ns", "x", "a", "b", "c"), pd("ns", "y", "a", "b"), pd("other", "p", "a"), // others: a 3, b 2, c 1
		pd("ns", "p", "b", "d"), // the Placement's own: Steady, not Balance
	}
	until := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	score := func(ns, name string, vu *metav1.Time, items ...clusterv1alpha1.AddOnPlacementScoreItem) *clusterv1alpha1.AddOnPlacementScore {
		s := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		s.Status.ValidUntil, s.Status.Scores = vu, items
		return s
	}
	scoresIn := []*clusterv1alpha1.AddOnPlacementScore{
		score("a", "load", nil, clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: 10}, clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: 30}),
		score("b", "load", until(-time.Second), clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: 90}),
		score("c", "other", nil, clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: 50}),
		score("d", "load", until(time.Hour), clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: -7}),
		score("e", "load", until(time.Minute), clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: 1}), // no such cluster
	}
	p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	f, errs := readFleet(p, clusters, decisions, scoresIn, false)
	require.Empty(t, errs)
	feasible := []int{0, 1, 2, 3}

	tests := []struct {
		name    string
		ps      []prioritizer
		want    []int64
		expires time.Time
	}{
		// usage 3/3, 2/3, 1/3, none: 2*int64(100*(0.5-usage)).
		{"Balance", []prioritizer{{kind: balance, weight: 1}}, []int64{-100, -32, 32, 100}, time.Time{}},
		{"Steady", []prioritizer{{kind: steady, weight: 1}}, []int64{0, 100, 0, 100}, time.Time{}},
		// d has no capacity: no score; (4-2)/(8-2) = 1/3 gives -33.
		{"ResourceAllocatableCPU", []prioritizer{{kind: allocatableCPU, weight: 1}}, []int64{-100, -33, 100, 0}, time.Time{}},
		{"ResourceAllocatableMemory: all equal", []prioritizer{{kind: allocatableMemory, weight: 1}}, []int64{100, 100, 100, 0}, time.Time{}},
		{
			"AddOn: the last item of the name, expired counts 0, another resource does not count",
			[]prioritizer{{kind: addOnScore, weight: 1, addOn: clusterv1beta1.AddOnScore{ResourceName: "load", ScoreName: "cpu"}}},
			[]int64{30, 0, 0, -7}, now.Add(time.Hour),
		},
		{"weighted sum", []prioritizer{{kind: balance, weight: 2}, {kind: steady, weight: -3}}, []int64{-200, -364, 64, -100}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, expires := scores(&f, tt.ps, feasible, now)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.expires, expires)
		})
	}
}

func TestBest(t *testing.T) {
	t.Parallel()
	feasible := []int{1, 3, 4, 7, 9}
	total := []int64{5, 9, 5, 9, 1}
	for n, want := range map[int][]int{
		0: nil, 1: {3}, 2: {3, 7}, 3: {1, 3, 7}, 4: {1, 3, 4, 7}, 5: feasible, 9: feasible,
	} {
		assert.Equal(t, want, best(feasible, total, n), "n=%d", n)
	}
	assert.Equal(t, []int{3, 7, 1, 4, 9}, rankOrder(feasible, total))
}
