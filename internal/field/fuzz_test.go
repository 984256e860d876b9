package field_test

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	apifield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// FuzzParsePortion checks the int-or-percent parser on arbitrary strings
// and ints: it never panics; a refused value's InvalidPortion quotes it
// (an int unquoted); an accepted percentage is a whole number 0..100 whose portion of
// any total is the exact ceiling and never exceeds the total; an accepted
// value formats back to an equivalent value.
func FuzzParsePortion(f *testing.F) {
	for _, s := range []string{"0%", "7%", "100%", "101%", "150%", "abc", "", "%", "07%", "-5%", "7.5%", " 5%", "99999999999999999999%", "5"} {
		f.Add(s, int32(0), false, 100)
	}
	f.Add("", int32(-3), true, 10)
	f.Add("", int32(2147483647), false, 1_000_000)
	f.Fuzz(func(t *testing.T, s string, n int32, useInt bool, total int) {
		if total < 0 || total > 1<<40 {
			return
		}
		v := intstr.FromString(s)
		if useInt {
			v = intstr.FromInt32(n)
		}
		p, ok := field.ParsePortion(v)
		if !ok {
			err := field.InvalidPortion(apifield.NewPath("f"), v)
			want := "f: Invalid value: " + strconv.Quote(s) + ": want "
			if useInt {
				want = "f: Invalid value: " + strconv.Itoa(int(n)) + ": want "
			}
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not quote the value as written: want %q...", err, want)
			}
			return
		}
		if p.Percent {
			if p.N < 0 || p.N > 100 {
				t.Fatalf("accepted percentage %d out of range", p.N)
			}
			got := p.Of(total)
			if got > total || got*100 < p.N*total || (got > 0 && (got-1)*100 >= p.N*total) {
				t.Fatalf("%d%% of %d = %d, not the exact ceiling", p.N, total, got)
			}
		} else if p.N < 0 {
			t.Fatalf("accepted negative int %d", p.N)
		}
		back := intstr.FromString(p.String())
		if !p.Percent {
			back = intstr.FromInt32(int32(p.N))
		}
		if q, ok := field.ParsePortion(back); !ok || q != p {
			t.Fatalf("%v does not round-trip: %v, %v", p, q, ok)
		}
	})
}
