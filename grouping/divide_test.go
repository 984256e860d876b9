package grouping_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

func TestDivide(t *testing.T) {
	t.Parallel()
	seedClusters := []grouping.Cluster{
		cl("dev-cluster", "cluster-proxy=enabled", "environment=dev"),
		cl("stg-cluster", "cluster-proxy=enabled", "environment=stg"),
		cl("prod-cluster", "cluster-proxy=enabled", "environment=prod"),
	}
	hundred := numbered("c", 100)
	tests := []struct {
		name     string
		strategy clusterv1beta1.GroupStrategy
		clusters []grouping.Cluster
		want     []grouping.Group
	}{
		{
			name:     "seed: dev, stg, prod at 0, 1, 2",
			strategy: seedStrategy(),
			clusters: seedClusters,
			want: []grouping.Group{
				group("dev", 0, "dev-cluster"),
				group("stg", 1, "stg-cluster"),
				group("prod", 2, "prod-cluster"),
			},
		},
		{
			name:     "seed caveat: with no dev cluster stg becomes index 0",
			strategy: seedStrategy(),
			clusters: seedClusters[1:],
			want: []grouping.Group{
				group("stg", 0, "stg-cluster"),
				group("prod", 1, "prod-cluster"),
			},
		},
		{
			name:     "seed caveat: unclassified clusters go to an unnamed group after the named ones",
			strategy: seedStrategy(),
			clusters: append(slices.Clone(seedClusters), cl("qa-cluster", "environment=qa"), cl("a-cluster")),
			want: []grouping.Group{
				group("dev", 0, "dev-cluster"),
				group("stg", 1, "stg-cluster"),
				group("prod", 2, "prod-cluster"),
				group("", 3, "a-cluster", "qa-cluster"),
			},
		},
		{
			name:     "nothing selected: one empty group at index 0",
			strategy: seedStrategy(),
			clusters: nil,
			want:     []grouping.Group{group("", 0)},
		},
		{
			name:     "no decision groups: everything unnamed",
			strategy: strategy(intstr.IntOrString{}),
			clusters: seedClusters,
			want:     []grouping.Group{group("", 0, "dev-cluster", "prod-cluster", "stg-cluster")},
		},
		{
			name:     "first match wins, in spec order",
			strategy: strategy(intstr.IntOrString{}, byExpr("any-env", "environment", metav1.LabelSelectorOpExists), byLabel("dev", "environment", "dev")),
			clusters: seedClusters,
			want: []grouping.Group{
				group("any-env", 0, "dev-cluster", "prod-cluster", "stg-cluster"),
			},
		},
		{
			name: "7 clusters, length 2, canary matches nothing, prod split, rest unnamed",
			strategy: strategy(intstr.FromInt32(2),
				byLabel("canary", "ring", "canary"),
				byLabel("prod", "environment", "prod")),
			clusters: []grouping.Cluster{
				cl("p5", "environment=prod"), cl("p1", "environment=prod"), cl("x2"),
				cl("p3", "environment=prod"), cl("p2", "environment=prod"), cl("x1", "environment=qa"),
				cl("p4", "environment=prod"),
			},
			want: []grouping.Group{
				group("prod", 0, "p1", "p2"),
				group("prod", 1, "p3", "p4"),
				group("prod", 2, "p5"),
				group("", 3, "x1", "x2"),
			},
		},
		{
			name:     "names in byte order",
			strategy: strategy(intstr.IntOrString{}),
			clusters: []grouping.Cluster{cl("a"), cl("_"), cl("B"), cl("a-1"), cl("0")},
			want:     []grouping.Group{group("", 0, "0", "B", "_", "a", "a-1")},
		},
		{
			name:     "claims only",
			strategy: strategy(intstr.IntOrString{}, byClaim("aws", "platform.open-cluster-management.io", metav1.LabelSelectorOpIn, "AWS")),
			clusters: []grouping.Cluster{
				withClaims(cl("a"), "platform.open-cluster-management.io=AWS"),
				withClaims(cl("b", "platform.open-cluster-management.io=AWS"), "platform.open-cluster-management.io=GCP"),
				cl("c"),
			},
			want: []grouping.Group{group("aws", 0, "a"), group("", 1, "b", "c")},
		},
		{
			name: "label AND claim within one selector",
			strategy: strategy(intstr.IntOrString{}, clusterv1beta1.DecisionGroup{
				GroupName: "eu-aws",
				ClusterSelector: clusterv1beta1.GroupClusterSelector{
					LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}},
					ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "platform", Operator: metav1.LabelSelectorOpIn, Values: []string{"AWS"}},
					}},
				},
			}),
			clusters: []grouping.Cluster{
				withClaims(cl("both", "region=eu"), "platform=AWS"),
				cl("label-only", "region=eu"),
				withClaims(cl("claim-only"), "platform=AWS"),
			},
			want: []grouping.Group{group("eu-aws", 0, "both"), group("", 1, "claim-only", "label-only")},
		},
		{
			name: "NotIn, Exists, DoesNotExist, nil labels",
			strategy: strategy(intstr.IntOrString{},
				byExpr("not-prod", "environment", metav1.LabelSelectorOpNotIn, "prod"),
				byExpr("has-env", "environment", metav1.LabelSelectorOpExists),
				byExpr("no-env", "environment", metav1.LabelSelectorOpDoesNotExist)),
			clusters: []grouping.Cluster{
				cl("dev", "environment=dev"), cl("prod", "environment=prod"), cl("nil-labels"),
				{Name: "empty-labels", Labels: map[string]string{}},
			},
			// NotIn matches a cluster without the key, as in Kubernetes.
			want: []grouping.Group{
				group("not-prod", 0, "dev", "empty-labels", "nil-labels"),
				group("has-env", 1, "prod"),
			},
		},
		{
			name:     "DoesNotExist alone",
			strategy: strategy(intstr.IntOrString{}, byExpr("no-env", "environment", metav1.LabelSelectorOpDoesNotExist)),
			clusters: []grouping.Cluster{cl("a", "environment=dev"), cl("b")},
			want:     []grouping.Group{group("no-env", 0, "b"), group("", 1, "a")},
		},
		{
			name:     "empty selector matches every remaining cluster",
			strategy: strategy(intstr.IntOrString{}, byLabel("dev", "environment", "dev"), clusterv1beta1.DecisionGroup{GroupName: "rest"}),
			clusters: seedClusters,
			want:     []grouping.Group{group("dev", 0, "dev-cluster"), group("rest", 1, "prod-cluster", "stg-cluster")},
		},
		{
			name:     "7% of 100 is exactly 7 (OCM: 8)",
			strategy: strategy(intstr.FromString("7%")),
			clusters: hundred,
			want: func() []grouping.Group {
				var out []grouping.Group
				for i := 0; i < 100; i += 7 {
					out = append(out, group("", int32(i/7), names("c", i, min(i+7, 100))...))
				}
				return out
			}(),
		},
		{
			name:     "50% of 3 rounds up to 2",
			strategy: strategy(intstr.FromString("50%"), byExpr("all", "x", metav1.LabelSelectorOpDoesNotExist)),
			clusters: numbered("c", 3),
			want:     []grouping.Group{group("all", 0, "c-000", "c-001"), group("all", 1, "c-002")},
		},
		{
			name:     "the int 0 (unset) means all",
			strategy: strategy(intstr.FromInt32(0)),
			clusters: numbered("c", 3),
			want:     []grouping.Group{group("", 0, "c-000", "c-001", "c-002")},
		},
		{
			name:     "an integer written as a string, as the CRD admits",
			strategy: strategy(intstr.FromString("2")),
			clusters: numbered("c", 3),
			want:     []grouping.Group{group("", 0, "c-000", "c-001"), group("", 1, "c-002")},
		},
		{
			name:     "length above total means all",
			strategy: strategy(intstr.FromInt32(10)),
			clusters: numbered("c", 3),
			want:     []grouping.Group{group("", 0, "c-000", "c-001", "c-002")},
		},
		{
			name:     "length is computed over all clusters, named and unnamed",
			strategy: strategy(intstr.FromString("25%"), byLabel("a", "g", "a")),
			clusters: append(numbered("a", 3, "g=a"), numbered("b", 5)...),
			// L = ceil(25% of 8) = 2.
			want: []grouping.Group{
				group("a", 0, "a-000", "a-001"), group("a", 1, "a-002"),
				group("", 2, "b-000", "b-001"), group("", 3, "b-002", "b-003"), group("", 4, "b-004"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			strategy := *tt.strategy.DeepCopy()
			clusters := deepCopyClusters(tt.clusters)
			got, err := grouping.Divide(tt.strategy, tt.clusters)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, strategy, tt.strategy, "strategy modified")
			assert.Equal(t, clusters, tt.clusters, "clusters modified")

			// Any input order gives the same groups.
			shuffled := slices.Clone(tt.clusters)
			rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			again, err := grouping.Divide(tt.strategy, shuffled)
			require.NoError(t, err)
			assert.Equal(t, got, again)
		})
	}
}

