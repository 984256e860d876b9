package main

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // -window names a time zone; work on machines without a tz database

	"github.com/rolloutkit/rolloutkit/rollout"
)

var weekdays = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// parseWindow parses -window: "DAYS HH:MM-HH:MM ZONE", where DAYS is a
// comma-separated list of days (Mon) or ranges (Mon-Fri, Fri-Mon), e.g.
// "Mon-Fri 09:00-17:00 Europe/Berlin" or "Sat,Sun 22:00-04:00 UTC".
func parseWindow(s string) (rollout.Gate, error) {
	fields := strings.Fields(s)
	if len(fields) != 3 {
		return nil, fmt.Errorf("-window %q: want \"DAYS HH:MM-HH:MM ZONE\", e.g. \"Mon-Fri 09:00-17:00 Europe/Berlin\"", s)
	}
	days, err := parseDays(fields[0])
	if err != nil {
		return nil, fmt.Errorf("-window %q: %w", s, err)
	}
	from, to, ok := strings.Cut(fields[1], "-")
	if !ok {
		return nil, fmt.Errorf("-window %q: hours %q: want HH:MM-HH:MM", s, fields[1])
	}
	start, err := parseClock(from)
	if err != nil {
		return nil, fmt.Errorf("-window %q: %w", s, err)
	}
	end, err := parseClock(to)
	if err != nil {
		return nil, fmt.Errorf("-window %q: %w", s, err)
	}
	loc, err := time.LoadLocation(fields[2])
	if err != nil {
		return nil, fmt.Errorf("-window %q: time zone %q: want an IANA name such as Europe/Berlin or UTC", s, fields[2])
	}
	g, err := rollout.Window(loc, days, start, end)
	if err != nil {
		return nil, fmt.Errorf("-window %q: %w", s, err)
	}
	return g, nil
}

func parseDays(s string) ([]time.Weekday, error) {
	var days []time.Weekday
	seen := map[time.Weekday]bool{}
	for _, part := range strings.Split(s, ",") {
		from, to, isRange := strings.Cut(part, "-")
		a, ok := weekdays[strings.ToLower(from)]
		if !ok {
			return nil, fmt.Errorf("day %q: want Mon, Tue, Wed, Thu, Fri, Sat or Sun", from)
		}
		b := a
		if isRange {
			if b, ok = weekdays[strings.ToLower(to)]; !ok {
				return nil, fmt.Errorf("day %q: want Mon, Tue, Wed, Thu, Fri, Sat or Sun", to)
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

func parseClock(s string) (time.Duration, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, fmt.Errorf("time %q: want HH:MM from 00:00 to 23:59", s)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}
