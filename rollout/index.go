package rollout

import (
	"hash/maphash"
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
// The empty name is not indexed: first reports false for it.
type nameIndex struct {
	firsts []int32 // by position: the first position of its name, or noName
}

// noName marks, in nameIndex.firsts, a position whose name is empty.
const noName = -1

// partitionSize is about how many names a partition holds, so that its
// table (two slots of 8 bytes per name) fits in the processor's cache.
const partitionSize = 1024

// newNameIndex indexes the names name(0), ..., name(n-1). It calls name
// once per position, and again only to confirm that two positions whose
// hashes are equal have equal names.
func newNameIndex(n int, name func(k int) string) nameIndex {
	ix := nameIndex{firsts: make([]int32, n)}
	seed := maphash.MakeSeed()
	hashes := make([]uint64, n)
	for k := range n {
		if s := name(k); s == "" {
			ix.firsts[k] = noName
		} else {
			hashes[k] = maphash.String(seed, s)
		}
	}
	bits := 0
	for n>>bits > partitionSize {
		bits++
	}
	parts := ix.scatter(hashes, bits)
	var table []slot
	for p := range len(parts.offs) - 1 {
		table = ix.match(parts.part(p), table, name)
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

// slot is a position and the low half of its name's hash, in a partition
// or a table. The top bits of the hash chose the partition, so the low
// half is all that is left to tell names apart there; keeping only it
// makes a slot 8 bytes instead of 16, and the tables half as big.
type slot struct {
	h   uint32
	pos int32
}

// vacant is the position of an unused table slot.
const vacant = -1

// partitioned holds the slots of partition p at slots[offs[p]:offs[p+1]],
// in increasing position.
type partitioned struct {
	slots []slot
	offs  []int32
}

func (pt partitioned) part(p int) []slot { return pt.slots[pt.offs[p]:pt.offs[p+1]] }

// scatter sorts the positions with a name into 2^bits partitions by the
// top bits of their hash: one pass to count each partition's size, one to
// place every position after the partitions before it.
func (ix nameIndex) scatter(hashes []uint64, bits int) partitioned {
	// A shift by 64 is 0 in Go, so with bits == 0 everything is partition 0.
	partOf := func(h uint64) int { return int(h >> (64 - bits)) }
	offs := make([]int32, 1<<bits+1)
	named := 0
	for k, h := range hashes {
		if ix.firsts[k] != noName {
			offs[partOf(h)+1]++
			named++
		}
	}
	for p := 1; p < len(offs); p++ {
		offs[p] += offs[p-1]
	}
	slots := make([]slot, named)
	next := slices.Clone(offs[:len(offs)-1])
	for k, h := range hashes {
		if ix.firsts[k] != noName {
			p := partOf(h)
			slots[next[p]] = slot{h: uint32(h), pos: int32(k)}
			next[p]++
		}
	}
	return partitioned{slots: slots, offs: offs}
}

// match records the first position of every name in one partition, whose
// slots come in increasing position. It reuses table when it is big enough
// (at most half full, so probes stay short) and returns the table it used.
func (ix nameIndex) match(part, table []slot, name func(int) string) []slot {
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
	for _, s := range part {
		i := s.h & mask
		for table[i].pos != vacant && (table[i].h != s.h || name(int(table[i].pos)) != name(int(s.pos))) {
			i = (i + 1) & mask
		}
		if table[i].pos == vacant {
			table[i] = s
		}
		ix.firsts[s.pos] = table[i].pos
	}
	return table
}
