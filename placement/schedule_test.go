package placement_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/placement"
)

func TestScheduleSelection(t *testing.T) {
	t.Parallel()
	fleet := []*clusterv1.ManagedCluster{
		withClaims(mc("aws-eu", "region=eu", "environment=prod"), "platform=AWS"),
		withClaims(mc("gcp-eu", "region=eu", "environment=dev"), "platform=GCP"),
		withClaims(mc("aws-us", "region=us"), "platform=AWS"),
		mc("bare"),
	}
	tests := []struct {
		name       string
		predicates []clusterv1beta1.ClusterPredicate
		want       []string
	}{
		{"no predicates selects all", nil, []string{"aws-eu", "aws-us", "bare", "gcp-eu"}},
		{"an empty predicate selects all", []clusterv1beta1.ClusterPredicate{{}}, []string{"aws-eu", "aws-us", "bare", "gcp-eu"}},
		{"label predicate", []clusterv1beta1.ClusterPredicate{labelPredicate("region=eu")}, []string{"aws-eu", "gcp-eu"}},
		{"claims only", []clusterv1beta1.ClusterPredicate{claimPredicate("platform", metav1.LabelSelectorOpIn, "AWS")}, []string{"aws-eu", "aws-us"}},
		{"claims are not labels", []clusterv1beta1.ClusterPredicate{labelPredicate("platform=AWS")}, nil},
		{
			"predicates are ORed",
			[]clusterv1beta1.ClusterPredicate{labelPredicate("region=us"), claimPredicate("platform", metav1.LabelSelectorOpIn, "GCP")},
			[]string{"aws-us", "gcp-eu"},
		},
		{
			"label AND claim within one predicate",
			[]clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: kv("region=eu")},
				ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "platform", Operator: metav1.LabelSelectorOpIn, Values: []string{"AWS"}},
				}},
			}}},
			[]string{"aws-eu"},
		},
		{
			"NotIn matches clusters without the label",
			[]clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "environment", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"prod"}}},
			}}}},
			[]string{"aws-us", "bare", "gcp-eu"},
		},
		{
			"Exists",
			[]clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "environment", Operator: metav1.LabelSelectorOpExists}},
			}}}},
			[]string{"aws-eu", "gcp-eu"},
		},
		{
			"DoesNotExist, nil labels included",
			[]clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "environment", Operator: metav1.LabelSelectorOpDoesNotExist}},
			}}}},
			[]string{"aws-us", "bare"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, tt.predicates)
			res, err := placement.Schedule(p, fleet)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Clusters)
			assert.Equal(t, int32(len(tt.want)), res.Status.NumberOfSelectedClusters)
			want := group("", 0, tt.want...)
			assert.Equal(t, []grouping.Group{want}, res.Groups)
		})
	}
}

func TestScheduleGroupsAndWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		p        *clusterv1beta1.Placement
		clusters []*clusterv1.ManagedCluster
		groups   []grouping.Group
		warnings []placement.Warning
	}{
		{
			name: "7 clusters, length 2, canary matches nothing, prod split, two unnamed",
			p: newPlacement(intstr.FromInt32(2), nil,
				clusterv1beta1.DecisionGroup{GroupName: "canary", ClusterSelector: clusterv1beta1.GroupClusterSelector{
					LabelSelector: metav1.LabelSelector{MatchLabels: kv("ring=canary")},
				}},
				envGroup("prod")),
			clusters: []*clusterv1.ManagedCluster{
				mc("p5", "environment=prod"), mc("x2"), mc("p1", "environment=prod"), mc("p3", "environment=prod"),
				mc("x1", "environment=qa"), mc("p2", "environment=prod"), mc("p4", "environment=prod"),
			},
			groups: []grouping.Group{
				group("prod", 0, "p1", "p2"),
				group("prod", 1, "p3", "p4"),
				group("prod", 2, "p5"),
				group("", 3, "x1", "x2"),
			},
			warnings: []placement.Warning{
				{Kind: placement.EmptyNamedGroup, Message: `group "canary" matched no cluster: "prod" is now indices 0-2, the unnamed group is now index 3`},
				{Kind: placement.SplitGroup, Message: `clustersPerDecisionGroup "2" (2 clusters per group) splits group "prod" (5 clusters) into 3 groups, indices 0-2`},
				{Kind: placement.UnnamedGroup, Message: `2 clusters matched no decision group and will be rolled out last, in the unnamed group (index 3): "x1", "x2"`},
			},
		},
		{
			name:     "clustersPerDecisionGroup \"2\", a string the CRD pattern admits (OCM's calculateLength refuses it)",
			p:        newPlacement(intstr.FromString("2"), nil),
			clusters: numbered("u", 3),
			groups:   []grouping.Group{group("", 0, "u-000", "u-001"), group("", 1, "u-002")},
		},
		{
			name:     "empty group with nothing after it",
			p:        newPlacement(intstr.IntOrString{}, nil, envGroup("dev"), envGroup("prod")),
			clusters: []*clusterv1.ManagedCluster{mc("d", "environment=dev")},
			groups:   []grouping.Group{group("dev", 0, "d")},
			warnings: []placement.Warning{{Kind: placement.EmptyNamedGroup, Message: `group "prod" matched no cluster`}},
		},
		{
			name: "many unnamed clusters: the first five are named",
			p:    newPlacement(intstr.FromString("50%"), nil, envGroup("dev")),
			clusters: append([]*clusterv1.ManagedCluster{mc("d", "environment=dev")},
				numbered("u", 7)...),
			// L = ceil(50% of 8) = 4.
			groups: []grouping.Group{
				group("dev", 0, "d"),
				group("", 1, names("u", 0, 4)...),
				group("", 2, names("u", 4, 7)...),
			},
			warnings: []placement.Warning{{Kind: placement.UnnamedGroup, Message: `7 clusters matched no decision group and will be rolled out last, ` +
				`in the unnamed groups (indices 1-2): "u-000", "u-001", "u-002", "u-003", "u-004" and 2 more`}},
		},
		{
			name:     "no decision groups: unnamed groups are expected, no warning",
			p:        newPlacement(intstr.FromInt32(2), nil),
			clusters: numbered("c", 3),
			groups:   []grouping.Group{group("", 0, "c-000", "c-001"), group("", 1, "c-002")},
		},
		{
			name:     "nothing selected: one empty group, every named group warned",
			p:        newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{labelPredicate("x=y")}, envGroup("dev"), envGroup("prod")),
			clusters: numbered("c", 3),
			groups:   []grouping.Group{group("", 0)},
			warnings: []placement.Warning{
				{Kind: placement.EmptyNamedGroup, Message: `group "dev" matched no cluster`},
				{Kind: placement.EmptyNamedGroup, Message: `group "prod" matched no cluster`},
			},
		},
		{
			name:     "7% of 100 clusters is 7 per group (OCM: 8)",
			p:        newPlacement(intstr.FromString("7%"), nil),
			clusters: numbered("c", 100),
			groups: func() []grouping.Group {
				var out []grouping.Group
				for i := 0; i < 100; i += 7 {
					out = append(out, group("", int32(i/7), names("c", i, min(i+7, 100))...))
				}
				return out
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := placement.Schedule(tt.p, tt.clusters)
			require.NoError(t, err)
			assert.Equal(t, tt.groups, res.Groups)
			assert.Equal(t, tt.warnings, res.Warnings)
			back, err := placement.GroupsFromDecisions(res.Decisions)
			require.NoError(t, err)
			assert.Equal(t, res.Groups, back)
		})
	}
}

