package grouping_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
		// want are the problems, each a *field.Error, in order.
		want []string
	}{
		{
			name:     "bad operator names the requirement's operator and the supported ones",
			strategy: strategy(intstr.IntOrString{}, byLabel("dev", "environment", "dev"), badOp),
			want: []string{`decisionGroups[1].groupClusterSelector.labelSelector.matchExpressions[0].operator: ` +
				`Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`},
		},
		{
			name: "two bad selectors give two errors",
			strategy: strategy(intstr.IntOrString{},
				byExpr("dev", "environment", metav1.LabelSelectorOpIn), // In needs values
				badOp),
			want: []string{
				"decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
				`decisionGroups[1].groupClusterSelector.labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
			},
		},
		{
			name:     "bad label value",
			strategy: strategy(intstr.IntOrString{}, byLabel("dev", "environment", "not ok!")),
			want:     []string{`decisionGroups[0].groupClusterSelector.labelSelector.matchLabels[environment]: Invalid value: "not ok!": ` + labelValueDetail},
		},
		{
			name:     "bad claim selector",
			strategy: strategy(intstr.IntOrString{}, byClaim("aws", "platform", metav1.LabelSelectorOpExists, "AWS")),
			want:     []string{"decisionGroups[0].groupClusterSelector.claimSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"},
		},
		{
			name: "every problem of every bad requirement of one selector",
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
			want: []string{
				`decisionGroups[0].groupClusterSelector.labelSelector.matchLabels: Invalid value: "a!": ` + labelKeyDetail,
				`decisionGroups[0].groupClusterSelector.labelSelector.matchLabels: Invalid value: "z!": ` + labelKeyDetail,
				`decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[1].operator: Unsupported value: "Like": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
				`decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[1].values[0]: Invalid value: "d*": ` + labelValueDetail,
			},
		},
		{
			name:     "clustersPerDecisionGroup not a percentage",
			strategy: strategy(intstr.FromString("7x")),
			want:     []string{`clustersPerDecisionGroup: Invalid value: "7x": want a positive integer or a percentage 1%-100%`},
		},
		{
			name:     "clustersPerDecisionGroup above 100%",
			strategy: strategy(intstr.FromString("150%")),
			want:     []string{`clustersPerDecisionGroup: Invalid value: "150%": want a positive integer or a percentage 1%-100%`},
		},
		{
			name:     "clustersPerDecisionGroup with decimals",
			strategy: strategy(intstr.FromString("7.5%")),
			want:     []string{`clustersPerDecisionGroup: Invalid value: "7.5%": want a positive integer or a percentage 1%-100%`},
		},
		{
			name:     "clustersPerDecisionGroup negative, an integer unquoted",
			strategy: strategy(intstr.FromInt32(-3)),
			want:     []string{`clustersPerDecisionGroup: Invalid value: -3: want a positive integer or a percentage 1%-100%`},
		},
		{
			name:     "clustersPerDecisionGroup 0%",
			strategy: strategy(intstr.FromString("0%")),
			want:     []string{`clustersPerDecisionGroup: Invalid value: "0%": want a positive integer or a percentage 1%-100%`},
		},
		{
			name:     "clustersPerDecisionGroup empty string",
			strategy: strategy(intstr.FromString("")),
			want:     []string{`clustersPerDecisionGroup: Invalid value: "": want a positive integer or a percentage 1%-100%`},
		},
		{
			name:     "duplicate cluster names, each later one in input order",
			strategy: seedStrategy(),
			clusters: []grouping.Cluster{cl("b"), cl("a"), cl("b"), cl("b"), cl("c"), cl("a")},
			want: []string{
				`clusters[2].Name: Duplicate value: "b": want each cluster once (clusters[0] has it too)`,
				`clusters[3].Name: Duplicate value: "b": want each cluster once (clusters[0] has it too)`,
				`clusters[5].Name: Duplicate value: "a": want each cluster once (clusters[1] has it too)`,
			},
		},
		{
			name:     "empty cluster name",
			strategy: seedStrategy(),
			clusters: []grouping.Cluster{cl("a"), cl("")},
			want:     []string{`clusters[1].Name: Required value: a cluster name`},
		},
		{
			name:     "empty cluster names are missing, not duplicates",
			strategy: seedStrategy(),
			clusters: []grouping.Cluster{cl(""), cl("a"), cl("")},
			want:     []string{`clusters[0].Name: Required value: a cluster name`, `clusters[2].Name: Required value: a cluster name`},
		},
		{
			name:     "strategy and clusters reported together",
			strategy: strategy(intstr.FromString("x%"), badOp),
			clusters: []grouping.Cluster{cl("a"), cl("a")},
			want: []string{
				`clustersPerDecisionGroup: Invalid value: "x%": want a positive integer or a percentage 1%-100%`,
				`decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
				`clusters[1].Name: Duplicate value: "a": want each cluster once (clusters[0] has it too)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := grouping.Divide(tt.strategy, tt.clusters)
			require.Error(t, err)
			assert.Nil(t, got)
			problems := fieldErrors(t, err)
			require.Len(t, problems, len(tt.want), "problems: %v", err)
			for i, p := range problems {
				assert.Equal(t, tt.want[i], p.Error(), "problem %d", i)
			}
		})
	}
}

