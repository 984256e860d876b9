package planreport_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// unreachable is the taint OCM puts on a cluster whose agent stopped
// renewing its lease, added at 11:50.
var unreachable = clusterv1.Taint{
	Key: "cluster.open-cluster-management.io/unreachable", Effect: clusterv1.TaintEffectNoSelect,
	TimeAdded: metav1.NewTime(at(11, 50)),
}

// withGlobalSet adds the global set (every cluster) and binds it in
// namespace ns.
func withGlobalSet(h *planreport.Hub, ns string) *planreport.Hub {
	set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "global"}}
	set.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{}}
	b := &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "global"},
		Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "global"}}
	b.Status.Conditions = []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionTrue, Reason: "ClusterSetBound"}}
	h.ManagedClusterSets = append(h.ManagedClusterSets, set)
	h.ManagedClusterSetBindings = append(h.ManagedClusterSetBindings, b)
	return h
}

// withTaint taints the seed's stg-cluster with taint.
func withTaint(h *planreport.Hub, taint clusterv1.Taint) *planreport.Hub {
	for i, c := range h.Clusters {
		if c.Name == "stg-cluster" {
			c = c.DeepCopy()
			c.Spec.Taints = append(c.Spec.Taints, taint)
			h.Clusters[i] = c
		}
	}
	return h
}

// tolerating makes the seed's placement tolerate taint for seconds.
func tolerating(h *planreport.Hub, taint clusterv1.Taint, seconds int64) *planreport.Hub {
	p := h.Placements[0].DeepCopy()
	p.Spec.Tolerations = append(p.Spec.Tolerations, clusterv1beta1.Toleration{
		Key: taint.Key, Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr.To(seconds),
	})
	h.Placements[0] = p
	return h
}

// TestPlanSchedulesTheHub: the Placement is scheduled as OCM's scheduler
// would, for its warnings and recheck time (with a warning that every
// cluster was a candidate when the input has no set and no binding, and no
// decisions); the groups are still its PlacementDecisions', as the
// controller takes them.
func TestPlanSchedulesTheHub(t *testing.T) {
	t.Parallel()
	const everyCluster = "no ManagedClusterSet and no ManagedClusterSetBinding in the input"
	tests := []struct {
		name     string
		hub      *planreport.Hub
		warnings []string // a warning holds each
		absent   []string // no warning holds any
		recheck  float64
	}{
		{"no set and no binding: every cluster a candidate", seedHub(false),
			[]string{everyCluster + `, so every ManagedCluster was taken as a candidate; OCM selects only the clusters of the sets bound to namespace "open-cluster-management"`},
			nil, 0},
		{"global set bound: scheduled as OCM would", withGlobalSet(seedHub(true), hubNS),
			nil, []string{everyCluster, "NoClusterSetBinding", "Unsupported"}, 0},
		{"tainted unreachable: named", withTaint(withGlobalSet(seedHub(true), hubNS), unreachable),
			[]string{"Tainted:"}, []string{everyCluster}, 0},
		{"no set in the dump: taints still apply", withTaint(seedHub(false), unreachable),
			[]string{"Tainted:", everyCluster}, nil, 0},
		{"tolerated for an hour: look again at 12:50", tolerating(withTaint(withGlobalSet(seedHub(true), hubNS), unreachable), unreachable, 3600),
			[]string{"TolerationExpiring:"}, []string{"Tainted:"}, (50 * time.Minute).Seconds()},
		{"bound in another namespace: nothing selected", withGlobalSet(seedHub(true), "elsewhere"),
			[]string{"NoClusterSetBinding:"}, []string{everyCluster}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(tt.hub, addonName, at(12, 0), nil)
			require.NoError(t, err)
			require.Len(t, rep.Placements, 1)
			var stg []string
			for _, g := range rep.Placements[0].Groups {
				if g.Name == "stg" {
					stg = g.Clusters
				}
			}
			if len(tt.hub.Decisions) > 0 {
				assert.Equal(t, "3 PlacementDecisions", rep.Placements[0].Source)
				assert.Equal(t, []string{"stg-cluster"}, stg, "the decisions make the groups, not the schedule")
			} else {
				assert.Empty(t, rep.Placements[0].Groups, "no decisions: no groups, whatever the schedule")
			}
			all := strings.Join(rep.Warnings, "\n")
			for _, w := range tt.warnings {
				assert.Contains(t, all, w)
			}
			for _, w := range rep.Warnings {
				if strings.Contains(w, "Tainted:") {
					assert.Contains(t, w, "stg-cluster", "the warning names the tainted cluster")
					assert.Contains(t, w, unreachable.Key, "and the taint")
				}
			}
			for _, w := range tt.absent {
				assert.NotContains(t, all, w)
			}
			assert.InDelta(t, tt.recheck, rep.RecheckAfter, 0)
		})
	}
}

func TestPlanRefusesCEL(t *testing.T) {
	t.Parallel()
	h := withGlobalSet(seedHub(true), hubNS)
	p := h.Placements[0].DeepCopy()
	p.Spec.Predicates[0].RequiredClusterSelector.CelSelector.CelExpressions = []string{`managedCluster.metadata.name != "x"`}
	h.Placements[0] = p
	rep, err := planreport.New(h, addonName, at(12, 0), nil)
	require.Error(t, err)
	assert.Nil(t, rep)
	var fe *field.Error
	require.True(t, errors.As(err, &fe), "want a *field.Error in %v", err)
	assert.Equal(t, "spec.predicates[0].requiredClusterSelector.celSelector.celExpressions", fe.Field)
	assert.Contains(t, err.Error(), `placement "open-cluster-management/cluster-proxy-placement" (clustermanagementaddon "cluster-proxy" spec.installStrategy.placements[0])`)
}
