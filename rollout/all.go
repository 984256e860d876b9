package rollout

// all applies type All (docs/semantics.md §3.4): every cluster that needs
// the config or is in flight is listed at once, minSuccessTime does not
// apply, failures never breach, and the deadline still turns stuck clusters
// into TimeOut. Gates hold the untouched clusters of the groups they hold.
func (r *run) all() {
	r.listInFlight()
	for gi := range r.f.groups {
		o := &r.out[gi]
		o.reached = true
		if o.counts.ToApply > 0 && r.admit(gi) {
			r.start(gi)
		}
	}
}
