package rollout

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestParseDeadline(t *testing.T) {
	t.Parallel()
	const want = `want "None" or a non-negative duration such as "90s" or "1h30m"`
	tests := []struct {
		in      string
		want    time.Duration
		ok      bool
		wantErr string
	}{
		{"", 0, false, ""},
		{"None", 0, false, ""},
		{"0s", 0, true, ""},
		{"90s", 90 * time.Second, true, ""},
		{"1h30m", 90 * time.Minute, true, ""},
		{"-1s", 0, false, `progress.progressDeadline: Invalid value: "-1s": ` + want},
		{"15", 0, false, `progress.progressDeadline: Invalid value: "15": ` + want},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			d, ok, err := parseDeadline(tt.in, "progress", "progressDeadline")
			assert.Equal(t, tt.want, d)
			assert.Equal(t, tt.ok, ok)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			var fe *field.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.wantErr, err.Error())
		})
	}
}

// FuzzParseDeadline checks the progressDeadline parser: "" and "None" mean
// no deadline; anything else is a non-negative Go duration, or a
// *field.Error for its path that quotes the value.
func FuzzParseDeadline(f *testing.F) {
	for _, s := range []string{"", "None", "0s", "90s", "1h30m", "1.5h", "-5m", "15", "abc", "5m ", "None5m", "9223372036854775807ns"} {
		f.Add(s)
	}
	path := field.NewPath("progressive", "progressDeadline")
	f.Fuzz(func(t *testing.T, s string) {
		d, ok, err := parseDeadline(s, "progressive", "progressDeadline")
		switch {
		case err != nil:
			var fe *field.Error
			if !errors.As(err, &fe) || fe.BadValue != s || fe.Field != path.String() || fe.Type != field.ErrorTypeInvalid {
				t.Fatalf("error %v does not name %s and the value %q", err, path, s)
			}
			if ok || d != 0 {
				t.Fatalf("error with a deadline: %v %v", d, ok)
			}
		case s == "" || s == "None":
			if ok {
				t.Fatalf("%q gave a deadline %v", s, d)
			}
		default:
			want, perr := time.ParseDuration(s)
			if !ok || perr != nil || d != want || d < 0 {
				t.Fatalf("%q gave %v, %v; time.ParseDuration says %v, %v", s, d, ok, want, perr)
			}
		}
	})
}
