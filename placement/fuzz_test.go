package placement_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// FuzzGroupsFromDecisions: any index label value is a group index or a
// *field.Error quoting it; never a panic.
func FuzzGroupsFromDecisions(f *testing.F) {
	for _, s := range []string{"0", "2147483647", "2147483648", "-1", "+1", "", "007", "1e3", " 1", "٣"} {
		f.Add(s, "dev")
	}
	f.Fuzz(func(t *testing.T, index, name string) {
		if index == "-" || name == "-" {
			return // decision's "leave the label out"
		}
		groups, err := placement.GroupsFromDecisions([]*clusterv1beta1.PlacementDecision{decision("p-decision-1", index, name, "a")})
		if err != nil {
			var fe *field.Error
			if !errors.As(err, &fe) || fe.BadValue != index || !strings.Contains(err.Error(), strconv.Quote(index)) {
				t.Fatalf("error %v does not quote %q", err, index)
			}
			return
		}
		if len(groups) != 1 || groups[0].Index < 0 || groups[0].Name != name {
			t.Fatalf("groups %v from index %q", groups, index)
		}
	})
}

// FuzzGroupsFromDecisionsMany builds up to eight PlacementDecisions from the
// fuzz bytes (index labels from a small set or the fuzz string, shared and
// clashing names, missing labels, clusters repeated within and across
// decisions) and checks: never a panic; an error names a PlacementDecision;
// otherwise the groups come in strictly ascending index order, each with the
// sorted, de-duplicated clusters of exactly its decisions; and the input is
// left as it was.
func FuzzGroupsFromDecisionsMany(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "3")
	f.Add([]byte{2, 0, 0, 1, 1, 0, 2, 2, 2, 9, 9, 9}, "x")
	f.Add([]byte("several decisions of one group, and more"), "-1")
	f.Fuzz(func(t *testing.T, data []byte, free string) {
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		indexes := []string{"0", "1", "2", "0", "7", free, "-"}
		names := []string{"dev", "stg", "", "dev", "-"}
		clusters := []string{"a", "b", "c", "d", "", "a"}
		var ds []*clusterv1beta1.PlacementDecision
		for i := range int(next() % 9) {
			var cs []string
			for range next() % 4 {
				cs = append(cs, clusters[int(next())%len(clusters)])
			}
			ds = append(ds, decision(fmt.Sprintf("p-decision-%d", i+1), indexes[int(next())%len(indexes)], names[int(next())%len(names)], cs...))
		}
		before := make([]*clusterv1beta1.PlacementDecision, len(ds))
		for i, d := range ds {
			before[i] = d.DeepCopy()
		}
		groups, err := placement.GroupsFromDecisions(ds)
		for i := range ds {
			if !reflect.DeepEqual(before[i], ds[i]) {
				t.Fatalf("decision %d was modified", i)
			}
		}
		if err != nil {
			if !strings.Contains(err.Error(), `placementdecision "ns/p-decision-`) {
				t.Fatalf("error %q names no PlacementDecision", err)
			}
			return
		}
		want := map[int32]map[string]bool{}
		for _, d := range ds {
			idx, _ := strconv.Atoi(d.Labels[clusterv1beta1.DecisionGroupIndexLabel])
			if want[int32(idx)] == nil {
				want[int32(idx)] = map[string]bool{}
			}
			for _, c := range d.Status.Decisions {
				if c.ClusterName != "" {
					want[int32(idx)][c.ClusterName] = true
				}
			}
		}
		if len(groups) != len(want) {
			t.Fatalf("%d groups for %d indices", len(groups), len(want))
		}
		for i, g := range groups {
			if i > 0 && groups[i-1].Index >= g.Index {
				t.Fatalf("groups not in ascending index order: %v", groups)
			}
			if !slices.IsSorted(g.Clusters) || len(slices.Compact(slices.Clone(g.Clusters))) != len(g.Clusters) {
				t.Fatalf("group %v: clusters not sorted and unique", g)
			}
			if len(g.Clusters) != len(want[g.Index]) {
				t.Fatalf("group %v: want clusters %v", g, want[g.Index])
			}
			for _, c := range g.Clusters {
				if !want[g.Index][c] {
					t.Fatalf("group %v has %q, which no decision of that index lists", g, c)
				}
			}
		}
	})
}
