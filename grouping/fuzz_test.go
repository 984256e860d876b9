package grouping_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// FuzzNewSelector: any requirement compiles or gives *field.Error values
// under the path given, each naming its field and saying what is wrong;
// never a panic.
func FuzzNewSelector(f *testing.F) {
	f.Add("environment", "In", "dev", "stg")
	f.Add("environment", "Equals", "dev", "")
	f.Add("bad key!", "Exists", "", "")
	f.Add("k", "NotIn", "", "")
	f.Fuzz(func(t *testing.T, key, op, v1, v2 string) {
		var values []string
		for _, v := range []string{v1, v2} {
			if v != "" {
				values = append(values, v)
			}
		}
		req := []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOperator(op), Values: values}}
		s, err := grouping.NewSelector(metav1.LabelSelector{MatchExpressions: req, MatchLabels: map[string]string{key: v1}},
			clusterv1beta1.ClusterClaimSelector{MatchExpressions: req}, field.NewPath("f"))
		if err != nil {
			for _, p := range fieldErrors(t, err) {
				if !strings.HasPrefix(p.Field, "f.labelSelector.") && !strings.HasPrefix(p.Field, "f.claimSelector.") {
					t.Fatalf("problem %q is not under the selector's path", p)
				}
			}
			return
		}
		s.Matches(grouping.Cluster{Name: "c", Labels: map[string]string{key: v1}, Claims: map[string]string{key: v2}})
	})
}

// FuzzDivide checks the invariants of Divide over random fleets (and that
// clustersPerDecisionGroup is admitted exactly as its CRD pattern admits
// it): every
// cluster is in exactly one group, groups are indexed 0..n-1, clusters are
// sorted within a group, no group is longer than L, named groups precede
// unnamed ones, and the input is untouched.
func FuzzDivide(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, int32(2), "50%")
	f.Add([]byte{}, int32(0), "")
	f.Add([]byte{0, 0, 0, 7, 7, 7}, int32(-1), "7%")
	f.Fuzz(func(t *testing.T, fleet []byte, length int32, percent string) {
		per := intstr.FromInt32(length)
		if percent != "" {
			per = intstr.FromString(percent)
		}
		checkLength(t, per)
		gs := strategy(per, byLabel("a", "env", "0"), byLabel("b", "env", "1"), byExpr("c", "env", metav1.LabelSelectorOpIn, "1", "2"))
		// Each byte is one cluster: its name from the position, its env
		// label from the value (4 and up: no label).
		var clusters []grouping.Cluster
		for i, b := range fleet {
			c := grouping.Cluster{Name: fmt.Sprintf("c%03d", (i*7919)%1000+int(b)%3*1000)}
			if b%8 < 4 {
				c.Labels = map[string]string{"env": fmt.Sprint(b % 8)}
			}
			clusters = append(clusters, c)
		}
		before := deepCopyClusters(clusters)
		groups, err := grouping.Divide(gs, clusters)
		if err != nil {
			return // duplicates or a bad percentage
		}
		if !slices.EqualFunc(before, clusters, func(a, b grouping.Cluster) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
			t.Fatal("input modified")
		}
		s, err := grouping.Compile(gs, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.Divide(clusters)
		if err != nil || !slices.EqualFunc(d.Groups, groups, func(a, b grouping.Group) bool {
			return a.GroupKey == b.GroupKey && slices.Equal(a.Clusters, b.Clusters)
		}) {
			t.Fatalf("Compile and Strategy.Divide disagree with Divide: %v, %v", d.Groups, err)
		}
		l := d.Length
		seen := map[string]bool{}
		unnamedSeen := false
		for i, g := range groups {
			if g.Index != int32(i) {
				t.Fatalf("group %d has index %d", i, g.Index)
			}
			if len(g.Clusters) > max(l, 0) {
				t.Fatalf("group %v has %d clusters, L = %d", g.GroupKey, len(g.Clusters), l)
			}
			if !slices.IsSorted(g.Clusters) {
				t.Fatalf("group %v not sorted: %v", g.GroupKey, g.Clusters)
			}
			if g.Name == "" {
				unnamedSeen = true
			} else if unnamedSeen {
				t.Fatalf("named group %v after an unnamed one", g.GroupKey)
			}
			for _, c := range g.Clusters {
				if seen[c] {
					t.Fatalf("cluster %s in two groups", c)
				}
				seen[c] = true
			}
		}
		if len(seen) != len(clusters) {
			t.Fatalf("%d clusters in groups, %d given", len(seen), len(clusters))
		}
		if len(clusters) == 0 && (len(groups) != 1 || groups[0].Name != "" || groups[0].Clusters != nil) {
			t.Fatalf("no cluster: want one empty group, got %v", groups)
		}
	})
}