func deepCopyClusters(in []grouping.Cluster) []grouping.Cluster {
	if in == nil {
		return nil
	}
	out := make([]grouping.Cluster, len(in))
	for i, c := range in {
		out[i] = grouping.Cluster{Name: c.Name}
		if c.Labels != nil {
			out[i].Labels = kv()
			for k, v := range c.Labels {
				out[i].Labels[k] = v
			}
		}
		if c.Claims != nil {
			out[i].Claims = kv()
			for k, v := range c.Claims {
				out[i].Claims[k] = v
			}
		}
	}
	return out
}

func TestDivideGroupsDoNotShareCapacity(t *testing.T) {
	t.Parallel()
	got, err := grouping.Divide(strategy(intstr.FromInt32(2)), numbered("c", 4))
	require.NoError(t, err)
	require.Len(t, got, 2)
	_ = append(got[0].Clusters, "intruder")
	assert.Equal(t, []string{"c-002", "c-003"}, got[1].Clusters)
}

func TestDivideErrors(t *testing.T) {
	t.Parallel()
	badOp := byExpr("stg", "environment", "Equals", "stg")
	tests := []struct {
		name     string
		strategy clusterv1beta1.GroupStrategy
		clusters []grouping.Cluster
		// want are the problems, one substring each, in order.
		want []string
		// fields are the FieldError fields of the problems ("" for none).
		fields []string
	}{
		{
			name:     "bad operator names the group and the value",
			strategy: strategy(intstr.IntOrString{}, byLabel("dev", "environment", "dev"), badOp),
			want: []string{`decisionStrategy.groupStrategy.decisionGroups[1] ("stg").groupClusterSelector.labelSelector.matchExpressions[0] ` +
				`"{key: environment, operator: Equals, values: [stg]}": want a valid label selector requirement: "Equals" is not a valid label selector operator`},
			fields: []string{`decisionStrategy.groupStrategy.decisionGroups[1] ("stg").groupClusterSelector.labelSelector.matchExpressions[0]`},
		},
		{
			name: "two bad selectors give two errors",
			strategy: strategy(intstr.IntOrString{},
				byExpr("dev", "environment", metav1.LabelSelectorOpIn), // In needs values
				badOp),
			want: []string{
				`decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchExpressions[0] "{key: environment, operator: In}": want a valid label selector requirement: values: Invalid value:`,
				`decisionGroups[1] ("stg").groupClusterSelector.labelSelector.matchExpressions[0]`,
			},
			fields: []string{
				`decisionStrategy.groupStrategy.decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchExpressions[0]`,
				`decisionStrategy.groupStrategy.decisionGroups[1] ("stg").groupClusterSelector.labelSelector.matchExpressions[0]`,
			},
		},
		{
			name:     "bad label value",
			strategy: strategy(intstr.IntOrString{}, byLabel("dev", "environment", "not ok!")),
			want:     []string{`decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchLabels["environment"] "not ok!": want a valid label selector requirement: values[0][environment]: Invalid value: "not ok!"`},
			fields:   []string{`decisionStrategy.groupStrategy.decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchLabels["environment"]`},
		},
		{
			name:     "bad claim selector",
			strategy: strategy(intstr.IntOrString{}, byClaim("aws", "platform", metav1.LabelSelectorOpExists, "AWS")),
			want:     []string{`decisionGroups[0] ("aws").groupClusterSelector.claimSelector.matchExpressions[0] "{key: platform, operator: Exists, values: [AWS]}": want a valid claim selector requirement: values: Invalid value:`},
			fields:   []string{`decisionStrategy.groupStrategy.decisionGroups[0] ("aws").groupClusterSelector.claimSelector.matchExpressions[0]`},
		},
		{
			name: "every bad requirement of one selector",
			strategy: strategy(intstr.IntOrString{}, clusterv1beta1.DecisionGroup{
				GroupName: "dev",
				ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: metav1.LabelSelector{
					MatchLabels: map[string]string{"z!": "1", "a!": "1", "fine": "yes"},
					MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "ok", Operator: metav1.LabelSelectorOpExists},
						{Key: "env", Operator: "Like", Values: []string{"d*"}},
					},
				}},
			}),
			want: []string{`matchLabels["a!"] "1"`, `matchLabels["z!"] "1"`, `matchExpressions[1] "{key: env, operator: Like, values: [d*]}"`},
			fields: []string{
				`decisionStrategy.groupStrategy.decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchLabels["a!"]`,
				`decisionStrategy.groupStrategy.decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchLabels["z!"]`,
				`decisionStrategy.groupStrategy.decisionGroups[0] ("dev").groupClusterSelector.labelSelector.matchExpressions[1]`,
			},
		},
		{
			name:     "clustersPerDecisionGroup not a percentage",
			strategy: strategy(intstr.FromString("7x")),
			want:     []string{`decisionStrategy.groupStrategy.clustersPerDecisionGroup "7x": want a positive integer or a percentage 1%-100%`},
			fields:   []string{"decisionStrategy.groupStrategy.clustersPerDecisionGroup"},
		},
		{
			name:     "clustersPerDecisionGroup above 100%",
			strategy: strategy(intstr.FromString("150%")),
			want:     []string{`clustersPerDecisionGroup "150%": want a positive integer or a percentage 1%-100%`},
			fields:   []string{"decisionStrategy.groupStrategy.clustersPerDecisionGroup"},
		},
		{
			name:     "clustersPerDecisionGroup with decimals",
			strategy: strategy(intstr.FromString("7.5%")),
			want:     []string{`clustersPerDecisionGroup "7.5%"`},
			fields:   []string{"decisionStrategy.groupStrategy.clustersPerDecisionGroup"},
		},
		{
			name:     "clustersPerDecisionGroup negative",
			strategy: strategy(intstr.FromInt32(-3)),
			want:     []string{`clustersPerDecisionGroup "-3": want a positive integer or a percentage 1%-100%`},
			fields:   []string{"decisionStrategy.groupStrategy.clustersPerDecisionGroup"},
		},
		{
			name:     "clustersPerDecisionGroup 0%",
			strategy: strategy(intstr.FromString("0%")),
			want:     []string{`clustersPerDecisionGroup "0%": want a positive integer or a percentage 1%-100%`},
			fields:   []string{"decisionStrategy.groupStrategy.clustersPerDecisionGroup"},
		},
		{
			name:     "clustersPerDecisionGroup empty string",
			strategy: strategy(intstr.FromString("")),
			want:     []string{`clustersPerDecisionGroup "": want`},
			fields:   []string{"decisionStrategy.groupStrategy.clustersPerDecisionGroup"},
		},
		{
			name:     "duplicate cluster names",
			strategy: seedStrategy(),
			clusters: []grouping.Cluster{cl("b"), cl("a"), cl("b"), cl("b"), cl("c"), cl("a")},
			want:     []string{`duplicate cluster name "a"`, `duplicate cluster name "b"`},
			fields:   []string{"", ""},
		},
		{
			name:     "empty cluster name",
			strategy: seedStrategy(),
			clusters: []grouping.Cluster{cl("a"), cl("")},
			want:     []string{`clusters[1]: empty cluster name`},
			fields:   []string{""},
		},
		{
			name:     "strategy and clusters reported together",
			strategy: strategy(intstr.FromString("x%"), badOp),
			clusters: []grouping.Cluster{cl("a"), cl("a")},
			want:     []string{`clustersPerDecisionGroup "x%"`, `decisionGroups[0] ("stg")`, `duplicate cluster name "a"`},
			fields: []string{
				"decisionStrategy.groupStrategy.clustersPerDecisionGroup",
				`decisionStrategy.groupStrategy.decisionGroups[0] ("stg").groupClusterSelector.labelSelector.matchExpressions[0]`,
				"",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := grouping.Divide(tt.strategy, tt.clusters)
			require.Error(t, err)
			assert.Nil(t, got)
			problems := grouping.Problems(err)
			require.Len(t, problems, len(tt.want), "problems: %v", err)
			for i, p := range problems {
				assert.Contains(t, p.Error(), tt.want[i])
				assert.Contains(t, err.Error(), p.Error())
				var fe *grouping.FieldError
				if tt.fields[i] == "" {
					assert.False(t, errors.As(p, &fe), "problem %d is a field error: %v", i, p)
					continue
				}
				require.True(t, errors.As(p, &fe), "problem %d: %v", i, p)
				assert.Equal(t, tt.fields[i], fe.Field)
			}
		})
	}
}

