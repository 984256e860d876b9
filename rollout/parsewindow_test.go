package rollout_test

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestParseWindow(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	prod := grouping.GroupKey{Name: "prod", Index: 2}
	tests := []struct {
		line    string
		at      time.Time
		admit   bool
		recheck time.Duration
		wantErr string
	}{
		{line: "Mon-Fri 09:00-17:00 Europe/Berlin", at: time.Date(2026, 1, 6, 10, 0, 0, 0, berlin), admit: true, recheck: 7 * time.Hour},
		{line: "Mon-Fri 09:00-17:00 Europe/Berlin", at: time.Date(2026, 1, 10, 10, 0, 0, 0, berlin), recheck: 47 * time.Hour},
		{line: "monday-friday 09:00-17:00 Europe/Berlin", at: time.Date(2026, 1, 6, 10, 0, 0, 0, berlin), admit: true, recheck: 7 * time.Hour},
		{line: "Fri-Mon 22:00-04:00 UTC", at: time.Date(2026, 1, 6, 2, 0, 0, 0, time.UTC), admit: true, recheck: 2 * time.Hour},
		{line: "Fri-Mon 22:00-04:00 UTC", at: time.Date(2026, 1, 7, 2, 0, 0, 0, time.UTC), recheck: 68 * time.Hour}, // Wednesday 02:00 to Friday 22:00,
		{line: "sat,sun 00:00-23:59 UTC", at: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC), admit: true, recheck: 11*time.Hour + 59*time.Minute},
		{line: "Mon-Fri", wantErr: `window: Invalid value: "Mon-Fri": want "DAYS HH:MM-HH:MM ZONE"`},
		{line: "Mon-Fri 09:00 Europe/Berlin", wantErr: `window "Mon-Fri 09:00 Europe/Berlin": end: Required value: HH:MM after the start and a "-"`},
		{line: "Mon-Fry 09:00-17:00 UTC", wantErr: `window "Mon-Fry 09:00-17:00 UTC": days: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`},
		{line: "Mo 09:00-17:00 UTC", wantErr: `days: Invalid value: "Mo"`},
		{line: "Mon 9h-17:00 UTC", wantErr: `start: Invalid value: "9h": want HH:MM from 00:00 to 23:59`},
		{line: "Mon 09:00-24:00 UTC", wantErr: `end: Invalid value: "24:00"`},
		{line: "Mon 09:00-17:00 Mars/Olympus", wantErr: `zone: Invalid value: "Mars/Olympus": want an IANA name`},
		{line: "Mon 09:00-09:00 UTC", wantErr: `window "Mon 09:00-09:00 UTC": end: Invalid value: "9h0m0s": want a time of day other than the start 9h0m0s`},
		{line: "Mon-Fry,Sat-Sum 9-17:00 Mars", wantErr: "window \"Mon-Fry,Sat-Sum 9-17:00 Mars\": days: Invalid value: \"Fry\": want Mon, Tue, Wed, Thu, Fri, Sat or Sun\n" +
			"days: Invalid value: \"Sum\": want Mon, Tue, Wed, Thu, Fri, Sat or Sun\nstart: Invalid value: \"9\": want HH:MM from 00:00 to 23:59\n" +
			"zone: Invalid value: \"Mars\": want an IANA name such as Europe/Berlin or UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			g, err := rollout.ParseWindow(tt.line)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var fe *field.Error
				assert.True(t, errors.As(err, &fe), "want a *field.Error in %v", err)
				return
			}
			require.NoError(t, err)
			a := g.Admit(prod, tt.at)
			assert.Equal(t, tt.admit, a.Admitted)
			assert.Equal(t, tt.recheck, a.RecheckAfter)
		})
	}
}
