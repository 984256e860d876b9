package placement_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/placement"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// benchFleet is seed.LargeFleet: the seed's clusters, n of them.
func benchFleet(n int) []*clusterv1.ManagedCluster { return seed.LargeFleet(n) }

// BenchmarkSchedule schedules the seed's Placement (its predicate and its
// three decision groups) over a fleet.
func BenchmarkSchedule(b *testing.B) {
	p := loadSeed(b).placement
	s := placement.Scheduler{Clock: fake.New(seedTime())}
	for _, n := range benchSizes {
		fleet := benchFleet(n)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Schedule(p, fleet); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFloor is the least any scheduler must do for the same input:
// match every cluster once against the predicate and once against each of
// the three group selectors, compiled beforehand, and sort the selected
// names. Schedule should stay within a small factor of it.
func BenchmarkFloor(b *testing.B) {
	p := loadSeed(b).placement
	pred, err := metav1.LabelSelectorAsSelector(&p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector)
	if err != nil {
		b.Fatal(err)
	}
	var groups []labels.Selector
	for _, dg := range p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups {
		sel, err := metav1.LabelSelectorAsSelector(&dg.ClusterSelector.LabelSelector)
		if err != nil {
			b.Fatal(err)
		}
		groups = append(groups, sel)
	}
	for _, n := range benchSizes {
		fleet := benchFleet(n)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			matched := 0
			for b.Loop() {
				names := make([]string, 0, len(fleet))
				for _, c := range fleet {
					set := labels.Set(c.Labels)
					if !pred.Matches(set) {
						continue
					}
					for _, g := range groups {
						if g.Matches(set) {
							matched++
						}
					}
					names = append(names, c.Name)
				}
				slices.Sort(names)
			}
			if matched == 0 {
				b.Fatal("nothing matched")
			}
		})
	}
}

// benchHub is the seed's fleet of n clusters on a hub: each cluster is in
// one of five exclusive cluster sets, four of them bound to the
// Placement's namespace, and has two taints: a gpu taint (NoSelect) that
// the Placement tolerates, and either an unreachable taint (NoSelect, one
// cluster in twenty) that it does not, or a PreferNoSelect one. The
// Placement's own PlacementDecisions hold every third cluster, another
// Placement's every fourth. The Placement is the seed's, asking for half
// the fleet, with the default prioritizers (Balance and Steady).
func benchHub(b *testing.B, n int) (*clusterv1beta1.Placement, placement.Hub) {
	p := loadSeed(b).placement.DeepCopy()
	p.Spec.NumberOfClusters = ptr.To(int32(n / 2))
	p.Spec.Tolerations = []clusterv1beta1.Toleration{{Key: "example.com/gpu", Operator: clusterv1beta1.TolerationOpExists}}
	added := metav1.NewTime(seedTime().Add(-time.Hour))
	var hub placement.Hub
	for i, c := range benchFleet(n) {
		c = c.DeepCopy()
		c.Labels[clusterv1beta2.ClusterSetLabel] = fmt.Sprintf("set-%d", i%5)
		second := clusterv1.Taint{Key: "example.com/spot", Effect: clusterv1.TaintEffectPreferNoSelect, TimeAdded: added}
		if i%20 == 0 {
			second = clusterv1.Taint{Key: "cluster.open-cluster-management.io/unreachable", Effect: clusterv1.TaintEffectNoSelect, TimeAdded: added}
		}
		c.Spec.Taints = []clusterv1.Taint{{Key: "example.com/gpu", Value: "a100", Effect: clusterv1.TaintEffectNoSelect, TimeAdded: added}, second}
		hub.Clusters = append(hub.Clusters, c)
	}
	for i := range 5 {
		hub.ClusterSets = append(hub.ClusterSets, exclusiveSet(fmt.Sprintf("set-%d", i)))
		if i < 4 {
			hub.Bindings = append(hub.Bindings, binding(p.Namespace, fmt.Sprintf("set-%d", i)))
		}
	}
	hub.Decisions = append(benchDecisions(p.Namespace, p.Name, hub.Clusters, 3), benchDecisions("other", "other", hub.Clusters, 4)...)
	return p, hub
}