func TestDivideErrorsAreFieldErrors(t *testing.T) {
	t.Parallel()
	_, err := grouping.Divide(strategy(intstr.IntOrString{}, byExpr("stg", "environment", "Equals", "stg")), nil)
	require.Error(t, err)

	var fe *grouping.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "{key: environment, operator: Equals, values: [stg]}", fe.Value)
	assert.Equal(t, "a valid label selector requirement", fe.Want)

	var se *grouping.SelectorError
	require.True(t, errors.As(err, &se))
	assert.EqualError(t, se.Cause, `"Equals" is not a valid label selector operator`)
	assert.Same(t, fe, se.Field)

	in := se.In(`placement "ns/p"`)
	assert.Equal(t, `placement "ns/p"`, in.Field.Object)
	assert.Empty(t, se.Field.Object, "In must not modify the receiver")
	assert.True(t, errors.Is(in, se.Cause))
}

func TestProblems(t *testing.T) {
	t.Parallel()
	a, b, c := errors.New("a"), &grouping.FieldError{Field: "f"}, errors.New("c")
	se := &grouping.SelectorError{Field: b, Cause: c}
	tests := []struct {
		name string
		in   error
		want []error
	}{
		{"nil", nil, nil},
		{"plain", a, []error{a}},
		{"field error", b, []error{b}},
		{"selector error is one problem", se, []error{se}},
		{"joined", errors.Join(a, se), []error{a, se}},
		{"nested joins flatten", errors.Join(errors.Join(a, b), se), []error{a, b, se}},
		{"wrapped is one problem", fmt.Errorf("x: %w", a), []error{fmt.Errorf("x: %w", a)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, grouping.Problems(tt.in))
		})
	}
}

