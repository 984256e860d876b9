package grouping_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

func TestSelectorMatches(t *testing.T) {
	t.Parallel()
	req := func(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name  string
		label metav1.LabelSelector
		claim clusterv1beta1.ClusterClaimSelector
		match []grouping.Cluster
		miss  []grouping.Cluster
	}{
		{
			name:  "empty matches everything, nil labels too",
			match: []grouping.Cluster{cl("a"), cl("b", "x=y"), withClaims(cl("c"), "k=v")},
		},
		{
			name:  "matchLabels AND matchExpressions (the seed's predicate)",
			label: metav1.LabelSelector{MatchLabels: kv("cluster-proxy=enabled"), MatchExpressions: []metav1.LabelSelectorRequirement{req("environment", metav1.LabelSelectorOpIn, "dev", "stg", "prod")}},
			match: []grouping.Cluster{cl("a", "cluster-proxy=enabled", "environment=stg")},
			miss:  []grouping.Cluster{cl("b", "cluster-proxy=enabled", "environment=qa"), cl("c", "environment=dev"), cl("d")},
		},
		{
			name:  "NotIn matches a missing key",
			label: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("environment", metav1.LabelSelectorOpNotIn, "prod")}},
			match: []grouping.Cluster{cl("a", "environment=dev"), cl("b")},
			miss:  []grouping.Cluster{cl("c", "environment=prod")},
		},
		{
			name:  "Exists",
			label: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("environment", metav1.LabelSelectorOpExists)}},
			match: []grouping.Cluster{cl("a", "environment=")},
			miss:  []grouping.Cluster{cl("b"), withClaims(cl("c"), "environment=dev")},
		},
		{
			name:  "DoesNotExist",
			label: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("environment", metav1.LabelSelectorOpDoesNotExist)}},
			match: []grouping.Cluster{cl("a"), cl("b", "env=dev")},
			miss:  []grouping.Cluster{cl("c", "environment=dev")},
		},
		{
			name:  "claims only: labels are not claims",
			claim: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("platform", metav1.LabelSelectorOpIn, "AWS")}},
			match: []grouping.Cluster{withClaims(cl("a"), "platform=AWS")},
			miss:  []grouping.Cluster{cl("b", "platform=AWS"), cl("c"), withClaims(cl("d"), "platform=GCP")},
		},
		{
			name:  "label AND claim",
			label: metav1.LabelSelector{MatchLabels: kv("region=eu")},
			claim: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("platform", metav1.LabelSelectorOpExists)}},
			match: []grouping.Cluster{withClaims(cl("a", "region=eu"), "platform=AWS")},
			miss:  []grouping.Cluster{cl("b", "region=eu"), withClaims(cl("c"), "platform=AWS")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := grouping.NewSelector("sel", tt.label, tt.claim)
			require.NoError(t, err)
			for _, c := range tt.match {
				assert.True(t, s.Matches(c), "%s should match %s", s, c.Name)
			}
			for _, c := range tt.miss {
				assert.False(t, s.Matches(c), "%s should not match %s", s, c.Name)
			}
		})
	}
}

func TestSelectorZeroValueMatchesAll(t *testing.T) {
	t.Parallel()
	var s grouping.Selector
	assert.True(t, s.Matches(grouping.Cluster{}))
	assert.Equal(t, "labels(<everything>) claims(<everything>)", s.String())
}

func TestSelectorString(t *testing.T) {
	t.Parallel()
	s, err := grouping.NewSelector("", metav1.LabelSelector{MatchLabels: kv("environment=dev")},
		clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "platform", Operator: metav1.LabelSelectorOpExists}}})
	require.NoError(t, err)
	assert.Equal(t, "labels(environment=dev) claims(platform)", s.String())
}

func TestNewSelectorErrors(t *testing.T) {
	t.Parallel()
	_, err := grouping.NewSelector("", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Equals"}}},
		clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "bad key!", Operator: metav1.LabelSelectorOpExists}}})
	require.Error(t, err)
	problems := grouping.Problems(err)
	require.Len(t, problems, 2)
	assert.ErrorContains(t, problems[0], `labelSelector.matchExpressions[0] "{key: k, operator: Equals}": want a valid label selector requirement: "Equals" is not a valid label selector operator`)
	assert.ErrorContains(t, problems[1], `claimSelector.matchExpressions[0] "{key: bad key!, operator: Exists}": want a valid claim selector requirement: key: Invalid value: "bad key!"`)
}