// benchDecisions puts every every-th cluster into PlacementDecisions of
// 100 for the Placement namespace/name.
func benchDecisions(namespace, name string, clusters []*clusterv1.ManagedCluster, every int) []*clusterv1beta1.PlacementDecision {
	var out []*clusterv1beta1.PlacementDecision
	for i := 0; i < len(clusters); i += every {
		if len(out) == 0 || len(out[len(out)-1].Status.Decisions) == 100 {
			out = append(out, placementDecision(namespace, name))
			out[len(out)-1].Name = fmt.Sprintf("%s-decision-%d", name, len(out))
		}
		last := out[len(out)-1]
		last.Status.Decisions = append(last.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: clusters[i].Name})
	}
	return out
}

// BenchmarkScheduleHub schedules benchHub's Placement on its hub.
func BenchmarkScheduleHub(b *testing.B) {
	for _, n := range benchSizes {
		p, hub := benchHub(b, n)
		s := placement.Scheduler{Clock: fake.New(seedTime())}
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.ScheduleHub(p, hub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScheduleHubFloor does benchHub's filtering and scoring in one
// plain pass, with everything that does not depend on the hub compiled
// beforehand: each cluster's set label looked up among the bound sets,
// the predicate matched, the two taints checked against the toleration,
// the Balance and Steady scores read from maps of the decisions (built in
// the loop, as they come from the hub), the best half kept by score then
// name, and each kept cluster matched against the three group selectors.
// ScheduleHub should stay within 3x of it.
func BenchmarkScheduleHubFloor(b *testing.B) {
	for _, n := range benchSizes {
		p, hub := benchHub(b, n)
		pred, groups := floorSelectors(b, p)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			grouped := 0
			for b.Loop() {
				grouped += floorPass(p, hub, pred, groups)
			}
			if grouped == 0 {
				b.Fatal("nothing grouped")
			}
		})
	}
}

// floorSelectors compiles the Placement's predicate and group selectors
// for floorPass.
func floorSelectors(b *testing.B, p *clusterv1beta1.Placement) (pred labels.Selector, groups []labels.Selector) {
	pred, err := metav1.LabelSelectorAsSelector(&p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector)
	if err != nil {
		b.Fatal(err)
	}
	for _, dg := range p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups {
		sel, err := metav1.LabelSelectorAsSelector(&dg.ClusterSelector.LabelSelector)
		if err != nil {
			b.Fatal(err)
		}
		groups = append(groups, sel)
	}
	return pred, groups
}

type scored struct {
	name  string
	score int64
	mc    *clusterv1.ManagedCluster
}

func floorPass(p *clusterv1beta1.Placement, hub placement.Hub, pred labels.Selector, groups []labels.Selector) int {
	bound := map[string]bool{}
	for _, bd := range hub.Bindings {
		bound[bd.Name] = bd.Namespace == p.Namespace
	}
	own, others := map[string]bool{}, map[string]int64{}
	var most int64
	for _, pd := range hub.Decisions {
		for _, d := range pd.Status.Decisions {
			if pd.Namespace == p.Namespace && pd.Labels[clusterv1beta1.PlacementLabel] == p.Name {
				own[d.ClusterName] = true
			} else {
				others[d.ClusterName]++
				most = max(most, others[d.ClusterName])
			}
		}
	}
	tol := p.Spec.Tolerations[0]
	kept := make([]scored, 0, len(hub.Clusters))
	for _, c := range hub.Clusters {
		set := labels.Set(c.Labels)
		if !bound[c.Labels[clusterv1beta2.ClusterSetLabel]] || !pred.Matches(set) {
			continue
		}
		ok := true
		for _, t := range c.Spec.Taints {
			ok = ok && (t.Effect == clusterv1.TaintEffectPreferNoSelect || t.Key == tol.Key)
		}
		if !ok {
			continue
		}
		s := int64(100)
		if n, busy := others[c.Name]; busy {
			s = 2 * int64(100*(0.5-float64(n)/float64(most)))
		}
		if own[c.Name] {
			s += 100
		}
		kept = append(kept, scored{c.Name, s, c})
	}
	slices.SortFunc(kept, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.name, b.name)) })
	kept = kept[:min(len(kept), int(*p.Spec.NumberOfClusters))]
	grouped := 0
	for _, k := range kept {
		for _, g := range groups {
			if g.Matches(labels.Set(k.mc.Labels)) {
				grouped++
				break
			}
		}
	}
	return grouped
}
