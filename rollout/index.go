package rollout

import (
	"hash/maphash"
	"math"
	"slices"
)

// nameIndex tells, for each of n names given by position, where that name
// first occurs: first(k) is the smallest position whose name equals the
// name at k (k itself the first time a name is seen). Plan lists the
// fleet's clusters and then the statuses as one run of names, so a status
// whose name first occurs at a cluster belongs to that cluster, and every
// other repeat is a duplicate (see fleet.join).
//
// A map[string]int32 would give the same answers, but at a million names
// nearly every map access misses the processor's cache (BenchmarkNameIndex
// compares the two). nameIndex is a partitioned hash join instead, in three
// steps that each read and write memory in order:
//
//  1. hash every name once;
//  2. scatter the positions by the top bits of their hash into partitions
//     of about partitionSize names each (a counting sort, so every
//     partition keeps its positions in increasing order, and equal names
//     share a partition);
//  3. for one partition at a time, insert its positions into a small
//     open-addressing table that stays in cache: a name already in the
//     table is a repeat, and the table holds its first position. Names
//     are compared only when their hashes are equal.
//
// The time per name then stays flat from a thousand names to a million.
// It allocates 8 bytes per name (BenchmarkPlanBytes): the hashes are kept
// in the array that then holds the answers, and a partition holds bare
// positions. The empty name is not indexed: first reports false for it.
type nameIndex struct {
	// firsts is, by position, the first position of its name, or noName.
	// While the index is built, a position not yet matched holds its
	// name's 32-bit hash instead: a position's hash is last read when it
	// is matched, just before its answer is written in its place.
	firsts []uint32
}

// noName marks, in nameIndex.firsts, a position whose name is empty.
const noName = math.MaxUint32

// partitionSize is about how many names a partition holds, so that its
// table (two slots of 8 bytes per name) fits in the processor's cache.
const partitionSize = 1024

// newNameIndex indexes the names name(0), ..., name(n-1). It calls name
// once per position, and again only to confirm that two positions whose
// hashes are equal have equal names.
func newNameIndex(n int, name func(k int) string) nameIndex {
	ix := nameIndex{firsts: make([]uint32, n)}
	seed := maphash.MakeSeed()
	var unnamed []int32 // the positions of empty names, increasing
	for k := range n {
		if s := name(k); s == "" {
			unnamed = append(unnamed, int32(k))
		} else {
			ix.firsts[k] = uint32(maphash.String(seed, s))
		}
	}
	bits := 0
	for n>>bits > partitionSize {
		bits++
	}
	parts := ix.scatter(bits, unnamed)
	var table []slot
	for p := range len(parts.offs) - 1 {
		table = ix.match(parts.part(p), table, name)
	}
	for _, k := range unnamed {
		ix.firsts[k] = noName
	}
	return ix
}

// first returns the first position of the name at position k: k itself,
// or an earlier position with the same name. It is false when the name at
// k is empty.
func (ix nameIndex) first(k int) (int, bool) {
	f := ix.firsts[k]
	return int(f), f != noName
}

// slot is a position and its name's hash, in a table. The top bits of the
// hash chose the partition, so the rest is what tells names apart there.
type slot struct {
	h   uint32
	pos int32
}

// vacant is the position of an unused table slot.
const vacant = -1

// partitioned holds the positions of partition p at pos[offs[p]:offs[p+1]],
// increasing.
type partitioned struct {
	pos  []int32
	offs []int32
}

func (pt partitioned) part(p int) []int32 { return pt.pos[pt.offs[p]:pt.offs[p+1]] }

// scatter sorts the positions with a name (all but unnamed) into 2^bits
// partitions by the top bits of their hash, which ix.firsts holds: one pass
// to count each partition's size, one to place every position after the
// partitions before it.
func (ix nameIndex) scatter(bits int, unnamed []int32) partitioned {
	// A shift by 32 is 0 in Go, so with bits == 0 everything is partition 0.
	partOf := func(h uint32) int { return int(h >> (32 - bits)) }
	offs := make([]int32, 1<<bits+1)
	u := 0
	for k, h := range ix.firsts {
		if u < len(unnamed) && int(unnamed[u]) == k {
			u++
			continue
		}
		offs[partOf(h)+1]++
	}
	for p := 1; p < len(offs); p++ {
		offs[p] += offs[p-1]
	}
	pos := make([]int32, len(ix.firsts)-len(unnamed))
	next := slices.Clone(offs[:len(offs)-1])
	u = 0
	for k, h := range ix.firsts {
		if u < len(unnamed) && int(unnamed[u]) == k {
			u++
			continue
		}
		p := partOf(h)
		pos[next[p]] = int32(k)
		next[p]++
	}
	return partitioned{pos: pos, offs: offs}
}

// match records the first position of every name in one partition, whose
// positions come in increasing order, each still holding its hash in
// ix.firsts. It reuses table when it is big enough (at most half full, so
// probes stay short) and returns the table it used.
func (ix nameIndex) match(part []int32, table []slot, name func(int) string) []slot {
	size := 4
	for size < 2*len(part) {
		size <<= 1
	}
	if cap(table) < size {
		table = make([]slot, size)
	}
	table = table[:size]
	for i := range table {
		table[i].pos = vacant
	}
	mask := uint32(size - 1)
	for _, pos := range part {
		h := ix.firsts[pos] // its hash, overwritten below
		i := h & mask
		for table[i].pos != vacant && (table[i].h != h || name(int(table[i].pos)) != name(int(pos))) {
			i = (i + 1) & mask
		}
		if table[i].pos == vacant {
			table[i] = slot{h: h, pos: pos}
		}
		ix.firsts[pos] = uint32(table[i].pos)
	}
	return table
}
