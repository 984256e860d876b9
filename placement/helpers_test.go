package placement_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/grouping"
)

// seedTime is the seed's "<timestamp>", as examples/seed writes it.
func seedTime() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }

// mc builds a ManagedCluster from "key=value" labels.
func mc(name string, labels ...string) *clusterv1.ManagedCluster {
	c := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if len(labels) > 0 {
		c.Labels = kv(labels...)
	}
	return c
}

// withClaims adds "name=value" cluster claims to c.
func withClaims(c *clusterv1.ManagedCluster, claims ...string) *clusterv1.ManagedCluster {
	for _, p := range claims {
		k, v, _ := strings.Cut(p, "=")
		c.Status.ClusterClaims = append(c.Status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: k, Value: v})
	}
	return c
}

func kv(pairs ...string) map[string]string {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

// numbered returns n clusters named prefix-000 ... with the labels given.
func numbered(prefix string, n int, labels ...string) []*clusterv1.ManagedCluster {
	out := make([]*clusterv1.ManagedCluster, n)
	for i := range out {
		out[i] = mc(fmt.Sprintf("%s-%03d", prefix, i), labels...)
	}
	return out
}

func names(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-%03d", prefix, i))
	}
	return out
}

func labelPredicate(labels ...string) clusterv1beta1.ClusterPredicate {
	return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		LabelSelector: metav1.LabelSelector{MatchLabels: kv(labels...)},
	}}
}

func claimPredicate(key string, op metav1.LabelSelectorOperator, values ...string) clusterv1beta1.ClusterPredicate {
	return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}},
	}}
}

func envGroup(env string) clusterv1beta1.DecisionGroup {
	return clusterv1beta1.DecisionGroup{
		GroupName: env,
		ClusterSelector: clusterv1beta1.GroupClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": env}},
		},
	}
}

// newPlacement returns placement ns/p with the predicates and groups.
func newPlacement(length intstr.IntOrString, predicates []clusterv1beta1.ClusterPredicate, groups ...clusterv1beta1.DecisionGroup) *clusterv1beta1.Placement {
	return &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-p"},
		Spec: clusterv1beta1.PlacementSpec{
			Predicates: predicates,
			DecisionStrategy: clusterv1beta1.DecisionStrategy{GroupStrategy: clusterv1beta1.GroupStrategy{
				ClustersPerDecisionGroup: length,
				DecisionGroups:           groups,
			}},
		},
	}
}

func group(name string, index int32, clusters ...string) grouping.Group {
	g := grouping.Group{GroupKey: grouping.GroupKey{Name: name, Index: index}}
	if len(clusters) > 0 {
		g.Clusters = clusters
	}
	return g
}

type seedFixture struct {
	clusters  []*clusterv1.ManagedCluster
	placement *clusterv1beta1.Placement
	scheduled *clusterv1beta1.Placement
	decisions []*clusterv1beta1.PlacementDecision
}

func loadSeed(t testing.TB) seedFixture {
	t.Helper()
	var f seedFixture
	var err error
	f.clusters, err = seed.ManagedClusters()
	require.NoError(t, err)
	f.placement, err = seed.Placement()
	require.NoError(t, err)
	f.scheduled, err = seed.ScheduledPlacement()
	require.NoError(t, err)
	f.decisions, err = seed.PlacementDecisions()
	require.NoError(t, err)
	return f
}

// utc puts condition times in UTC: metav1.Time decodes into the local
// zone, a fake clock reads UTC.
func utc(conds []metav1.Condition) []metav1.Condition {
	out := make([]metav1.Condition, len(conds))
	for i, c := range conds {
		c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.UTC())
		out[i] = c
	}
	return out
}

// condition finds the condition of type t.
func condition(t *testing.T, s clusterv1beta1.PlacementStatus, typ string) metav1.Condition {
	t.Helper()
	for _, c := range s.Conditions {
		if c.Type == typ {
			return c
		}
	}
	t.Fatalf("no condition %s in %v", typ, s.Conditions)
	return metav1.Condition{}
}

func deepCopyClusters(in []*clusterv1.ManagedCluster) []*clusterv1.ManagedCluster {
	if in == nil {
		return nil
	}
	out := make([]*clusterv1.ManagedCluster, len(in))
	for i, c := range in {
		out[i] = c.DeepCopy() // nil stays nil
	}
	return out
}

// problems requires err to name object once, around all its problems, and
// returns them: the joins inside flattened, in order.
func problems(t *testing.T, object string, err error) []error {
	t.Helper()
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), object+": "), "%q does not start with %s", err, object)
	assert.Equal(t, 1, strings.Count(err.Error(), object), "%q names %s more than once", err, object)
	inner := errors.Unwrap(err)
	require.NotNil(t, inner, "%q wraps nothing", err)
	return flatten(inner)
}

// flatten lists the errors that err joins, and those they join, in order.
func flatten(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}
