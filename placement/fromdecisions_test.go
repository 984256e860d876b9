package placement_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/placement"
)

// decision builds PlacementDecision ns/name of placement p; index and
// groupName are label values, "-" leaves the label out.
func decision(name, index, groupName string, clusters ...string) *clusterv1beta1.PlacementDecision {
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "ns",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: "p"},
	}}
	if index != "-" {
		pd.Labels[clusterv1beta1.DecisionGroupIndexLabel] = index
	}
	if groupName != "-" {
		pd.Labels[clusterv1beta1.DecisionGroupNameLabel] = groupName
	}
	pd.Status.Decisions = []clusterv1beta1.ClusterDecision{}
	for _, c := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return pd
}

func TestGroupsFromDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []*clusterv1beta1.PlacementDecision
		want []grouping.Group
	}{
		{"none", nil, []grouping.Group{}},
		{
			"several PlacementDecisions of one group merge, de-duplicated and sorted",
			[]*clusterv1beta1.PlacementDecision{
				decision("p-decision-2", "0", "prod", "c", "a"),
				decision("p-decision-1", "0", "prod", "b", "a"),
			},
			[]grouping.Group{group("prod", 0, "a", "b", "c")},
		},
		{
			"ascending index order, gaps allowed, in any input order",
			[]*clusterv1beta1.PlacementDecision{
				decision("p-decision-3", "12", "", "z"),
				decision("p-decision-1", "0", "dev", "d"),
				decision("p-decision-2", "5", "prod", "p"),
			},
			[]grouping.Group{group("dev", 0, "d"), group("prod", 5, "p"), group("", 12, "z")},
		},
		{
			"empty PlacementDecision and empty decisions give a group without clusters",
			[]*clusterv1beta1.PlacementDecision{decision("p-decision-1", "0", "", ""), decision("p-decision-2", "1", "x")},
			[]grouping.Group{group("", 0), group("x", 1)},
		},
		{
			"missing name label is the unnamed group",
			[]*clusterv1beta1.PlacementDecision{decision("p-decision-1", "0", "-", "a")},
			[]grouping.Group{group("", 0, "a")},
		},
		{
			"leading zeros and the largest index",
			[]*clusterv1beta1.PlacementDecision{decision("p-decision-1", "007", "a", "a"), decision("p-decision-2", "2147483647", "b", "b")},
			[]grouping.Group{group("a", 7, "a"), group("b", 2147483647, "b")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := make([]*clusterv1beta1.PlacementDecision, len(tt.in))
			for i, d := range tt.in {
				before[i] = d.DeepCopy()
			}
			got, err := placement.GroupsFromDecisions(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if len(tt.in) == 0 {
				return
			}
			assert.Equal(t, before, tt.in, "input modified")
		})
	}
}

func TestGroupsFromDecisionsErrors(t *testing.T) {
	t.Parallel()
	const (
		index = `metadata.labels[cluster.open-cluster-management.io/decision-group-index]`
		want  = `want a decision group index, an integer 0-2147483647`
	)
	tests := []struct {
		name string
		in   []*clusterv1beta1.PlacementDecision
		// want is the error, each PlacementDecision on its own line.
		want string
	}{
		{"missing index", []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "-", "dev", "a")},
			`placementdecision "ns/p-decision-1": ` + index + `: Required value: a decision group index, an integer 0-2147483647`},
		{"empty index", []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "", "dev")},
			`placementdecision "ns/p-decision-1": ` + index + `: Invalid value: "": ` + want},
		{"non-numeric", []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "first", "dev")},
			`placementdecision "ns/p-decision-1": ` + index + `: Invalid value: "first": ` + want},
		{"negative", []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "-1", "dev")},
			`placementdecision "ns/p-decision-1": ` + index + `: Invalid value: "-1": ` + want},
		{"sign", []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "+1", "dev")},
			`placementdecision "ns/p-decision-1": ` + index + `: Invalid value: "+1": ` + want},
		{"out of int32 range", []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "2147483648", "dev")},
			`placementdecision "ns/p-decision-1": ` + index + `: Invalid value: "2147483648": ` + want},
		{
			"every bad PlacementDecision at once",
			[]*clusterv1beta1.PlacementDecision{decision("a", "x", ""), decision("ok", "0", ""), nil, decision("b", "1.5", "")},
			`placementdecision "ns/a": ` + index + `: Invalid value: "x": ` + want + "\n" +
				`decisions[2]: nil PlacementDecision: want a PlacementDecision` + "\n" +
				`placementdecision "ns/b": ` + index + `: Invalid value: "1.5": ` + want,
		},
		{
			"one index, two names",
			[]*clusterv1beta1.PlacementDecision{decision("p-decision-1", "0", "dev", "a"), decision("p-decision-2", "0", "stg", "b")},
			`placementdecision "ns/p-decision-2": metadata.labels[cluster.open-cluster-management.io/decision-group-name]: Invalid value: "stg": ` +
				`want one name per group index: group 0 is named "dev" in placementdecision "ns/p-decision-1"`,
		},
		{
			"two placements, and two problems of one PlacementDecision",
			func() []*clusterv1beta1.PlacementDecision {
				other := decision("q-decision-1", "one", "x")
				other.Labels[clusterv1beta1.PlacementLabel] = "q"
				return []*clusterv1beta1.PlacementDecision{decision("p-decision-1", "0", "dev"), other}
			}(),
			`placementdecision "ns/q-decision-1": metadata.labels[cluster.open-cluster-management.io/placement]: Invalid value: "q": ` +
				`want the PlacementDecisions of one Placement: placementdecision "ns/p-decision-1" is of placement "ns/p"` + "\n" +
				index + `: Invalid value: "one": ` + want,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := placement.GroupsFromDecisions(tt.in)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.EqualError(t, err, tt.want)
		})
	}
}

// TestGroupsFromDecisionsFieldError: errors.As finds each problem, with
// its path and value, each PlacementDecision named once around its own.
func TestGroupsFromDecisionsFieldError(t *testing.T) {
	t.Parallel()
	_, err := placement.GroupsFromDecisions([]*clusterv1beta1.PlacementDecision{
		decision("p-decision-1", "one", "dev"), decision("p-decision-2", "0", "dev"), decision("p-decision-3", "-", "stg"),
	})
	require.Error(t, err)
	parts := flatten(err)
	require.Len(t, parts, 2, "one error per bad PlacementDecision: %v", err)
	first := problems(t, `placementdecision "ns/p-decision-1"`, parts[0])
	var fe *field.Error
	require.Len(t, first, 1)
	require.True(t, errors.As(first[0], &fe))
	assert.Equal(t, field.ErrorTypeInvalid, fe.Type)
	assert.Equal(t, "metadata.labels[cluster.open-cluster-management.io/decision-group-index]", fe.Field)
	assert.Equal(t, "one", fe.BadValue)

	third := problems(t, `placementdecision "ns/p-decision-3"`, parts[1])
	require.Len(t, third, 1)
	require.True(t, errors.As(third[0], &fe))
	assert.Equal(t, field.ErrorTypeRequired, fe.Type)
}
