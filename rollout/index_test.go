package rollout

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// firstsOf is the nameIndex's answer for every position: the first
// position of its name, or -1 for an empty name.
func firstsOf(names []string) []int {
	ix := newNameIndex(len(names), func(k int) string { return names[k] })
	got := make([]int, len(names))
	for k := range names {
		first, named := ix.first(k)
		if !named {
			first = -1
		}
		got[k] = first
	}
	return got
}

// firstsByMap is the same answer from a map: the oracle.
func firstsByMap(names []string) []int {
	seen := make(map[string]int, len(names))
	want := make([]int, len(names))
	for k, name := range names {
		first, ok := seen[name]
		switch {
		case name == "":
			first = -1
		case !ok:
			first = k
			seen[name] = k
		}
		want[k] = first
	}
	return want
}

// manyNames is n names of which every seventh repeats one seen earlier and
// every thirteenth is empty: enough to fill several partitions.
func manyNames(n int) []string {
	names := make([]string, n)
	for k := range names {
		switch {
		case k%13 == 12:
		case k%7 == 6:
			names[k] = names[k/2]
		default:
			names[k] = fmt.Sprintf("cluster-%06d", k)
		}
	}
	return names
}

func TestNameIndex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		names []string
		want  []int
	}{
		{name: "none", names: nil, want: []int{}},
		{name: "one", names: []string{"a"}, want: []int{0}},
		{name: "distinct", names: []string{"c", "a", "b"}, want: []int{0, 1, 2}},
		{name: "repeat points at the first", names: []string{"a", "b", "a", "a"}, want: []int{0, 1, 0, 0}},
		{name: "repeats of several names", names: []string{"x", "y", "y", "x", "z", "y"}, want: []int{0, 1, 1, 0, 4, 1}},
		{name: "empty names are not indexed", names: []string{"", "a", "", "a"}, want: []int{-1, 1, -1, 1}},
		{name: "only empty names", names: []string{"", ""}, want: []int{-1, -1}},
		{name: "names differing in one byte", names: []string{"ab", "ba", "abc", "ab\x00"}, want: []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, firstsOf(tc.names))
		})
	}
}

// TestNameIndexPartitions checks sizes around and well past one partition,
// where names are scattered by hash, against the map.
func TestNameIndexPartitions(t *testing.T) {
	t.Parallel()
	for _, n := range []int{partitionSize - 1, partitionSize, partitionSize + 1, 3 * partitionSize, 70_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			names := manyNames(n)
			assert.Equal(t, firstsByMap(names), firstsOf(names))
		})
	}
}

// TestNameIndexProperty checks random multisets of short names, so that
// most names repeat, in random order, against the map.
func TestNameIndexProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := rng.IntN(3 * partitionSize)
		distinct := 1 + rng.IntN(n+1)
		names := make([]string, n)
		for k := range names {
			if v := rng.IntN(distinct + 1); v > 0 {
				names[k] = fmt.Sprint(v)
			}
		}
		if !assert.Equal(t, firstsByMap(names), firstsOf(names), "names %q", names) {
			return
		}
	}
}

// FuzzNameIndex splits the input into names at every comma and checks the
// index against the map.
func FuzzNameIndex(f *testing.F) {
	f.Add("a,b,a")
	f.Add(",,x,,x")
	f.Add(strings.Repeat("n,", 2*partitionSize))
	f.Fuzz(func(t *testing.T, s string) {
		names := strings.Split(s, ",")
		assert.Equal(t, firstsByMap(names), firstsOf(names))
	})
}

// BenchmarkNameIndex finds the first position of every name, as Plan does
// (the fleet's clusters, then a status for one in ten), with the index and
// with a map. At a million names the map misses the cache on nearly every
// access; the index's time per name stays flat.
func BenchmarkNameIndex(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		names := make([]string, 0, n+n/10)
		for k := range n {
			names = append(names, fmt.Sprintf("cluster-%06d", k))
		}
		for k := 0; k < n; k += 10 {
			names = append(names, names[k])
		}
		b.Run(fmt.Sprintf("index/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				newNameIndex(len(names), func(k int) string { return names[k] })
			}
		})
		b.Run(fmt.Sprintf("map/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				firstsByMap(names)
			}
		})
	}
}
