package placement_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/placement"
)

// setsFleet: a and e in the exclusive set dev, b in prod, c in none, d in
// dev but being deleted, f only in stg and being deleted.
func setsFleet() []*clusterv1.ManagedCluster {
	deleting := func(c *clusterv1.ManagedCluster) *clusterv1.ManagedCluster {
		c.DeletionTimestamp = &metav1.Time{Time: seedTime()}
		return c
	}
	const set = clusterv1beta2.ClusterSetLabel
	return []*clusterv1.ManagedCluster{
		mc("a", set+"=dev", "env=dev"),
		mc("b", set+"=prod", "env=prod"),
		mc("c", "env=prod"),
		deleting(mc("d", set+"=dev", "env=dev")),
		mc("e", set+"=dev", "env=stg"),
		deleting(mc("f", set+"=stg")),
	}
}

func setsOfHub() []*clusterv1beta2.ManagedClusterSet {
	prod := exclusiveSet("prod")
	prod.Spec.ClusterSelector.SelectorType = clusterv1beta2.ExclusiveClusterSetLabel
	return []*clusterv1beta2.ManagedClusterSet{
		selectorSet("global", &metav1.LabelSelector{}),
		exclusiveSet("dev"), // empty selectorType: exclusive
		prod,
		exclusiveSet("stg"),
		selectorSet("prod-by-label", &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}),
		selectorSet("none", nil),
	}
}

func TestScheduleHubClusterSets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		bindings    []*clusterv1beta2.ManagedClusterSetBinding
		clusterSets []string
		want        []string
		reason      string
		message     string
		warning     string // NoClusterSetBinding's message; "" for none
	}{
		{
			name: "no binding: nothing", reason: "NoManagedClusterSetBindings",
			message: "No valid ManagedClusterSetBindings found in placement namespace",
			warning: `no ManagedClusterSetBinding in namespace "ns" binds an existing ManagedClusterSet, so no cluster can be selected: bind a set (such as "global") to the namespace`,
		},
		{
			name: "a binding in another namespace does not count", bindings: bindings("other/global"),
			reason: "NoManagedClusterSetBindings", message: "No valid ManagedClusterSetBindings found in placement namespace",
			warning: `no ManagedClusterSetBinding in namespace "ns" binds an existing ManagedClusterSet, so no cluster can be selected: bind a set (such as "global") to the namespace`,
		},
		{
			name: "a binding to a set that does not exist does not count", bindings: bindings("ns/ghost"),
			reason: "NoManagedClusterSetBindings", message: "No valid ManagedClusterSetBindings found in placement namespace",
			warning: `no ManagedClusterSetBinding in namespace "ns" binds an existing ManagedClusterSet, so no cluster can be selected: bind a set (such as "global") to the namespace`,
		},
		{name: "global: every cluster not being deleted", bindings: bindings("ns/global", "ns/ghost"), want: []string{"a", "b", "c", "e"}},
		{name: "an exclusive set by its empty selectorType", bindings: bindings("ns/dev"), want: []string{"a", "e"}},
		{name: "two sets: their union", bindings: bindings("ns/dev", "ns/prod"), want: []string{"a", "b", "e"}},
		{name: "a label selector set", bindings: bindings("ns/prod-by-label"), want: []string{"b", "c"}},
		{name: "clusterSets narrows the bound sets", bindings: bindings("ns/global", "ns/prod"), clusterSets: []string{"prod", "stg"}, want: []string{"b"}},
		{
			name: "clusterSets that no binding meets", bindings: bindings("ns/dev", "ns/global"), clusterSets: []string{"prod", "stg"},
			reason: "NoIntersection", message: "None of ManagedClusterSets [prod,stg] is bound to placement namespace",
			warning: `none of spec.clusterSets ["prod" "stg"] is bound to namespace "ns", so no cluster can be selected`,
		},
		{
			name: "a nil label selector selects nothing", bindings: bindings("ns/none"),
			reason: "AllManagedClusterSetsEmpty", message: "All ManagedClusterSets [none] have no member ManagedCluster",
			warning: `the ManagedClusterSets ["none"] bound to namespace "ns" have no member (or only clusters being deleted), so no cluster can be selected`,
		},
		{
			name: "a set whose only member is being deleted", bindings: bindings("ns/stg", "ns/none"),
			reason: "AllManagedClusterSetsEmpty", message: "All ManagedClusterSets [none,stg] have no member ManagedCluster",
			warning: `the ManagedClusterSets ["none" "stg"] bound to namespace "ns" have no member (or only clusters being deleted), so no cluster can be selected`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Spec.ClusterSets = tt.clusterSets
			hub := placement.Hub{Clusters: setsFleet(), ClusterSets: setsOfHub(), Bindings: tt.bindings}
			res, err := placement.Scheduler{Clock: fake.New(seedTime())}.ScheduleHub(p, hub)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Clusters)
			got := condition(t, res.Status, clusterv1beta1.PlacementConditionSatisfied)
			if tt.reason == "" {
				assert.Equal(t, "AllDecisionsScheduled", got.Reason)
			} else {
				assert.Equal(t, tt.reason, got.Reason)
				assert.Equal(t, tt.message, got.Message)
			}
			var warned []string
			for _, w := range res.Warnings {
				if w.Kind == placement.NoClusterSetBinding {
					warned = append(warned, w.Message)
				}
			}
			if tt.warning == "" {
				assert.Empty(t, warned)
			} else {
				assert.Equal(t, []string{tt.warning}, warned)
			}
		})
	}
}