func TestScheduleDecisions(t *testing.T) {
	t.Parallel()
	type pd struct {
		name, groupName, groupIndex string
		clusters                    int
	}
	tests := []struct {
		name      string
		p         *clusterv1beta1.Placement
		clusters  []*clusterv1.ManagedCluster
		decisions []pd
		status    []clusterv1beta1.DecisionGroupStatus
	}{
		{
			name:      "250 clusters: 100, 100, 50",
			p:         newPlacement(intstr.IntOrString{}, nil),
			clusters:  numbered("c", 250),
			decisions: []pd{{"p-decision-1", "", "0", 100}, {"p-decision-2", "", "0", 100}, {"p-decision-3", "", "0", 50}},
			status: []clusterv1beta1.DecisionGroupStatus{
				{DecisionGroupIndex: 0, Decisions: []string{"p-decision-1", "p-decision-2", "p-decision-3"}, ClustersCount: 250},
			},
		},
		{
			name:     "numbering counts across groups",
			p:        newPlacement(intstr.IntOrString{}, nil, envGroup("a"), envGroup("b")),
			clusters: append(numbered("a", 150, "environment=a"), numbered("b", 100, "environment=b")...),
			decisions: []pd{
				{"p-decision-1", "a", "0", 100}, {"p-decision-2", "a", "0", 50},
				{"p-decision-3", "b", "1", 100},
			},
			status: []clusterv1beta1.DecisionGroupStatus{
				{DecisionGroupIndex: 0, DecisionGroupName: "a", Decisions: []string{"p-decision-1", "p-decision-2"}, ClustersCount: 150},
				{DecisionGroupIndex: 1, DecisionGroupName: "b", Decisions: []string{"p-decision-3"}, ClustersCount: 100},
			},
		},
		{
			name:      "no cluster: one empty PlacementDecision",
			p:         newPlacement(intstr.IntOrString{}, nil, envGroup("a")),
			clusters:  nil,
			decisions: []pd{{"p-decision-1", "", "0", 0}},
			status: []clusterv1beta1.DecisionGroupStatus{
				{DecisionGroupIndex: 0, Decisions: []string{"p-decision-1"}, ClustersCount: 0},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := placement.Schedule(tt.p, tt.clusters)
			require.NoError(t, err)
			require.Len(t, res.Decisions, len(tt.decisions))
			for i, want := range tt.decisions {
				got := res.Decisions[i]
				assert.Equal(t, want.name, got.Name)
				assert.Equal(t, "ns", got.Namespace)
				assert.Equal(t, metav1.TypeMeta{APIVersion: "cluster.open-cluster-management.io/v1beta1", Kind: "PlacementDecision"}, got.TypeMeta)
				assert.Equal(t, map[string]string{
					"cluster.open-cluster-management.io/placement":            "p",
					"cluster.open-cluster-management.io/decision-group-name":  want.groupName,
					"cluster.open-cluster-management.io/decision-group-index": want.groupIndex,
				}, got.Labels)
				assert.Equal(t, []metav1.OwnerReference{{
					APIVersion:         "cluster.open-cluster-management.io/v1beta1",
					Kind:               "Placement",
					Name:               "p",
					UID:                "uid-p",
					Controller:         ptr.To(true),
					BlockOwnerDeletion: ptr.To(true),
				}}, got.OwnerReferences)
				assert.Len(t, got.Status.Decisions, want.clusters)
				assert.NotNil(t, got.Status.Decisions, "decisions is required: an empty list, not null")
			}
			assert.Equal(t, tt.status, res.Status.DecisionGroups)

			var all []string
			for _, d := range res.Decisions {
				for _, cd := range d.Status.Decisions {
					all = append(all, cd.ClusterName)
				}
			}
			assert.Equal(t, res.Clusters, all, "decisions list the clusters in group order, each once")
		})
	}
}

func TestScheduleNumberOfClusters(t *testing.T) {
	t.Parallel()
	fleet := []*clusterv1.ManagedCluster{mc("c"), mc("a"), mc("b")}
	tests := []struct {
		name      string
		number    int32
		clusters  []string
		satisfied metav1.Condition
		warnings  []placement.Warning
	}{
		{
			name: "fewer than selected: equal scores, the first in name order", number: 2, clusters: []string{"a", "b"},
			satisfied: metav1.Condition{Status: metav1.ConditionTrue, Reason: "AllDecisionsScheduled", Message: "All cluster decisions scheduled"},
		},
		{
			name: "as many as selected", number: 3, clusters: []string{"a", "b", "c"},
			satisfied: metav1.Condition{Status: metav1.ConditionTrue, Reason: "AllDecisionsScheduled", Message: "All cluster decisions scheduled"},
		},
		{
			name: "more than selected", number: 5, clusters: []string{"a", "b", "c"},
			satisfied: metav1.Condition{Status: metav1.ConditionFalse, Reason: "NotAllDecisionsScheduled", Message: "2 cluster decisions unscheduled"},
			warnings: []placement.Warning{{Kind: placement.NumberOfClusters,
				Message: "numberOfClusters is 5 but only 3 clusters are selected: 2 cluster decisions unscheduled"}},
		},
		{
			name: "zero", number: 0, clusters: nil,
			satisfied: metav1.Condition{Status: metav1.ConditionFalse, Reason: "NoManagedClusterMatched", Message: "No ManagedCluster matches any of the cluster predicate"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Spec.NumberOfClusters = ptr.To(tt.number)
			res, err := placement.Schedule(p, fleet)
			require.NoError(t, err)
			assert.Equal(t, tt.clusters, res.Clusters)
			assert.Equal(t, int32(len(tt.clusters)), res.Status.NumberOfSelectedClusters)
			got := condition(t, res.Status, clusterv1beta1.PlacementConditionSatisfied)
			assert.Equal(t, tt.satisfied, metav1.Condition{Status: got.Status, Reason: got.Reason, Message: got.Message})
			assert.Equal(t, tt.warnings, res.Warnings)
		})
	}
}

