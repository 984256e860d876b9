package hubctl

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/grouping"
)

func group(name string, index int32, clusters ...string) grouping.Group {
	return grouping.Group{GroupKey: grouping.GroupKey{Name: name, Index: index}, Clusters: clusters}
}

func TestLastPlacementWins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   [][]grouping.Group
		want [][]grouping.Group
	}{
		{
			name: "one placement keeps everything",
			in:   [][]grouping.Group{{group("dev", 0, "a"), group("prod", 1, "b", "c")}},
			want: [][]grouping.Group{{group("dev", 0, "a"), group("prod", 1, "b", "c")}},
		},
		{
			name: "a cluster in two placements belongs to the later one",
			in:   [][]grouping.Group{{group("dev", 0, "a"), group("prod", 1, "b", "c")}, {group("canary", 0, "c")}},
			want: [][]grouping.Group{{group("dev", 0, "a"), group("prod", 1, "b")}, {group("canary", 0, "c")}},
		},
		{
			name: "a group emptied by a later placement stays, so indices keep their meaning",
			in:   [][]grouping.Group{{group("dev", 0, "a"), group("prod", 1, "b")}, {group("", 0, "a")}},
			want: [][]grouping.Group{{group("dev", 0), group("prod", 1, "b")}, {group("", 0, "a")}},
		},
		{
			name: "a placement with no decisions owns nothing",
			in:   [][]grouping.Group{nil, {group("dev", 0, "a")}},
			want: [][]grouping.Group{nil, {group("dev", 0, "a")}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := clone(tc.in)
			got := lastPlacementWins(tc.in)
			assert.Equal(t, len(tc.want), len(got))
			for i := range tc.want {
				assert.Len(t, got[i], len(tc.want[i]))
				for k := range tc.want[i] {
					assert.Equal(t, tc.want[i][k].GroupKey, got[i][k].GroupKey)
					assert.ElementsMatch(t, tc.want[i][k].Clusters, got[i][k].Clusters)
				}
			}
			assert.Equal(t, before, tc.in, "the input was modified")
		})
	}
}

func clone(all [][]grouping.Group) [][]grouping.Group {
	out := make([][]grouping.Group, len(all))
	for i, gs := range all {
		for _, g := range gs {
			out[i] = append(out[i], grouping.Group{GroupKey: g.GroupKey, Clusters: append([]string(nil), g.Clusters...)})
		}
	}
	return out
}
