package simulate

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// run steps the simulation until the rollout ends or a limit is reached.
//
// After it applies the configuration to new clusters, it asks the planner
// again at the same instant, as a controller would when the clusters report
// Progressing: only then does the planner know their deadlines. Every other
// step moves the clock forward, so the loop cannot spin at one instant.
func (s *sim) run() (Result, error) {
	for {
		s.fire()
		if s.res.Plans >= s.maxPlans {
			return s.finish(TimeLimit, fmt.Sprintf("time limit: gave up after %d planner calls: %s", s.res.Plans, s.firstOpen())), nil
		}
		res, err := s.planner.Plan(s.strategy, s.groupsIn, s.statusList())
		if err != nil {
			return Result{}, fmt.Errorf("planner call %d at %s: %w", s.res.Plans+1, offset(s.now.Sub(s.res.Start)), err)
		}
		s.res.Plans++
		s.last = res
		if s.observe(&res) {
			return s.finish(Completed, s.completedReason()), nil
		}
		if s.start(&res) {
			continue
		}
		next, ok := s.next(res.RecheckAfter)
		switch {
		case !ok && res.MaxFailureBreach:
			return s.finish(Halted, s.haltedReason()), nil
		case !ok:
			return s.finish(Stuck, "stuck: "+s.firstOpen()), nil
		case !next.After(s.now):
			// Defensive: nothing changed, so the planner would answer the same.
			return s.finish(Stuck, "stuck: the planner asks to be called again at "+offset(s.now.Sub(s.res.Start))+" with nothing changed"), nil
		case next.After(s.limit):
			s.now = s.limit
			return s.finish(TimeLimit, fmt.Sprintf("time limit: not complete after %s: %s", s.limit.Sub(s.res.Start), s.firstOpen())), nil
		}
		s.now = next
		s.clock.SetTime(next)
	}
}

// statusList is what the simulated clusters report: every applied cluster
// with its status and last transition time; untouched ones report nothing.
func (s *sim) statusList() []rollout.ClusterStatus {
	s.statuses = s.statuses[:0]
	for i := range s.clusters {
		if c := &s.clusters[i]; c.applied {
			s.statuses = append(s.statuses, rollout.ClusterStatus{Cluster: c.name, Status: c.status, LastTransitionTime: c.since})
		}
	}
	return s.statuses
}

// fire makes every cluster transition due at or before now.
func (s *sim) fire() {
	for len(s.pending) > 0 && !s.pending[0].at.After(s.now) {
		t := s.pending.pop()
		c := &s.clusters[t.cluster]
		ev := Event{At: t.at, Cluster: c.name, Group: s.groups[c.group].key}
		switch {
		case t.recover:
			ev.Kind, ev.Detail = Recovered, "from "+c.status.String()
			c.status = rollout.Succeeded
		case c.behavior.Fail:
			ev.Kind, c.status = Failed, rollout.Failed
		default:
			ev.Kind, c.status = Succeeded, rollout.Succeeded
		}
		c.since = t.at
		c.timedOutCall = 0 // a new status: a time-out from here on is a new one
		s.res.Events = append(s.res.Events, ev)
	}
}

// observe records what the planner concluded: new time-outs, a breach that
// appears or clears, groups that complete, gates that start holding. It
// reports whether every group is complete.
func (s *sim) observe(res *rollout.Result) bool {
	s.observeTimeOuts(res.TimedOut)
	if res.MaxFailureBreach != s.breach {
		s.breach = res.MaxFailureBreach
		ev := Event{At: s.now, Kind: BreachCleared, Group: s.breachGroup}
		if s.breach {
			ev.Kind = Breach
			for _, gp := range res.Groups {
				if gp.Phase == rollout.Breached {
					ev.Group, ev.Detail = gp.GroupKey, gp.Explanation(s.now)
					break
				}
			}
			s.breachGroup = ev.Group
		}
		s.res.Events = append(s.res.Events, ev)
	}
	complete := true
	for _, gp := range res.Groups {
		gi, ok := s.byKey[gp.GroupKey]
		if !ok {
			continue
		}
		g := &s.groups[gi]
		if gp.Phase != rollout.Complete {
			complete = false
		} else if !g.completed {
			g.completed = true
			s.res.Groups[gi].Finished = s.now
			s.res.Events = append(s.res.Events, Event{At: s.now, Kind: GroupCompleted, Group: g.key, Detail: gp.Explanation(s.now)})
		}
	}
	for _, gp := range res.Groups {
		gi, ok := s.byKey[gp.GroupKey]
		if !ok {
			continue
		}
		g := &s.groups[gi]
		blocked := gp.Phase == rollout.Blocked
		if blocked && !g.held {
			s.res.Events = append(s.res.Events, Event{At: s.now, Kind: GateHeld, Group: g.key, Detail: gp.Explanation(s.now)})
		}
		g.held = blocked
	}
	return complete
}

