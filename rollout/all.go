package rollout

// all applies type All (docs/semantics.md §3.4): every cluster that needs
// the config or is in flight is listed at once, minSuccessTime does not
// apply, failures never breach (there is no budget: maxFailures is -1),
// and the deadline still turns stuck clusters into TimeOut. Gates hold the
// untouched clusters of the groups they hold. No group waits for another.
func (r *run) all() verdict {
	r.listInFlight()
	v := newVerdict(len(r.f.groups), -1)
	for gi := range r.f.groups {
		if r.counts[gi].ToApply == 0 {
			continue
		}
		o := &v.groups[gi]
		if o.hold = r.admit(gi); !o.hold.held {
			o.started = r.start(gi)
		}
	}
	return v
}
