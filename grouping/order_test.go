package grouping_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/grouping"
)

func TestInOrder(t *testing.T) {
	t.Parallel()
	key := func(name string, i int32) grouping.GroupKey { return grouping.GroupKey{Name: name, Index: i} }
	tests := []struct {
		name string
		in   []grouping.Group
		want []grouping.Group
	}{
		{"none", nil, nil},
		{"by index, then input order", []grouping.Group{
			{GroupKey: key("prod", 2), Clusters: []string{"p"}},
			{GroupKey: key("b", 0), Clusters: []string{"b"}},
			{GroupKey: key("a", 0), Clusters: []string{"a"}},
		}, []grouping.Group{
			{GroupKey: key("b", 0), Clusters: []string{"b"}},
			{GroupKey: key("a", 0), Clusters: []string{"a"}},
			{GroupKey: key("prod", 2), Clusters: []string{"p"}},
		}},
		{"clusters sorted, duplicates and empty names kept", []grouping.Group{
			{GroupKey: key("", 0), Clusters: []string{"c", "", "a", "c"}},
		}, []grouping.Group{
			{GroupKey: key("", 0), Clusters: []string{"", "a", "c", "c"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, grouping.InOrder(tt.in))
		})
	}
}

func TestInOrderLeavesTheInputAlone(t *testing.T) {
	t.Parallel()
	sorted, unsorted := []string{"a", "b"}, []string{"b", "a"}
	in := []grouping.Group{{GroupKey: grouping.GroupKey{Index: 1}, Clusters: unsorted}, {Clusters: sorted}}
	out := grouping.InOrder(in)
	assert.Equal(t, []string{"b", "a"}, unsorted)
	assert.Equal(t, int32(1), in[0].Index)
	assert.Same(t, &sorted[0], &out[0].Clusters[0], "a sorted list is shared, not copied")
}
