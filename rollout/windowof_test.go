package rollout_test

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestWindowOfRejects: every problem of a window's parts is a *field.Error
// whose path names the part (a day by its index), with the value as
// written, all at once.
func TestWindowOfRejects(t *testing.T) {
	t.Parallel()
	type problem struct {
		typ   field.ErrorType
		path  string
		value any
	}
	tests := []struct {
		name             string
		days             []string
		start, end, zone string
		want             []problem
		text             string // the whole error, when given
	}{
		{name: "a bad day at its index", days: []string{"Mon", "Fry"}, start: "09:00", end: "17:00",
			want: []problem{{field.ErrorTypeInvalid, "days[1]", "Fry"}},
			text: `days[1]: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`},
		{name: "a bad end of a range", days: []string{"Mon-Fri", "Sat-Sum"}, start: "09:00", end: "17:00",
			want: []problem{{field.ErrorTypeInvalid, "days[1]", "Sum"}}},
		{name: "two bad words in one entry", days: []string{"Mo,Tu"}, start: "09:00", end: "17:00",
			want: []problem{{field.ErrorTypeInvalid, "days[0]", "Mo"}, {field.ErrorTypeInvalid, "days[0]", "Tu"}}},
		{name: "an empty day", days: []string{""}, start: "09:00", end: "17:00",
			want: []problem{{field.ErrorTypeInvalid, "days[0]", ""}}},
		{name: "no days", start: "09:00", end: "17:00",
			want: []problem{{field.ErrorTypeRequired, "days", ""}},
			text: `days: Required value: at least one day, e.g. Mon or Mon-Fri`},
		{name: "a start that is not HH:MM", days: []string{"Mon"}, start: "9h", end: "17:00",
			want: []problem{{field.ErrorTypeInvalid, "start", "9h"}},
			text: `start: Invalid value: "9h": want HH:MM from 00:00 to 23:59`},
		{name: "an end past the day", days: []string{"Mon"}, start: "09:00", end: "24:00",
			want: []problem{{field.ErrorTypeInvalid, "end", "24:00"}}},
		{name: "an empty end", days: []string{"Mon"}, start: "09:00",
			want: []problem{{field.ErrorTypeInvalid, "end", ""}}},
		{name: "an end equal to the start, as written", days: []string{"Mon"}, start: "09:00", end: "09:00",
			want: []problem{{field.ErrorTypeInvalid, "end", "09:00"}},
			text: `end: Invalid value: "09:00": want a time other than the start 09:00`},
		{name: "an unknown zone", days: []string{"Mon"}, start: "09:00", end: "17:00", zone: "Mars/Olympus",
			want: []problem{{field.ErrorTypeInvalid, "timeZone", "Mars/Olympus"}},
			text: `timeZone: Invalid value: "Mars/Olympus": want an IANA name such as Europe/Berlin or UTC`},
		{name: "Local is not a zone name", days: []string{"Mon"}, start: "09:00", end: "17:00", zone: "Local",
			want: []problem{{field.ErrorTypeInvalid, "timeZone", "Local"}}},
		{name: "every problem at once", days: []string{"Mon", "Fry", "Sat-Sum"}, start: "25:00", end: "5pm", zone: "Mars",
			want: []problem{
				{field.ErrorTypeInvalid, "days[1]", "Fry"},
				{field.ErrorTypeInvalid, "days[2]", "Sum"},
				{field.ErrorTypeInvalid, "start", "25:00"},
				{field.ErrorTypeInvalid, "end", "5pm"},
				{field.ErrorTypeInvalid, "timeZone", "Mars"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := rollout.WindowOf(tt.days, tt.start, tt.end, tt.zone)
			require.Error(t, err)
			assert.Nil(t, g)
			var got []problem
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var fe *field.Error
				require.True(t, errors.As(e, &fe), "want a *field.Error, got %v", e)
				p := problem{fe.Type, fe.Field, fe.BadValue}
				if fe.Type == field.ErrorTypeRequired {
					p.value = ""
				}
				got = append(got, p)
			}
			assert.Equal(t, tt.want, got)
			if tt.text != "" {
				assert.Equal(t, tt.text, err.Error())
			}
		})
	}
}

// TestWindowOfAdmits: the gate WindowOf builds is Window's: the wall clock
// of the zone, ranges that wrap, an end past midnight, UTC by default.
// (Window's own tests cover the nights of DST changes.)
func TestWindowOfAdmits(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	tests := []struct {
		name             string
		days             []string
		start, end, zone string
		at               time.Time
		admit            bool
		recheck          time.Duration
	}{
		{name: "inside, in Berlin", days: []string{"Mon-Fri"}, start: "09:00", end: "17:00", zone: "Europe/Berlin",
			at: time.Date(2026, 11, 30, 10, 0, 0, 0, loc), admit: true, recheck: 7 * time.Hour},
		{name: "outside: the weekend", days: []string{"Mon-Fri"}, start: "09:00", end: "17:00", zone: "Europe/Berlin",
			at: time.Date(2026, 12, 5, 10, 0, 0, 0, loc), recheck: 47 * time.Hour},
		{name: "the empty zone is UTC", days: []string{"Mon"}, start: "11:00", end: "13:00",
			at: t0(), admit: true, recheck: time.Hour},
		{name: "a range that wraps, past midnight", days: []string{"Fri-Mon"}, start: "22:00", end: "04:00",
			at: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), admit: true, recheck: time.Hour}, // Tuesday 03:00: Monday's night
		{name: "days in several entries, and repeated", days: []string{"Sat", "sunday", "Sat-Sun"}, start: "00:00", end: "23:59",
			at: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC), admit: true, recheck: 11*time.Hour + 59*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := rollout.WindowOf(tt.days, tt.start, tt.end, tt.zone)
			require.NoError(t, err)
			a := g.Admit(key("prod", 2), tt.at)
			assert.Equal(t, tt.admit, a.Admitted)
			assert.Equal(t, tt.recheck, a.RecheckAfter)
		})
	}
}

// TestWindowOfInputsNotModified: the days slice is the caller's.
func TestWindowOfInputsNotModified(t *testing.T) {
	t.Parallel()
	days := []string{"Fri", "Mon-Wed"}
	_, err := rollout.WindowOf(days, "09:00", "17:00", "UTC")
	require.NoError(t, err)
	assert.Equal(t, []string{"Fri", "Mon-Wed"}, days)
}