// observeTimeOuts records a TimedOut event for every cluster that the
// planner lists as timed out and did not list at the previous call, or
// that changed status since: its deadline just passed, or it changed
// status and timed out anew.
func (s *sim) observeTimeOuts(timedOut []rollout.ClusterStatus) {
	call := s.res.Plans
	for _, cs := range timedOut {
		i, ok := s.byName[cs.Cluster]
		if !ok {
			continue
		}
		c := &s.clusters[i]
		if c.timedOutCall == 0 || c.timedOutCall != call-1 {
			s.res.Events = append(s.res.Events, Event{At: s.now, Kind: TimedOut, Cluster: c.name, Group: s.groups[c.group].key,
				Detail: fmt.Sprintf("%s since %s, past the progressDeadline", c.status, offset(c.since.Sub(s.res.Start)))})
		}
		c.timedOutCall = call
	}
}

// start applies the configuration to the untouched clusters the planner
// lists, in its order (group index, then name), and schedules what each
// will report next. It reports whether it applied any.
func (s *sim) start(res *rollout.Result) bool {
	applied := false
	for _, cs := range res.ToRollout {
		i, ok := s.byName[cs.Cluster]
		if !ok || s.clusters[i].applied {
			continue // in flight: the planner keeps it listed, nothing new happens
		}
		c := &s.clusters[i]
		gi := c.group
		if g := &s.groups[gi]; !g.started {
			g.started = true
			s.res.Groups[gi].Started = s.now
			s.res.Events = append(s.res.Events, Event{At: s.now, Kind: GroupStarted, Group: g.key})
		}
		c.applied, c.status, c.since = true, rollout.Progressing, s.now
		applied = true
		key := s.groups[gi].key
		s.res.Events = append(s.res.Events,
			Event{At: s.now, Kind: Applied, Cluster: c.name, Group: key},
			Event{At: s.now, Kind: Progressing, Cluster: c.name, Group: key})
		b := c.behavior
		if !b.Silent {
			s.pending.push(transition{at: s.now.Add(b.ApplyDuration), cluster: i})
		}
		if b.RecoverAfter > 0 {
			s.pending.push(transition{at: s.now.Add(b.RecoverAfter), cluster: i, recover: true})
		}
	}
	return applied
}

// next is the next instant at which something can change: the earliest
// pending transition or the planner's recheck, whichever comes first. It
// reports false when there is neither.
func (s *sim) next(recheck time.Duration) (time.Time, bool) {
	var next time.Time
	if recheck > 0 {
		next = s.now.Add(recheck)
	}
	if len(s.pending) > 0 && (next.IsZero() || s.pending[0].at.Before(next)) {
		next = s.pending[0].at
	}
	return next, !next.IsZero()
}

// finish ends the simulation.
func (s *sim) finish(o Outcome, reason string) Result {
	s.res.End, s.res.Outcome, s.res.Reason = s.now, o, reason
	return s.res
}

func (s *sim) completedReason() string {
	timedOut := 0
	for _, gp := range s.last.Groups {
		timedOut += gp.Counts.TimedOut
	}
	var r string
	switch len(s.groups) {
	case 0:
		r = "completed: no group to roll out"
	case 1:
		r = "completed: the group is complete"
	default:
		r = fmt.Sprintf("completed: all %d groups complete", len(s.groups))
	}
	if timedOut > 0 {
		r += fmt.Sprintf(", %d cluster(s) timed out within maxFailures", timedOut)
	}
	return r
}

// haltedReason quotes the breached group's reason.
func (s *sim) haltedReason() string {
	for _, gp := range s.last.Groups {
		if gp.Phase == rollout.Breached {
			return "halted: " + s.groupLabel(gp.GroupKey) + ": " + gp.Explanation(s.now)
		}
	}
	return "halted: the failure budget is exceeded"
}

// firstOpen quotes the first group that is not complete, preferring one that
// is active or blocked over one that waits for it.
func (s *sim) firstOpen() string {
	var waiting *rollout.GroupProgress
	for i := range s.last.Groups {
		gp := &s.last.Groups[i]
		switch gp.Phase {
		case rollout.Complete:
		case rollout.Waiting:
			if waiting == nil {
				waiting = gp
			}
		default:
			return s.groupLabel(gp.GroupKey) + ": " + gp.Reason
		}
	}
	if waiting != nil {
		return s.groupLabel(waiting.GroupKey) + ": " + waiting.Reason
	}
	return "no group can make progress"
}

// groupLabel names a group in a reason: its Label (group "stg", unnamed
// group #3), with the index when several groups are named alike: group
// "stg" #1.
func (s *sim) groupLabel(k grouping.GroupKey) string {
	if k.Name != "" && s.names[k.Name] > 1 {
		return k.Label() + " #" + strconv.Itoa(int(k.Index))
	}
	return k.Label()
}
