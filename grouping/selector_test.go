package grouping_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
			s, err := grouping.NewSelector(tt.label, tt.claim, field.NewPath("sel"))
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
	s, err := grouping.NewSelector(metav1.LabelSelector{MatchLabels: kv("environment=dev")},
		clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "platform", Operator: metav1.LabelSelectorOpExists}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "labels(environment=dev) claims(platform)", s.String())
}

func TestNewSelectorErrors(t *testing.T) {
	t.Parallel()
	req := func(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name  string
		path  *field.Path
		label metav1.LabelSelector
		claim clusterv1beta1.ClusterClaimSelector
		want  []string
	}{
		{
			name:  "nil path: paths start at the selectors",
			label: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("k", "Equals")}},
			claim: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("bad key!", metav1.LabelSelectorOpExists)}},
			want: []string{
				`labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
				`claimSelector.matchExpressions[0].key: Invalid value: "bad key!": ` + labelKeyDetail,
			},
		},
		{
			name:  "under the path given",
			path:  field.NewPath("spec", "predicates").Index(2).Child("requiredClusterSelector"),
			label: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("ok", metav1.LabelSelectorOpExists), req("env", metav1.LabelSelectorOpNotIn)}},
			want:  []string{"spec.predicates[2].requiredClusterSelector.labelSelector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
		},
		{
			name:  "a bad label key, and its value under matchLabels: a path names no bad key",
			label: metav1.LabelSelector{MatchLabels: kv("bad key!=not ok!")},
			want: []string{
				`labelSelector.matchLabels: Invalid value: "bad key!": ` + labelKeyDetail,
				`labelSelector.matchLabels: Invalid value: "not ok!": ` + labelValueDetail,
			},
		},
		{
			name:  "a good key names its bad value",
			label: metav1.LabelSelector{MatchLabels: kv("environment=not ok!")},
			want:  []string{`labelSelector.matchLabels[environment]: Invalid value: "not ok!": ` + labelValueDetail},
		},
		{
			name:  "every problem of one requirement",
			label: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("a/b/c", metav1.LabelSelectorOpExists, "x", "y!")}},
			want: []string{
				"labelSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
				`labelSelector.matchExpressions[0].key: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', ` +
					`and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is ` +
					`'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
				`labelSelector.matchExpressions[0].values[1]: Invalid value: "y!": ` + labelValueDetail,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := grouping.NewSelector(tt.label, tt.claim, tt.path)
			require.Error(t, err)
			assert.Equal(t, grouping.Selector{}, s)
			problems := fieldErrors(t, err)
			require.Len(t, problems, len(tt.want), "problems: %v", err)
			for i, p := range problems {
				assert.Equal(t, tt.want[i], p.Error(), "problem %d", i)
			}
		})
	}
}
