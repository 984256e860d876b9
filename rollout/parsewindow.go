package rollout

import (
	"fmt"
	"strings"
	"time"
)

// ParseWindow builds a [Window] gate from one line, "DAYS HH:MM-HH:MM ZONE":
// DAYS is a comma-separated list of days (Mon) or ranges (Mon-Fri, Fri-Mon),
// the hours are wall-clock times (the end may pass midnight), and ZONE is an
// IANA time zone name, e.g.
//
//	Mon-Fri 09:00-17:00 Europe/Berlin
//	Sat,Sun 22:00-04:00 UTC
//
// Errors are *FieldError values that quote the line and the part that is
// wrong. Time zones are loaded with time.LoadLocation; a program that must
// run where the system has no tz database imports time/tzdata.
func ParseWindow(line string) (Gate, error) {
	bad := func(part, value, want string) error {
		return &FieldError{Object: fmt.Sprintf("window %q", line), Field: part, Value: value, Want: want}
	}
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return nil, &FieldError{Field: "window", Value: line, Want: `"DAYS HH:MM-HH:MM ZONE", e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`}
	}
	days, err := parseDays(fields[0], bad)
	if err != nil {
		return nil, err
	}
	from, to, ok := strings.Cut(fields[1], "-")
	if !ok {
		return nil, bad("hours", fields[1], "HH:MM-HH:MM")
	}
	start, err := parseClock(from, bad)
	if err != nil {
		return nil, err
	}
	end, err := parseClock(to, bad)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(fields[2])
	if err != nil {
		return nil, bad("time zone", fields[2], "an IANA name such as Europe/Berlin or UTC")
	}
	g, err := Window(loc, days, start, end)
	if err != nil {
		return nil, fmt.Errorf("window %q: %w", line, err)
	}
	return g, nil
}

type badPart func(part, value, want string) error

const wantDay = "Mon, Tue, Wed, Thu, Fri, Sat or Sun"

// parseDays reads "Mon-Fri", "Sat,Sun", "Fri-Mon" (a range may wrap).
func parseDays(s string, bad badPart) ([]time.Weekday, error) {
	var days []time.Weekday
	var seen [7]bool
	for _, part := range strings.Split(s, ",") {
		from, to, isRange := strings.Cut(part, "-")
		a, ok := weekday(from)
		if !ok {
			return nil, bad("day", from, wantDay)
		}
		b := a
		if isRange {
			if b, ok = weekday(to); !ok {
				return nil, bad("day", to, wantDay)
			}
		}
		for d := a; ; d = (d + 1) % 7 {
			if !seen[d] {
				seen[d] = true
				days = append(days, d)
			}
			if d == b {
				break
			}
		}
	}
	return days, nil
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

// parseClock reads a wall-clock time "HH:MM".
func parseClock(s string, bad badPart) (time.Duration, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, bad("time", s, "HH:MM from 00:00 to 23:59")
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}