func TestCompileRootsPathsAtItsArgument(t *testing.T) {
	t.Parallel()
	gs := field.NewPath("spec", "decisionStrategy", "groupStrategy")
	_, err := grouping.Compile(strategy(intstr.FromString("150%"), byExpr("stg", "environment", "Equals", "stg")), gs)
	require.Error(t, err)
	problems := fieldErrors(t, err)
	require.Len(t, problems, 2)
	assert.Equal(t, field.ErrorTypeInvalid, problems[0].Type)
	assert.Equal(t, "spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup", problems[0].Field)
	assert.Equal(t, "150%", problems[0].BadValue)
	assert.Equal(t, "want a positive integer or a percentage 1%-100%", problems[0].Detail)
	assert.Equal(t, field.ErrorTypeNotSupported, problems[1].Type)
	assert.Equal(t, "spec.decisionStrategy.groupStrategy.decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[0].operator", problems[1].Field)
	assert.Equal(t, "Equals", problems[1].BadValue)
}

func TestStrategyDivideOrigins(t *testing.T) {
	t.Parallel()
	s, err := grouping.Compile(strategy(intstr.FromInt32(2),
		byLabel("canary", "ring", "canary"),
		byLabel("prod", "environment", "prod"),
		byLabel("dev", "environment", "dev")), nil)
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
	assert.EqualError(t, err, `clusters[1].Name: Duplicate value: "a": want each cluster once (clusters[0] has it too)`)
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
			s, err := grouping.Compile(strategy(tt.in), nil)
			require.NoError(t, err)
			d, err := s.Divide(numbered("c", tt.total))
			require.NoError(t, err)
			assert.Equal(t, tt.want, d.Length)
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

	s, err := grouping.Compile(strategy(intstr.FromString("7%")), nil)
	require.NoError(t, err)
	d, err := s.Divide(numbered("c", 100))
	require.NoError(t, err)
	assert.Equal(t, 7, d.Length, "ours")
	assert.Len(t, d.Groups, 15, "14 groups of 7 and one of 2")
}

func TestNilAndZeroStrategy(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*grouping.Strategy{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := s.Divide([]grouping.Cluster{cl("b"), cl("a")})
			require.NoError(t, err)
			assert.Equal(t, []grouping.Group{group("", 0, "a", "b")}, d.Groups)
			d, err = s.Divide(numbered("c", 5))
			require.NoError(t, err)
			assert.Equal(t, 5, d.Length)
		})
	}
}