func TestScheduleNothingSelected(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		clusters        []*clusterv1.ManagedCluster
		reason, message string
	}{
		"no cluster matches": {[]*clusterv1.ManagedCluster{mc("a", "environment=qa")}, "NoManagedClusterMatched", "No ManagedCluster matches any of the cluster predicate"},
		// As OCM says it with only the global set bound.
		"no cluster at all": {nil, "AllManagedClusterSetsEmpty", "All ManagedClusterSets [global] have no member ManagedCluster"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{labelPredicate("environment=prod")})
			res, err := placement.Scheduler{Clock: fake.New(seedTime())}.Schedule(p, tt.clusters)
			require.NoError(t, err)
			assert.Nil(t, res.Clusters)
			assert.Equal(t, []grouping.Group{group("", 0)}, res.Groups)
			require.Len(t, res.Decisions, 1)
			assert.Equal(t, []clusterv1beta1.ClusterDecision{}, res.Decisions[0].Status.Decisions)
			at := metav1.NewTime(seedTime())
			assert.Equal(t, clusterv1beta1.PlacementStatus{
				NumberOfSelectedClusters: 0,
				DecisionGroups:           []clusterv1beta1.DecisionGroupStatus{{Decisions: []string{"p-decision-1"}}},
				Conditions: []metav1.Condition{
					{Type: "PlacementMisconfigured", Status: "False", Reason: "Succeedconfigured", Message: "Placement configurations check pass", LastTransitionTime: at},
					{Type: "PlacementSatisfied", Status: "False", Reason: tt.reason, Message: tt.message, LastTransitionTime: at},
				},
			}, res.Status)
		})
	}
}

