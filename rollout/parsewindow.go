package rollout

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ParseWindow builds a [Window] gate from one line, "DAYS HH:MM-HH:MM ZONE":
// DAYS is a comma-separated list of days (Mon) or ranges (Mon-Fri, Fri-Mon),
// the hours are wall-clock times (the end may pass midnight), and ZONE is an
// IANA time zone name, e.g.
//
//	Mon-Fri 09:00-17:00 Europe/Berlin
//	Sat,Sun 22:00-04:00 UTC
//
// A line that is not three fields is a *field.Error for the path "window".
// Otherwise every problem of its parts is a *field.Error whose path names
// the part (days, start, end, zone), joined with errors.Join and named by
// the line: `window "Mon-Fry 09:00-17:00 UTC": days: Invalid value: "Fry":
// want Mon, Tue, Wed, Thu, Fri, Sat or Sun`. Time zones are loaded with
// time.LoadLocation; a program that must run where the system has no tz
// database imports time/tzdata.
func ParseWindow(line string) (Gate, error) {
	parts := strings.Fields(line)
	if len(parts) != 3 {
		return nil, field.Invalid(field.NewPath("window"), line, `want "DAYS HH:MM-HH:MM ZONE", e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`)
	}
	days, errs := parseDays(parts[0])
	start, end, hourErrs := parseHours(parts[1])
	errs = append(errs, hourErrs...)
	loc, err := time.LoadLocation(parts[2])
	if err != nil {
		errs = append(errs, field.Invalid(field.NewPath("zone"), parts[2], "want an IANA name such as Europe/Berlin or UTC"))
	}
	if len(errs) == 0 {
		var w *window
		if w, errs = newWindow(loc, days, start, end); len(errs) == 0 {
			return GateFunc(w.admit), nil
		}
	}
	return nil, fmt.Errorf("window %q: %w", line, errors.Join(errs...))
}

const wantDay = "want Mon, Tue, Wed, Thu, Fri, Sat or Sun"

// parseDays reads "Mon-Fri", "Sat,Sun", "Fri-Mon" (a range may wrap),
// reporting every word that is not a day.
func parseDays(s string) ([]time.Weekday, []error) {
	var (
		days []time.Weekday
		errs []error
		seen [7]bool
	)
	for _, part := range strings.Split(s, ",") {
		from, to, isRange := strings.Cut(part, "-")
		a, ok := weekday(from)
		if !ok {
			errs = append(errs, field.Invalid(field.NewPath("days"), from, wantDay))
		}
		b := a
		if isRange {
			var okTo bool
			if b, okTo = weekday(to); !okTo {
				errs = append(errs, field.Invalid(field.NewPath("days"), to, wantDay))
			}
			ok = ok && okTo
		}
		for d := a; ok; d = (d + 1) % 7 {
			if !seen[d] {
				seen[d] = true
				days = append(days, d)
			}
			if d == b {
				break
			}
		}
	}
	return days, errs
}

// parseHours reads "HH:MM-HH:MM", the start and the end of the window.
func parseHours(s string) (start, end time.Duration, errs []error) {
	from, to, ok := strings.Cut(s, "-")
	start, okStart := parseClock(from)
	if !okStart {
		errs = append(errs, field.Invalid(field.NewPath("start"), from, wantClock))
	}
	end, okEnd := parseClock(to)
	switch {
	case !ok:
		errs = append(errs, field.Required(field.NewPath("end"), `HH:MM after the start and a "-", e.g. 09:00-17:00`))
	case !okEnd:
		errs = append(errs, field.Invalid(field.NewPath("end"), to, wantClock))
	}
	return start, end, errs
}

// weekday reads a day name of three letters or more, in any case: "Mon",
// "monday".
func weekday(s string) (time.Weekday, bool) {
	s = strings.ToLower(s)
	for d := time.Sunday; d <= time.Saturday; d++ {
		if len(s) >= 3 && strings.HasPrefix(strings.ToLower(d.String()), s) {
			return d, true
		}
	}
	return 0, false
}

const wantClock = "want HH:MM from 00:00 to 23:59"

// parseClock reads a wall-clock time "HH:MM".
func parseClock(s string) (time.Duration, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, false
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, true
}

// WindowOf builds a [Window] gate from its parts as an API object holds
// them: days, each a day (Mon) or a range (Mon-Fri, Fri-Mon); start and
// end, wall-clock times "HH:MM" (the end may pass midnight); zone, an IANA
// time zone name, UTC when empty ("Local" is refused). Every problem is a
// *field.Error whose path names the part (days[1], start, end, timeZone)
// and quotes the value as written, joined with errors.Join, so that a
// caller can root them at the object's field.
func WindowOf(days []string, start, end, zone string) (Gate, error) {
	var (
		errs []error
		all  []time.Weekday
		seen [7]bool
	)
	if len(days) == 0 {
		errs = append(errs, field.Required(field.NewPath("days"), "at least one day, e.g. Mon or Mon-Fri"))
	}
	for i, d := range days {
		ds, derrs := parseDays(d)
		for _, e := range derrs {
			var fe *field.Error
			if errors.As(e, &fe) {
				c := *fe
				c.Field = field.NewPath("days").Index(i).String()
				e = &c
			}
			errs = append(errs, e)
		}
		for _, wd := range ds {
			if !seen[wd] {
				seen[wd] = true
				all = append(all, wd)
			}
		}
	}
	from, okStart := parseClock(start)
	if !okStart {
		errs = append(errs, field.Invalid(field.NewPath("start"), start, wantClock))
	}
	to, okEnd := parseClock(end)
	switch {
	case !okEnd:
		errs = append(errs, field.Invalid(field.NewPath("end"), end, wantClock))
	case okStart && from == to:
		// said here, with the times as written, rather than by newWindow
		errs = append(errs, field.Invalid(field.NewPath("end"), end, "want a time other than the start "+start))
	}
	if zone == "" {
		zone = "UTC"
	}
	// "Local" is not an IANA name: the window would follow the time zone
	// of whatever machine runs the planner.
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "Local" {
		errs = append(errs, field.Invalid(field.NewPath("timeZone"), zone, "want an IANA name such as Europe/Berlin or UTC"))
	}
	if len(errs) == 0 {
		var w *window
		if w, errs = newWindow(loc, all, from, to); len(errs) == 0 {
			return GateFunc(w.admit), nil
		}
	}
	return nil, errors.Join(errs...)
}
