package grouping_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/grouping"
)

func TestDuplicateNames(t *testing.T) {
	t.Parallel()
	cl := func(names ...string) []grouping.Cluster {
		out := make([]grouping.Cluster, len(names))
		for i, n := range names {
			out[i] = grouping.Cluster{Name: n}
		}
		return out
	}
	tests := []struct {
		name string
		in   []grouping.Cluster
		want []string
	}{
		{"none", nil, nil},
		{"unique", cl("a", "b"), nil},
		{"each once, in order", cl("a", "a", "a", "b", "c", "c"), []string{"a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, grouping.DuplicateNames(tt.in))
		})
	}
}
