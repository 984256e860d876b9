package placement_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// fuzzBytes hands out the fuzz input a byte at a time, then zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return int(v) % n
}

// fuzzHub builds a small hub and a Placement from the fuzz input: clusters
// with labels, claims, taints of every effect and age, some being deleted;
// exclusive and label-selector sets, bound here or elsewhere; decisions of
// the Placement and of another; scores; and a Placement with predicates,
// tolerations, numberOfClusters, a prioritizer policy and a spread.
func fuzzHub(b *fuzzBytes, now time.Time) (*clusterv1beta1.Placement, placement.Hub) {
	keys := []string{unreachable, "gpu", ""}
	effects := []clusterv1.TaintEffect{clusterv1.TaintEffectNoSelect, clusterv1.TaintEffectNoSelectIfNew, clusterv1.TaintEffectPreferNoSelect, "Odd"}
	var hub placement.Hub
	for i := range 1 + b.next(12) {
		c := mc(fmt.Sprintf("c%d", i), "env="+[]string{"dev", "prod"}[b.next(2)], "region="+[]string{"eu", "us", "ap"}[b.next(3)],
			clusterv1beta2.ClusterSetLabel+"="+[]string{"a", "b", "c"}[b.next(3)])
		withClaims(c, "platform="+[]string{"AWS", "GCP"}[b.next(2)])
		withResources(c, fmt.Sprint(1+b.next(4)), "4", "", "")
		for range b.next(3) {
			tainted(c, taint(keys[b.next(3)], []string{"", "x"}[b.next(2)], effects[b.next(4)], now.Add(-time.Duration(b.next(5))*time.Minute)))
		}
		if b.next(8) == 0 {
			c.DeletionTimestamp = &metav1.Time{Time: now}
		}
		hub.Clusters = append(hub.Clusters, c)
		if b.next(2) == 0 {
			hub.Scores = append(hub.Scores, score(c.Name, "load", now.Add(time.Duration(b.next(5)-2)*time.Minute), item("s", int32(b.next(201)-100))))
		}
		if b.next(3) == 0 {
			hub.Decisions = append(hub.Decisions, placementDecision("ns", []string{"p", "q"}[b.next(2)], c.Name))
			hub.Decisions[len(hub.Decisions)-1].Name = fmt.Sprintf("d%d", i)
		}
	}
	hub.ClusterSets = []*clusterv1beta2.ManagedClusterSet{exclusiveSet("a"), exclusiveSet("b"),
		selectorSet("prod", &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}), selectorSet("global", &metav1.LabelSelector{})}
	for _, set := range []string{"a", "b", "prod", "global", "ghost"} {
		if b.next(3) == 0 {
			hub.Bindings = append(hub.Bindings, binding([]string{"ns", "other"}[b.next(2)], set))
		}
	}
	return fuzzPlacement(b), hub
}

func fuzzPlacement(b *fuzzBytes) *clusterv1beta1.Placement {
	var preds []clusterv1beta1.ClusterPredicate
	for range b.next(3) {
		preds = append(preds, labelPredicate("env="+[]string{"dev", "prod"}[b.next(2)]))
	}
	p := newPlacement(intstr.FromInt32(int32(b.next(4))), preds, envGroup("prod"))
	if b.next(2) == 0 {
		p.Spec.ClusterSets = []string{[]string{"a", "prod", "ghost"}[b.next(3)]}
	}
	ops := []clusterv1beta1.TolerationOperator{"", clusterv1beta1.TolerationOpEqual, clusterv1beta1.TolerationOpExists}
	for range b.next(3) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, toleration([]string{unreachable, "gpu", ""}[b.next(3)], ops[b.next(3)],
			[]string{"", "x"}[b.next(2)], []clusterv1.TaintEffect{"", clusterv1.TaintEffectNoSelect}[b.next(2)], int64(b.next(4)*60)-1))
	}
	if b.next(2) == 0 {
		p.Spec.NumberOfClusters = ptr.To(int32(b.next(6)))
	}
	p.Spec.PrioritizerPolicy.Mode = []clusterv1beta1.PrioritizerPolicyModeType{"", clusterv1beta1.PrioritizerPolicyModeExact}[b.next(2)]
	for range b.next(3) {
		p.Spec.PrioritizerPolicy.Configurations = append(p.Spec.PrioritizerPolicy.Configurations,
			[]clusterv1beta1.PrioritizerConfig{builtInConfig("ResourceAllocatableCPU", int32(b.next(5)-2)), addOnConfig("load", "s", int32(b.next(5)-2)),
				builtInConfig("Steady", int32(b.next(3)))}[b.next(3)])
	}
	if b.next(2) == 0 {
		p.Spec.SpreadPolicy.SpreadConstraints = append(p.Spec.SpreadPolicy.SpreadConstraints, term(
			[]string{"region", "platform"}[b.next(2)], []clusterv1beta1.TopologyKeyType{clusterv1beta1.TopologyKeyTypeLabel, clusterv1beta1.TopologyKeyTypeClaim}[b.next(2)],
			int32(b.next(3)), []clusterv1beta1.UnsatisfiableMaxSkewAction{clusterv1beta1.DoNotSchedule, clusterv1beta1.ScheduleAnyway}[b.next(2)]))
	}
	return p
}

