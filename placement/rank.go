package placement

import (
	"cmp"
	"slices"
)

// best returns the n clusters of feasible (indices in ascending name
// order) with the highest total score (total[k] is feasible[k]'s), ties
// going to the first name, as OCM's scheduler keeps numberOfClusters. The
// result is in ascending order: the clusters above the n-th best score,
// then as many at that score as there is room for, by name.
func best(feasible []int, total []int64, n int) []int {
	if n >= len(feasible) {
		return feasible
	}
	if n <= 0 {
		return nil
	}
	sorted := slices.Clone(total)
	slices.Sort(sorted)
	threshold := sorted[len(sorted)-n]
	room := n
	for _, t := range total {
		if t > threshold {
			room--
		}
	}
	out := make([]int, 0, n)
	for k, i := range feasible {
		switch t := total[k]; {
		case t > threshold:
			out = append(out, i)
		case t == threshold && room > 0:
			out = append(out, i)
			room--
		}
	}
	return out
}

// rankOrder returns feasible (ascending) ordered as OCM ranks it: by total
// score, highest first, then by name.
func rankOrder(feasible []int, total []int64) []int {
	pos := make([]int, len(feasible))
	for k := range pos {
		pos[k] = k
	}
	slices.SortFunc(pos, func(a, b int) int {
		if c := cmp.Compare(total[b], total[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]int, len(pos))
	for r, k := range pos {
		out[r] = feasible[k]
	}
	return out
}
