package rollout

import (
	"container/heap"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// progressive applies type Progressive (docs/semantics.md §3.6).
//
// Failures are counted first, at every call, over every cluster: a failure
// in a mandatory group, or more failures over all clusters than maxFailures
// allows, is a breach, even while the mandatory walk is still going on,
// and a breach starts nothing new. Otherwise the mandatory groups are
// walked first as in ProgressivePerGroup, but only mandatory clusters count
// as in flight when deciding whether the walk may go on. Then every
// remaining cluster shares a window of maxConcurrency slots: every
// in-flight cluster holds one, and free slots go to untouched clusters in
// name order, skipping groups a gate holds.
//
// OCM differs: it counts failures only in the phase it has reached, so a
// failure outside the mandatory groups shows no breach while the mandatory
// phase lasts; it stops counting failures once the window is full; it
// lists at most maxConcurrency in-flight clusters; it ranks clusters with a
// status entry before those without; and with mandatory groups configured
// it waits for every in-flight cluster before starting another.
func (r *run) progressive(def *field.Portion) {
	r.listInFlight()
	r.stop, r.holder = -1, -1
	total := len(r.f.entries)
	r.budget = min(r.st.maxFailures.Of(total), total)
	remaining, inFlight := 0, 0
	for gi, g := range r.f.groups {
		c := r.out[gi].counts
		r.failures += c.Failed + c.TimedOut
		if g.mandatory {
			r.countFailures(gi, 0)
		} else {
			remaining += g.size()
			inFlight += c.Progressing + c.Failed + c.Soaking
		}
	}
	r.window = r.st.concurrency(def, remaining)
	if r.failures > r.budget {
		// The budget is the fleet's: every group with failures shares the blame.
		r.breach = true
		for gi := range r.out {
			if c := r.out[gi].counts; c.Failed+c.TimedOut > 0 {
				r.out[gi].breached = true
			}
		}
	}
	if r.breach {
		return
	}

	holding := r.inFlight(true)
	for gi, g := range r.f.groups {
		if g.mandatory && r.walkStep(gi, &holding, true) {
			return
		}
	}
	var runs cursors
	for gi, g := range r.f.groups {
		if g.mandatory {
			continue
		}
		r.out[gi].reached = true
		if r.out[gi].counts.ToApply == 0 || !r.admit(gi) {
			continue
		}
		if c := r.nextUntouched(gi, g.start); c.pos < g.end {
			runs = append(runs, c)
		}
	}
	heap.Init(&runs)
	for free := r.window - inFlight; free > 0 && len(runs) > 0; free-- {
		c := &runs[0]
		r.f.entries[c.pos].listed = true
		r.out[c.group].started++
		if next := r.nextUntouched(c.group, c.pos+1); next.pos < r.f.groups[c.group].end {
			*c = next
			heap.Fix(&runs, 0)
		} else {
			heap.Pop(&runs)
		}
	}
}

// nextUntouched returns a cursor at the first untouched entry of group gi
// at or after pos (at the group's end if there is none).
func (r *run) nextUntouched(gi, pos int) cursor {
	end := r.f.groups[gi].end
	for pos < end && r.f.entries[pos].state != untouched {
		pos++
	}
	c := cursor{group: gi, pos: pos}
	if pos < end {
		c.name = r.f.name(pos)
	}
	return c
}

// cursor walks one group's untouched clusters in name order.
type cursor struct {
	name  string
	group int
	pos   int
}

// cursors is a min-heap of cursors by cluster name: merging the groups'
// sorted runs gives every untouched cluster in name order without sorting
// them all.
type cursors []cursor

func (h cursors) Len() int           { return len(h) }
func (h cursors) Less(i, j int) bool { return h[i].name < h[j].name }
func (h cursors) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)        { *h = append(*h, x.(cursor)) }
func (h *cursors) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
