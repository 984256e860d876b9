package placement

import (
	"cmp"
	"slices"
	"strings"
)

// sortEntry is a cluster as readClusters reads it, in input order.
type sortEntry struct {
	name   string
	labels map[string]string
	clusterMeta
}

// nameKey is a sortEntry's place in the order by name: the 8 bytes of its
// name that follow the prefix every name shares, big-endian and padded
// with zeros, and its index.
type nameKey struct {
	head uint64
	at   int32
}

// byName returns the entries' keys in the order of their names (byte
// order). Names on a hub tend to share a long prefix ("cluster-0"), so
// comparing two names means reading both from memory and walking that
// prefix, and sorting the entries themselves moves 32 bytes at a time.
// Instead this sorts 16-byte nameKeys, which order as the names do: when
// two keys differ, so do the names, in the same direction; equal keys
// fall back to the names. At 100,000 clusters this halves the time of the
// sort (BenchmarkSchedule).
func byName(entries []sortEntry) []nameKey {
	if len(entries) == 0 {
		return nil
	}
	prefix := entries[0].name
	for i := range entries[1:] {
		prefix = prefix[:commonPrefix(prefix, entries[i+1].name)]
	}
	keys := make([]nameKey, len(entries))
	for i := range entries {
		rest := entries[i].name[len(prefix):]
		var head uint64
		for j := range 8 {
			head <<= 8
			if j < len(rest) {
				head |= uint64(rest[j])
			}
		}
		keys[i] = nameKey{head, int32(i)}
	}
	slices.SortFunc(keys, func(a, b nameKey) int {
		if c := cmp.Compare(a.head, b.head); c != 0 {
			return c
		}
		return strings.Compare(entries[a.at].name, entries[b.at].name)
	})
	return keys
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