func TestStrategyDivideOrigins(t *testing.T) {
	t.Parallel()
	s, err := grouping.Compile(strategy(intstr.FromInt32(2),
		byLabel("canary", "ring", "canary"),
		byLabel("prod", "environment", "prod"),
		byLabel("dev", "environment", "dev")))
	require.NoError(t, err)
	clusters := append(numbered("p", 3, "environment=prod"), numbered("x", 1)...)
	clusters = append(clusters, numbered("d", 1, "environment=dev")...)
	d, err := s.Divide(clusters)
	require.NoError(t, err)
	assert.Equal(t, 2, d.Length)
	assert.Equal(t, []grouping.Group{
		group("prod", 0, "p-000", "p-001"),
		group("prod", 1, "p-002"),
		group("dev", 2, "d-000"),
		group("", 3, "x-000"),
	}, d.Groups)
	assert.Equal(t, []int{1, 1, 2, -1}, d.Origins)

	empty, err := s.Divide(nil)
	require.NoError(t, err)
	assert.Equal(t, []grouping.Group{group("", 0)}, empty.Groups)
	assert.Equal(t, []int{-1}, empty.Origins)
	assert.Equal(t, 0, empty.Length)

	_, err = s.Divide([]grouping.Cluster{cl("a"), cl("a")})
	assert.ErrorContains(t, err, `duplicate cluster name "a"`)
}

func TestStrategyLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    intstr.IntOrString
		total int
		want  int
	}{
		{intstr.IntOrString{}, 10, 10},
		{intstr.FromInt32(3), 10, 3},
		{intstr.FromInt32(0), 10, 10},
		{intstr.FromInt32(11), 10, 10},
		{intstr.FromString("7%"), 100, 7},
		{intstr.FromString("7%"), 101, 8},
		{intstr.FromString("1%"), 1, 1},
		{intstr.FromString("100%"), 0, 0},
		{intstr.FromString("33%"), 100_000, 33_000},
		{intstr.FromString("3"), 10, 3},
		{intstr.FromString("99999999999999999999999"), 10, 10},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s of %d", tt.in.String(), tt.total), func(t *testing.T) {
			t.Parallel()
			s, err := grouping.Compile(strategy(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Length(tt.total))
		})
	}
}

// OCM differs: its calculateLength computes a percentage in floating point,
// ceil(7/100*100) = ceil(7.000000000000001) = 8. rolloutkit computes it in
// exact integer arithmetic.
func TestPercentLengthOCMDiffers(t *testing.T) {
	t.Parallel()
	ocm := int(math.Ceil(7.0 / 100 * float64(100)))
	assert.Equal(t, 8, ocm, "OCM's formula")

	s, err := grouping.Compile(strategy(intstr.FromString("7%")))
	require.NoError(t, err)
	assert.Equal(t, 7, s.Length(100), "ours")
}

func TestNilAndZeroStrategy(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*grouping.Strategy{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := s.Divide([]grouping.Cluster{cl("b"), cl("a")})
			require.NoError(t, err)
			assert.Equal(t, []grouping.Group{group("", 0, "a", "b")}, d.Groups)
			assert.Equal(t, 5, s.Length(5))
		})
	}
}
