package placement

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestByName: the keys give the byte order of the names, whatever they
// share: a long common prefix, none, names that are prefixes of others,
// zero bytes, multi-byte characters, and names equal in their first bytes
// after the prefix.
func TestByName(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []string{"a", "b", "0", "9", "-", "\x00", "é", "z"}
	for _, prefix := range []string{"", "cluster-0", "x"} {
		for range 50 {
			var names []string
			for range r.IntN(40) {
				name := prefix
				for range r.IntN(14) {
					name += alphabet[r.IntN(len(alphabet))]
				}
				names = append(names, name, name+"a", prefix+"aaaaaaaa"+name)
			}
			entries := make([]sortEntry, len(names))
			for i, n := range names {
				entries[i].name = n
			}
			var got []string
			for _, k := range byName(entries) {
				got = append(got, entries[k.at].name)
			}
			want := slices.Clone(names)
			slices.Sort(want)
			assert.Equal(t, want, got)
		}
	}
}

// TestByNameRadix: the same at sizes where sortKeys distributes keys by
// radix, several levels deep, with names equal in all eight bytes of
// their heads and repeated names.
func TestByNameRadix(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	alphabet := []string{"a", "b", "0", "9", "-", "\x00", "é", "z"}
	for _, prefix := range []string{"", "cluster-0", "x"} {
		for _, n := range []int{radixMin - 1, radixMin, 300, 5_000} {
			names := make([]string, n)
			for i := range names {
				switch name := prefix; i % 5 {
				case 3:
					names[i] = names[r.IntN(i)] // a repeat
				case 4:
					names[i] = prefix + "aaaaaaaa" + names[r.IntN(i)] // equal heads
				default:
					for range r.IntN(14) {
						name += alphabet[r.IntN(len(alphabet))]
					}
					names[i] = name
				}
			}
			entries := make([]sortEntry, len(names))
			for i, n := range names {
				entries[i].name = n
			}
			var got []string
			for _, k := range byName(entries) {
				got = append(got, entries[k.at].name)
			}
			want := slices.Clone(names)
			slices.Sort(want)
			assert.Equal(t, want, got, "prefix %q, %d names", prefix, n)
		}
	}
}