func TestScheduleMisconfigured(t *testing.T) {
	t.Parallel()
	badPredicate := clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "environment", Operator: "Equals", Values: []string{"prod"}}},
	}}}
	badGroup := clusterv1beta1.DecisionGroup{GroupName: "stg", ClusterSelector: clusterv1beta1.GroupClusterSelector{
		ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "platform", Operator: metav1.LabelSelectorOpIn}}},
	}}
	fleet := []*clusterv1.ManagedCluster{mc("b", "environment=prod"), mc("a", "environment=dev")}
	at := metav1.NewTime(seedTime())
	tests := []struct {
		name     string
		edit     func(p *clusterv1beta1.Placement)
		problems []string
		message  string
		// What OCM writes alongside.
		clusters  []string
		groups    []grouping.Group
		decisions int
		satisfied string
	}{
		{
			name: "bad predicate: nothing selected, one empty group",
			edit: func(p *clusterv1beta1.Placement) {
				p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{labelPredicate(), badPredicate}
			},
			problems: []string{`spec.predicates[1].requiredClusterSelector.labelSelector.matchExpressions[0].operator: ` +
				`Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`},
			message:   `Predicate:"Equals" is not a valid label selector operator`,
			groups:    []grouping.Group{group("", 0)},
			decisions: 1,
			satisfied: "NoManagedClusterMatched",
		},
		{
			name: "bad clustersPerDecisionGroup: clusters selected, no groups",
			edit: func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromString("7x")
			},
			problems:  []string{`spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "7x": want a positive integer or a percentage 1%-100%`},
			message:   ":7x invalid type: string is not a percentage",
			clusters:  []string{"a", "b"},
			satisfied: "AllDecisionsScheduled",
		},
		{
			name: "negative clustersPerDecisionGroup: OCM takes it as all clusters, the CRD pattern forbids it",
			edit: func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromInt32(-3)
			},
			problems:  []string{`spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: -3: want a positive integer or a percentage 1%-100%`},
			message:   `:spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: -3: want a positive integer or a percentage 1%-100%`,
			clusters:  []string{"a", "b"},
			satisfied: "AllDecisionsScheduled",
		},
		{
			name: "clustersPerDecisionGroup 0%: OCM takes it as all clusters, the CRD pattern forbids it",
			edit: func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromString("0%")
			},
			problems:  []string{`spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "0%": want a positive integer or a percentage 1%-100%`},
			message:   `:spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "0%": want a positive integer or a percentage 1%-100%`,
			clusters:  []string{"a", "b"},
			satisfied: "AllDecisionsScheduled",
		},
		{
			name: "bad group selector",
			edit: func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups = []clusterv1beta1.DecisionGroup{envGroup("dev"), badGroup}
			},
			problems: []string{"spec.decisionStrategy.groupStrategy.decisionGroups[1].groupClusterSelector.claimSelector.matchExpressions[0].values: " +
				"Required value: must be specified when `operator` is 'In' or 'NotIn'"},
			message:   ":values: Invalid value:",
			clusters:  []string{"a", "b"},
			satisfied: "AllDecisionsScheduled",
		},
		{
			name: "everything wrong: every problem in spec order, OCM's message from the decision strategy",
			edit: func(p *clusterv1beta1.Placement) {
				p.Spec.NumberOfClusters = ptr.To(int32(-1))
				p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{badPredicate}
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromString("150%")
				p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups = []clusterv1beta1.DecisionGroup{badGroup}
			},
			problems: []string{
				`spec.numberOfClusters: Invalid value: -1: want a non-negative integer`,
				`spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[0].operator: ` +
					`Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
				`spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "150%": want a positive integer or a percentage 1%-100%`,
				"spec.decisionStrategy.groupStrategy.decisionGroups[0].groupClusterSelector.claimSelector.matchExpressions[0].values: " +
					"Required value: must be specified when `operator` is 'In' or 'NotIn'",
			},
			message:   `:spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "150%": want a positive integer or a percentage 1%-100%`,
			satisfied: "NoManagedClusterMatched",
		},
		{
			name:      "negative numberOfClusters",
			edit:      func(p *clusterv1beta1.Placement) { p.Spec.NumberOfClusters = ptr.To(int32(-1)) },
			problems:  []string{`spec.numberOfClusters: Invalid value: -1: want a non-negative integer`},
			message:   `spec.numberOfClusters: Invalid value: -1: want a non-negative integer`,
			groups:    []grouping.Group{group("", 0)},
			decisions: 1,
			satisfied: "NoManagedClusterMatched",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil, envGroup("dev"))
			tt.edit(p)
			res, err := placement.Scheduler{Clock: fake.New(seedTime())}.Schedule(p, fleet)
			require.Error(t, err)

			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, len(tt.problems), "%v", err)
			for i, pr := range problems {
				assert.Equal(t, tt.problems[i], pr.Error())
				var fe *field.Error
				require.True(t, errors.As(pr, &fe), "problem %d is a field error", i)
				assert.Same(t, fe, pr)
			}

			assert.True(t, res.Misconfigured, "a misconfigured Placement's Result says so")
			mis := condition(t, res.Status, clusterv1beta1.PlacementConditionMisconfigured)
			assert.Equal(t, metav1.ConditionTrue, mis.Status)
			assert.Equal(t, "Misconfigured", mis.Reason)
			assert.Contains(t, mis.Message, tt.message)
			assert.True(t, len(mis.Message) > 0 && mis.Message[:len(tt.message)] == tt.message, "message %q starts with %q", mis.Message, tt.message)
			assert.Equal(t, at, mis.LastTransitionTime)
			assert.Equal(t, tt.satisfied, condition(t, res.Status, clusterv1beta1.PlacementConditionSatisfied).Reason)
			assert.Equal(t, []string{clusterv1beta1.PlacementConditionMisconfigured, clusterv1beta1.PlacementConditionSatisfied},
				[]string{res.Status.Conditions[0].Type, res.Status.Conditions[1].Type})

			assert.Equal(t, tt.clusters, res.Clusters)
			assert.Equal(t, int32(len(tt.clusters)), res.Status.NumberOfSelectedClusters)
			assert.Equal(t, tt.groups, res.Groups)
			assert.Len(t, res.Decisions, tt.decisions)
			assert.Len(t, res.Status.DecisionGroups, tt.decisions)
			assert.NotNil(t, res.Status.DecisionGroups)
			assert.Empty(t, res.Warnings)
		})
	}
}

func TestScheduleConditionTimes(t *testing.T) {
	t.Parallel()
	t0 := metav1.NewTime(seedTime())
	t1 := seedTime().Add(time.Hour)
	other := metav1.Condition{Type: "Other", Status: "True", Reason: "Kept", Message: "kept", LastTransitionTime: t0}
	ok := []metav1.Condition{
		{Type: "PlacementMisconfigured", Status: "False", Reason: "Succeedconfigured", Message: "Placement configurations check pass", LastTransitionTime: t0},
		{Type: "PlacementSatisfied", Status: "True", Reason: "AllDecisionsScheduled", Message: "All cluster decisions scheduled", LastTransitionTime: t0},
	}
	tests := []struct {
		name     string
		existing []metav1.Condition
		clusters []*clusterv1.ManagedCluster
		numberOf *int32
		want     []metav1.Condition
	}{
		{
			name:     "unchanged status keeps its time, other conditions are kept",
			existing: append([]metav1.Condition{other}, ok...),
			clusters: []*clusterv1.ManagedCluster{mc("a")},
			want:     append([]metav1.Condition{other}, ok...),
		},
		{
			name:     "a changed status takes the clock's time; same status, new reason keeps it",
			existing: []metav1.Condition{ok[1], ok[0]},
			clusters: nil,
			want: []metav1.Condition{
				{Type: "PlacementSatisfied", Status: "False", Reason: "AllManagedClusterSetsEmpty", Message: "All ManagedClusterSets [global] have no member ManagedCluster", LastTransitionTime: metav1.NewTime(t1)},
				ok[0],
			},
		},
		{
			name: "same status with a new reason keeps its time",
			existing: []metav1.Condition{ok[0], {
				Type: "PlacementSatisfied", Status: "False", Reason: "NoManagedClusterMatched",
				Message: "No ManagedCluster matches any of the cluster predicate", LastTransitionTime: t0,
			}},
			clusters: []*clusterv1.ManagedCluster{mc("a")},
			numberOf: ptr.To(int32(2)),
			want: []metav1.Condition{ok[0], {
				Type: "PlacementSatisfied", Status: "False", Reason: "NotAllDecisionsScheduled",
				Message: "1 cluster decisions unscheduled", LastTransitionTime: t0,
			}},
		},
		{
			name:     "new conditions take the clock's time, misconfigured first",
			clusters: []*clusterv1.ManagedCluster{mc("a")},
			want: []metav1.Condition{
				{Type: "PlacementMisconfigured", Status: "False", Reason: "Succeedconfigured", Message: "Placement configurations check pass", LastTransitionTime: metav1.NewTime(t1)},
				{Type: "PlacementSatisfied", Status: "True", Reason: "AllDecisionsScheduled", Message: "All cluster decisions scheduled", LastTransitionTime: metav1.NewTime(t1)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Status.Conditions = tt.existing
			p.Spec.NumberOfClusters = tt.numberOf
			before := p.DeepCopy()
			res, err := placement.Scheduler{Clock: fake.New(t1)}.Schedule(p, tt.clusters)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Status.Conditions)
			assert.Equal(t, before, p, "placement modified")
		})
	}
}

func TestScheduleRealClock(t *testing.T) {
	t.Parallel()
	res, err := placement.Schedule(newPlacement(intstr.IntOrString{}, nil), []*clusterv1.ManagedCluster{mc("a")})
	require.NoError(t, err)
	for _, c := range res.Status.Conditions {
		assert.WithinDuration(t, time.Now(), c.LastTransitionTime.Time, time.Minute)
	}
}

func TestScheduleInputErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		p        *clusterv1beta1.Placement
		clusters []*clusterv1.ManagedCluster
		want     []string
	}{
		{"nil placement", nil, []*clusterv1.ManagedCluster{mc("a")}, []string{"nil Placement"}},
		{"nil cluster", newPlacement(intstr.IntOrString{}, nil), []*clusterv1.ManagedCluster{mc("a"), nil}, []string{`clusters[1]: nil ManagedCluster`}},
		{"unnamed cluster", newPlacement(intstr.IntOrString{}, nil), []*clusterv1.ManagedCluster{mc("")}, []string{`clusters[0]: ManagedCluster with an empty name`}},
		{
			"duplicates, each once",
			newPlacement(intstr.IntOrString{}, nil),
			[]*clusterv1.ManagedCluster{mc("b"), mc("a"), mc("b"), mc("b"), mc("a")},
			[]string{`duplicate ManagedCluster "a"`, `duplicate ManagedCluster "b"`},
		},
		{
			"cluster and spec problems together",
			newPlacement(intstr.FromString("x"), nil),
			[]*clusterv1.ManagedCluster{nil},
			[]string{`clusters[0]: nil ManagedCluster`, `spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup: Invalid value: "x"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var res placement.Result
			var err error
			require.NotPanics(t, func() { res, err = placement.Schedule(tt.p, tt.clusters) })
			require.Error(t, err)
			assert.Equal(t, placement.Result{}, res)
			if tt.p == nil {
				assert.EqualError(t, err, "nil Placement: want a Placement to schedule")
				return
			}
			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, len(tt.want), "%v", err)
			for i, p := range problems {
				assert.Contains(t, p.Error(), tt.want[i])
			}
		})
	}
}