// bindings makes ManagedClusterSetBindings from "namespace/set".
func bindings(refs ...string) []*clusterv1beta2.ManagedClusterSetBinding {
	out := make([]*clusterv1beta2.ManagedClusterSetBinding, len(refs))
	for i, r := range refs {
		ns, set, _ := strings.Cut(r, "/")
		out[i] = binding(ns, set)
	}
	return out
}

func TestScheduleHubSetErrors(t *testing.T) {
	t.Parallel()
	badType := exclusiveSet("bad-type")
	badType.Spec.ClusterSelector.SelectorType = "Everything"
	badSelector := selectorSet("bad-selector", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "env", Operator: "Equals", Values: []string{"prod"}},
	}})
	tests := []struct {
		name     string
		bindings []*clusterv1beta2.ManagedClusterSetBinding
		want     []string
	}{
		{"a bad selectorType", bindings("ns/bad-type"), []string{
			`managedclusterset "bad-type": spec.clusterSelector.selectorType: Unsupported value: "Everything": supported values: "ExclusiveClusterSetLabel", "LabelSelector"`,
		}},
		{"a bad label selector", bindings("ns/bad-selector"), []string{
			`managedclusterset "bad-selector": spec.clusterSelector.labelSelector: Invalid value:`,
		}},
		{"both, in name order", bindings("ns/bad-type", "ns/bad-selector"), []string{
			`managedclusterset "bad-selector"`, `managedclusterset "bad-type"`,
		}},
		{"not bound: not read", bindings("other/bad-type", "ns/global"), nil},
		{"bound but not in clusterSets: not read", bindings("ns/bad-type", "ns/global"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			if tt.name == "bound but not in clusterSets: not read" {
				p.Spec.ClusterSets = []string{"global"}
			}
			hub := placement.Hub{
				Clusters:    setsFleet(),
				ClusterSets: append(setsOfHub(), badType, badSelector),
				Bindings:    tt.bindings,
			}
			res, err := placement.Scheduler{Clock: fake.New(seedTime())}.ScheduleHub(p, hub)
			if tt.want == nil {
				require.NoError(t, err)
				assert.NotEmpty(t, res.Clusters)
				return
			}
			require.Error(t, err)
			assert.Equal(t, placement.Result{}, res)
			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, len(tt.want), "%v", err)
			for i, pr := range problems {
				assert.Contains(t, pr.Error(), tt.want[i])
			}
		})
	}
}

func TestScheduleHubInputErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(h *placement.Hub)
		want []string
	}{
		{"nil set", func(h *placement.Hub) { h.ClusterSets = append(h.ClusterSets, nil) },
			[]string{`clusterSets[1]: nil ManagedClusterSet: want a ManagedClusterSet`}},
		{"nil binding", func(h *placement.Hub) { h.Bindings = append(h.Bindings, nil) },
			[]string{`bindings[1]: nil ManagedClusterSetBinding`}},
		{"nil score", func(h *placement.Hub) { h.Scores = append(h.Scores, nil) },
			[]string{`scores[0]: nil AddOnPlacementScore`}},
		{"nil decision", func(h *placement.Hub) { h.Decisions = append(h.Decisions, nil) },
			[]string{`decisions[0]: nil PlacementDecision`}},
		{"unnamed set", func(h *placement.Hub) { h.ClusterSets = append(h.ClusterSets, exclusiveSet("")) },
			[]string{`clusterSets[1]: ManagedClusterSet with an empty name`}},
		{"nil cluster", func(h *placement.Hub) { h.Clusters = append(h.Clusters, nil) },
			[]string{`clusters[1]: nil ManagedCluster`}},
		{
			"duplicates, each once, in name order",
			func(h *placement.Hub) {
				h.ClusterSets = append(h.ClusterSets, exclusiveSet("z"), exclusiveSet("global"), exclusiveSet("z"))
				h.Scores = append(h.Scores, score("a", "s", time.Time{}), score("a", "s", time.Time{}))
				h.Decisions = append(h.Decisions, placementDecision("ns", "p", "a"), placementDecision("ns", "p"))
				h.Bindings = append(h.Bindings, binding("ns", "global"))
			},
			[]string{
				`duplicate PlacementDecision "ns/p-decision-1": want each once`,
				`duplicate AddOnPlacementScore "a/s"`,
				`duplicate ManagedClusterSet "global"`,
				`duplicate ManagedClusterSet "z"`,
				`duplicate ManagedClusterSetBinding "ns/global"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hub := globalHub(mc("a"))
			tt.edit(&hub)
			res, err := placement.ScheduleHub(newPlacement(intstr.IntOrString{}, nil), hub)
			require.Error(t, err)
			assert.Equal(t, placement.Result{}, res)
			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, len(tt.want), "%v", err)
			for i, pr := range problems {
				assert.Contains(t, pr.Error(), tt.want[i])
			}
		})
	}
}
