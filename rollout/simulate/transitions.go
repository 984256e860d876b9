package simulate

import (
	"container/heap"
	"time"
)

// transition is a status a simulated cluster will report at a given time:
// Succeeded or Failed after its apply, or Succeeded when it recovers.
type transition struct {
	at      time.Time
	cluster int // position in sim.clusters: group index, then name
	recover bool
}

// transitions is a min-heap of pending transitions by time, then cluster
// position, so that simultaneous transitions fire in a fixed order. A
// cluster's own transitions never share a time (Behavior.validate).
type transitions []transition

func (h transitions) Len() int { return len(h) }
func (h transitions) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].cluster < h[j].cluster
}
func (h transitions) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *transitions) Push(x any)   { *h = append(*h, x.(transition)) }
func (h *transitions) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *transitions) push(t transition) { heap.Push(h, t) }
func (h *transitions) pop() transition   { return heap.Pop(h).(transition) }