func TestScheduleDoesNotModifyInputs(t *testing.T) {
	t.Parallel()
	f := loadSeed(t)
	clusters := append(f.clusters, withClaims(mc("qa", "environment=qa", "cluster-proxy=enabled"), "platform=AWS"))
	slices.Reverse(clusters)
	p := f.scheduled // with a status
	p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups[0].ClusterSelector.ClaimSelector.MatchExpressions = []metav1.LabelSelectorRequirement{
		{Key: "platform", Operator: metav1.LabelSelectorOpDoesNotExist},
	}
	wantP, wantClusters, wantOrder := p.DeepCopy(), deepCopyClusters(clusters), slices.Clone(clusters)

	res, err := placement.Scheduler{Clock: fake.New(seedTime().Add(time.Hour))}.Schedule(p, clusters)
	require.NoError(t, err)
	assert.Equal(t, wantP, p)
	assert.Equal(t, wantClusters, clusters)
	assert.Equal(t, wantOrder, clusters, "cluster order changed")

	// The result shares nothing writable with the inputs.
	res.Status.Conditions[0].Message = "changed"
	res.Decisions[0].Labels["x"] = "y"
	assert.Equal(t, wantP, p)
	assert.Equal(t, wantClusters, clusters)
}

func TestScheduleOrderIndependent(t *testing.T) {
	t.Parallel()
	fleet := append(numbered("a", 120, "environment=prod"), numbered("b", 30, "environment=dev")...)
	fleet = append(fleet, numbered("c", 7)...)
	p := newPlacement(intstr.FromString("20%"), nil, envGroup("dev"), envGroup("stg"), envGroup("prod"))
	s := placement.Scheduler{Clock: fake.New(seedTime())}
	want, err := s.Schedule(p, fleet)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		shuffled := slices.Clone(fleet)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, err := s.Schedule(p, shuffled)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// TestWarningStrings: the kinds' values are stable, machine-readable names;
// a warning prints as "Kind: message".
func TestWarningStrings(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{
		"UnnamedGroup", "EmptyNamedGroup", "SplitGroup", "NumberOfClusters",
		"Tainted", "TolerationExpiring", "NoClusterSetBinding", "SpreadPolicy",
	}, []string{
		string(placement.UnnamedGroup), string(placement.EmptyNamedGroup), string(placement.SplitGroup), string(placement.NumberOfClusters),
		string(placement.Tainted), string(placement.TolerationExpiring), string(placement.NoClusterSetBinding), string(placement.SpreadPolicy),
	})
	assert.Equal(t, "SplitGroup: x", placement.Warning{Kind: placement.SplitGroup, Message: "x"}.String())
	assert.Equal(t, "SplitGroup", fmt.Sprint(placement.SplitGroup), "a string type prints as itself")
}