// FuzzScheduleHub: never a panic, inputs left as they were, the same
// result whatever the order of the hub's lists, and a result that holds
// together: selected clusters sorted, unique, not being deleted, within
// numberOfClusters, none with a NoSelect taint that no toleration could
// match, and exactly the clusters of the groups and of the decisions.
func FuzzScheduleHub(f *testing.F) {
	f.Add([]byte{11, 1, 0, 2, 1, 3, 0, 0, 2, 1, 1, 0, 1, 2, 0, 3, 1, 1})
	f.Add([]byte("a hub with several clusters, sets, taints and a spread"))
	f.Add([]byte{255, 254, 253, 0, 0, 0, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, data []byte) {
		now := seedTime()
		b := fuzzBytes(data)
		p, hub := fuzzHub(&b, now)
		wantP, wantHub := p.DeepCopy(), copyHub(hub)
		s := placement.Scheduler{Clock: fake.New(now)}
		res, err := s.ScheduleHub(p, hub)
		if !reflect.DeepEqual(wantP, p) || !reflect.DeepEqual(wantHub, hub) {
			t.Fatal("inputs modified")
		}
		reversed := copyHub(hub)
		slices.Reverse(reversed.Clusters)
		slices.Reverse(reversed.Scores)
		slices.Reverse(reversed.Decisions)
		slices.Reverse(reversed.Bindings)
		again, err2 := s.ScheduleHub(p, reversed)
		if !reflect.DeepEqual(res, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("the result depends on the input order:\n%v\n%v", res, again)
		}
		if err == nil {
			checkResult(t, p, hub, res)
		}
	})
}

func checkResult(t *testing.T, p *clusterv1beta1.Placement, hub placement.Hub, res placement.Result) {
	if !slices.IsSorted(res.Clusters) || len(slices.Compact(slices.Clone(res.Clusters))) != len(res.Clusters) {
		t.Fatalf("clusters not sorted and unique: %v", res.Clusters)
	}
	if n := p.Spec.NumberOfClusters; n != nil && len(res.Clusters) > int(*n) {
		t.Fatalf("%d clusters for numberOfClusters %d", len(res.Clusters), *n)
	}
	if int(res.Status.NumberOfSelectedClusters) != len(res.Clusters) {
		t.Fatalf("numberOfSelectedClusters %d for %d clusters", res.Status.NumberOfSelectedClusters, len(res.Clusters))
	}
	byName := map[string]*clusterv1.ManagedCluster{}
	for _, c := range hub.Clusters {
		byName[c.Name] = c
	}
	for _, name := range res.Clusters {
		c := byName[name]
		if c == nil || !c.DeletionTimestamp.IsZero() {
			t.Fatalf("selected %q is not on the hub or is being deleted", name)
		}
		for _, tn := range c.Spec.Taints {
			if tn.Effect == clusterv1.TaintEffectNoSelect && !slices.ContainsFunc(p.Spec.Tolerations, func(tl clusterv1beta1.Toleration) bool {
				return tl.Key == "" || tl.Key == tn.Key
			}) {
				t.Fatalf("selected %q has the taint %v, which no toleration matches", name, tn)
			}
		}
	}
	var grouped, decided []string
	for _, g := range res.Groups {
		grouped = append(grouped, g.Clusters...)
	}
	for _, pd := range res.Decisions {
		for _, d := range pd.Status.Decisions {
			decided = append(decided, d.ClusterName)
		}
	}
	slices.Sort(grouped)
	slices.Sort(decided)
	if !slices.Equal(grouped, res.Clusters) || !slices.Equal(decided, res.Clusters) {
		t.Fatalf("groups %v and decisions %v do not hold the clusters %v", grouped, decided, res.Clusters)
	}
}
