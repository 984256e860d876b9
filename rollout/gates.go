package rollout

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

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
		return Admission{Reason: "waiting for approval of " + g.Label()}
	})
}

// Window returns a gate that admits groups only while now, in loc, is on
// one of days and within [start, end) after midnight, in wall-clock time.
// An end before start passes midnight: the window opens on one of days and
// closes the next day. When it holds, RecheckAfter is the exact time until
// the window next opens (across days, time zones and DST changes); when it
// admits, the time until it closes.
//
// Every problem is a *field.Error whose path names the argument (loc,
// days[2], start, end), joined with errors.Join and named as a whole:
// `window gate: end: Invalid value: "9h0m0s": want a time of day other
// than the start 9h0m0s`.
func Window(loc *time.Location, days []time.Weekday, start, end time.Duration) (Gate, error) {
	w, errs := newWindow(loc, days, start, end)
	if len(errs) > 0 {
		return nil, fmt.Errorf("window gate: %w", errors.Join(errs...))
	}
	return GateFunc(w.admit), nil
}

// newWindow checks the window's arguments, returning every problem.
func newWindow(loc *time.Location, days []time.Weekday, start, end time.Duration) (*window, []error) {
	var errs []error
	if loc == nil {
		errs = append(errs, field.Required(field.NewPath("loc"), `a time zone, e.g. time.LoadLocation("Europe/Berlin")`))
	}
	if len(days) == 0 {
		errs = append(errs, field.Required(field.NewPath("days"), "at least one weekday"))
	}
	var on [7]bool
	for i, d := range days {
		if d < time.Sunday || d > time.Saturday {
			errs = append(errs, field.Invalid(field.NewPath("days").Index(i), int(d), "want a weekday from Sunday (0) to Saturday (6)"))
			continue
		}
		on[d] = true
	}
	for _, b := range []struct {
		name string
		d    time.Duration
	}{{"start", start}, {"end", end}} {
		if b.d < 0 || b.d >= 24*time.Hour {
			errs = append(errs, field.Invalid(field.NewPath(b.name), b.d.String(), "want a time of day in [0, 24h)"))
		}
	}
	if start == end {
		errs = append(errs, field.Invalid(field.NewPath("end"), end.String(), "want a time of day other than the start "+start.String()))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &window{loc: loc, on: on, start: start, end: end}, nil
}

type window struct {
	loc        *time.Location
	on         [7]bool
	start, end time.Duration
}

// admit admits while the wall clock in w.loc is inside the window. Its
// RecheckAfter is the exact time until that changes: until the window next
// opens when it holds, until it closes when it admits.
func (w *window) admit(_ grouping.GroupKey, now time.Time) Admission {
	in := w.inside(now)
	var after time.Duration
	change := w.nextChange(now, in)
	if !change.IsZero() {
		after = change.Sub(now)
	}
	if in {
		return Admission{Admitted: true, RecheckAfter: after}
	}
	reason := fmt.Sprintf("outside the time window %s", w)
	if !change.IsZero() {
		reason += "; it opens " + change.In(w.loc).Format("Mon 2006-01-02 15:04 MST")
	}
	return Admission{Reason: reason, RecheckAfter: after}
}

// inside reports whether the wall clock of t in w.loc reads a time within
// [start, end) on one of the days; a window that passes midnight also
// covers the time before end on the day after one of the days. Reading the
// wall clock, rather than building each day's opening with time.Date, keeps
// the window right on the nights of DST changes, when a wall-clock time is
// skipped or happens twice.
func (w *window) inside(t time.Time) bool {
	l := t.In(w.loc)
	h, m, sec := l.Clock()
	tod := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second + time.Duration(l.Nanosecond())
	day := l.Weekday()
	if w.start < w.end {
		return w.on[day] && tod >= w.start && tod < w.end
	}
	return w.on[day] && tod >= w.start || w.on[(day+6)%7] && tod < w.end
}

// nextChange returns the first instant after now at which inside is no
// longer in, or the zero time if there is none within two weeks. Within one
// zone period the wall clock is the instant plus a fixed offset, so inside
// can change only where the wall clock reads start or end, or where a
// period begins (a DST change makes the wall clock jump).
func (w *window) nextChange(now time.Time, in bool) time.Time {
	limit := now.Add(15 * 24 * time.Hour)
	for from := now; from.Before(limit); {
		l := from.In(w.loc)
		_, until := l.ZoneBounds()
		if until.IsZero() || until.After(limit) {
			until = limit
		}
		if from.After(now) && w.inside(from) != in {
			return from
		}
		_, off := l.Zone()
		shift := time.Duration(off) * time.Second
		// The wall clock of from and until, written as UTC times.
		wallFrom, wallUntil := from.Add(shift).UTC(), until.Add(shift).UTC()
		for d := time.Date(wallFrom.Year(), wallFrom.Month(), wallFrom.Day(), 0, 0, 0, 0, time.UTC); !d.After(wallUntil); d = d.AddDate(0, 0, 1) {
			var first time.Time
			for _, b := range [2]time.Duration{w.start, w.end} {
				c := d.Add(b - shift) // the instant whose wall clock reads b on day d
				if c.After(now) && !c.Before(from) && c.Before(until) && w.inside(c) != in && (first.IsZero() || c.Before(first)) {
					first = c
				}
			}
			if !first.IsZero() {
				return first
			}
		}
		from = until
	}
	return time.Time{}
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
