package rollout

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// Paused returns a gate that holds every group: the rollout finishes what
// is in flight and starts nothing new until the gate is removed.
func Paused(reason string) Gate {
	msg := "rollout paused"
	if reason != "" {
		msg += ": " + reason
	}
	return GateFunc(func(grouping.GroupKey, time.Time) Admission {
		return Admission{Reason: msg}
	})
}

// Approval returns a gate that admits only the groups listed. A key with a
// Name (and Index 0) approves every group of that name; a key with only an
// Index approves the group at that index; a key with both approves the
// group that has both.
func Approval(approved ...grouping.GroupKey) Gate {
	names := make(map[string]bool)
	indices := make(map[int32]bool)
	exact := make(map[grouping.GroupKey]bool)
	for _, k := range approved {
		switch {
		case k.Name != "" && k.Index != 0:
			exact[k] = true
		case k.Name != "":
			names[k.Name] = true
		default:
			indices[k.Index] = true
		}
	}
	return GateFunc(func(g grouping.GroupKey, _ time.Time) Admission {
		if names[g.Name] && g.Name != "" || indices[g.Index] || exact[g] {
			return Admission{Admitted: true}
		}
		return Admission{Reason: "waiting for approval of " + groupLabel(g)}
	})
}

// groupLabel names a group for a person: group "prod", or group #3 when it
// is unnamed.
func groupLabel(g grouping.GroupKey) string {
	if g.Name == "" {
		return fmt.Sprintf("unnamed group #%d", g.Index)
	}
	return fmt.Sprintf("group %q", g.Name)
}

// Window returns a gate that admits groups only while now, in loc, is on
// one of days and within [start, end) after midnight, in wall-clock time.
// An end before start passes midnight: the window opens on one of days and
// closes the next day. When it holds, RecheckAfter is the exact time until
// the window next opens (across days, time zones and DST changes); when it
// admits, the time until it closes.
func Window(loc *time.Location, days []time.Weekday, start, end time.Duration) (Gate, error) {
	var errs []error
	if loc == nil {
		errs = append(errs, &FieldError{Field: "window location", Value: "<nil>", Want: "a time zone, e.g. time.LoadLocation(\"Europe/Berlin\")"})
	}
	if len(days) == 0 {
		errs = append(errs, &FieldError{Field: "window days", Value: "[]", Want: "at least one weekday"})
	}
	var on [7]bool
	for _, d := range days {
		if d < time.Sunday || d > time.Saturday {
			errs = append(errs, &FieldError{Field: "window days", Value: strconv.Itoa(int(d)), Want: "a weekday from Sunday (0) to Saturday (6)"})
			continue
		}
		on[d] = true
	}
	for _, b := range []struct {
		name string
		d    time.Duration
	}{{"window start", start}, {"window end", end}} {
		if b.d < 0 || b.d >= 24*time.Hour {
			errs = append(errs, &FieldError{Field: b.name, Value: b.d.String(), Want: "a time of day in [0, 24h)"})
		}
	}
	if start == end {
		errs = append(errs, &FieldError{Field: "window end", Value: end.String(), Want: "a time of day other than the start " + start.String()})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	w := &window{loc: loc, on: on, start: start, end: end}
	return GateFunc(w.admit), nil
}

type window struct {
	loc        *time.Location
	on         [7]bool
	start, end time.Duration
}

// at is the wall-clock time d after midnight on the date of day, in w.loc.
func (w *window) at(day time.Time, d time.Duration) time.Time {
	y, m, dd := day.Date()
	return time.Date(y, m, dd, int(d/time.Hour), int(d%time.Hour/time.Minute),
		int(d%time.Minute/time.Second), int(d%time.Second), w.loc)
}

// admit checks the window instances that open from yesterday to a week
// ahead: one that contains now admits; otherwise the earliest to open says
// when to look again.
func (w *window) admit(_ grouping.GroupKey, now time.Time) Admission {
	local := now.In(w.loc)
	// Noon is never skipped by a DST change, so AddDate moves whole days.
	noon := time.Date(local.Year(), local.Month(), local.Day(), 12, 0, 0, 0, w.loc)
	var next time.Time
	for off := -1; off <= 8; off++ {
		day := noon.AddDate(0, 0, off)
		if !w.on[day.Weekday()] {
			continue
		}
		open := w.at(day, w.start)
		closeDay := day
		if w.end < w.start {
			closeDay = day.AddDate(0, 0, 1)
		}
		closeAt := w.at(closeDay, w.end)
		if !now.Before(open) && now.Before(closeAt) {
			return Admission{Admitted: true, RecheckAfter: closeAt.Sub(now)}
		}
		if open.After(now) && (next.IsZero() || open.Before(next)) {
			next = open
		}
	}
	return Admission{
		Reason:       fmt.Sprintf("outside the time window %s; it opens %s", w, next.Format("Mon 2006-01-02 15:04 MST")),
		RecheckAfter: next.Sub(now),
	}
}

// String formats the window as "Mon,Tue,Wed 09:00-17:00 Europe/Berlin".
func (w *window) String() string {
	var days []string
	for d := time.Sunday; d <= time.Saturday; d++ {
		if w.on[d] {
			days = append(days, d.String()[:3])
		}
	}
	hm := func(d time.Duration) string {
		return fmt.Sprintf("%02d:%02d", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return strings.Join(days, ",") + " " + hm(w.start) + "-" + hm(w.end) + " " + w.loc.String()
}
