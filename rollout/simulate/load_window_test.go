package simulate_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// windowSpec is a Window gate in UTC as the load test draws it, with its
// own reading of the documented rule, so that the checks need not trust
// the gate's code: open on the days, from start for end-start (passing
// midnight when end < start).
type windowSpec struct {
	days       [7]bool
	start, end time.Duration
}

// randomWindowSpec opens at least five days a week for 6-12 hours, as
// randomWindow does, so that a healthy fleet always completes.
func randomWindowSpec(rng *rand.Rand) *windowSpec {
	w := &windowSpec{start: time.Duration(rng.IntN(24)) * time.Hour}
	w.end = (w.start + time.Duration(6+rng.IntN(7))*time.Hour) % (24 * time.Hour)
	for _, d := range rng.Perm(7)[:5+rng.IntN(3)] {
		w.days[d] = true
	}
	return w
}

// gate is the rollout.Window gate of w.
func (w *windowSpec) gate() rollout.Gate {
	var days []time.Weekday
	for d, on := range w.days {
		if on {
			days = append(days, time.Weekday(d))
		}
	}
	g, err := rollout.Window(time.UTC, days, w.start, w.end)
	if err != nil {
		panic(err) // randomWindowSpec draws only valid windows
	}
	return g
}

// inside reports whether the window is open at t.
func (w *windowSpec) inside(t time.Time) bool {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	tod, wd := t.Sub(day), t.Weekday()
	if w.start < w.end {
		return w.days[wd] && tod >= w.start && tod < w.end
	}
	return w.days[wd] && tod >= w.start || w.days[(wd+6)%7] && tod < w.end
}

// nextOpen is the first instant at or after t at which the window is open:
// t itself, or the start of the next day the window opens on.
func (w *windowSpec) nextOpen(t time.Time) time.Time {
	if w == nil || w.inside(t) {
		return t
	}
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	for d := range 8 {
		if at := day.AddDate(0, 0, d).Add(w.start); at.After(t) && w.inside(at) {
			return at
		}
	}
	panic(fmt.Sprintf("window %s never opens after %s", w, t)) // it opens five days a week
}

func (w *windowSpec) String() string {
	var days []string
	for d, on := range w.days {
		if on {
			days = append(days, time.Weekday(d).String()[:3])
		}
	}
	return fmt.Sprintf("%s %02d:00-%02d:00 UTC", strings.Join(days, ","), int(w.start/time.Hour), int(w.end/time.Hour))
}
