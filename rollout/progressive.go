package rollout

import (
	"container/heap"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
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
func (r *run) progressive(def *ifield.Portion) verdict {
	r.listInFlight()
	v, slots := r.progressiveBudget(def)
	if v.breach {
		return v
	}
	w := r.walk(r.mandatoryGroups(), v.groups)
	v.wait = w.waitOf(r)
	if w.stop < 0 {
		// The mandatory groups are done: the others share the window.
		r.fillWindow(slots.free, v.groups)
		v.wait = func(gi int, _ ClusterRef) Wait {
			if r.f.groups[gi].mandatory {
				return Wait{}
			}
			return Wait{Kind: WaitWindow, Window: slots.size}
		}
	}
	return v
}

// windowSlots is Progressive's window: its size, and how many of its
// slots the clusters in flight leave free.
type windowSlots struct{ size, free int }

// progressiveBudget counts the failures, in every group at every call: a
// failure in a mandatory group, or more failures over all clusters than
// maxFailures of all clusters allows, is a breach. It also sizes the
// window over the clusters of the groups that are not mandatory, and
// counts the slots their clusters in flight leave free.
func (r *run) progressiveBudget(def *ifield.Portion) (verdict, windowSlots) {
	total := len(r.f.entries)
	budget := min(r.st.maxFailures.Of(total), total)
	v := newVerdict(len(r.f.groups), budget)
	v.untrippable = r.st.maxFailures.Of(total) >= total
	failures, remaining, inFlight := 0, 0, 0
	for gi, g := range r.f.groups {
		c := r.counts[gi]
		failures += c.failures()
		if g.mandatory {
			o := &v.groups[gi]
			o.maxFailures, o.breached = 0, c.failures() > 0
			v.breach = v.breach || o.breached
		} else {
			remaining += g.size()
			inFlight += c.inFlight()
		}
	}
	if failures > budget {
		// The budget is the rollout's: every group with failures shares the blame.
		v.breach = true
		for gi, g := range r.f.groups {
			if o := &v.groups[gi]; r.counts[gi].failures() > 0 {
				o.breached = true
				if !g.mandatory {
					o.rolloutFailures = failures
				}
			}
		}
	}
	size := r.st.concurrency(def, remaining)
	return v, windowSlots{size: size, free: size - inFlight}
}

// fillWindow gives the free slots of the window to the untouched clusters
// of the groups that are not mandatory, in name order, skipping the groups
// a gate holds.
func (r *run) fillWindow(free int, out []outcome) {
	var runs cursors
	for gi, g := range r.f.groups {
		if g.mandatory || r.counts[gi].ToApply == 0 {
			continue
		}
		if out[gi].hold = r.admit(gi); out[gi].hold.held {
			continue
		}
		if c := r.nextUntouched(gi, g.start); c.pos < g.end {
			runs = append(runs, c)
		}
	}
	heap.Init(&runs)
	for ; free > 0 && len(runs) > 0; free-- {
		c := &runs[0]
		r.f.entries[c.pos].listed = true
		out[c.group].started++
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
