package field_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/intstr"
	apifield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

func TestParsePortion(t *testing.T) {
	t.Parallel()
	const want = ": want a non-negative integer or a percentage 0%-100%"
	tests := []struct {
		name    string
		in      intstr.IntOrString
		want    field.Portion
		wantErr string // InvalidPortion's text for a refused value
	}{
		{"zero int", intstr.FromInt32(0), field.Portion{}, ""},
		{"int", intstr.FromInt32(7), field.Portion{N: 7}, ""},
		{"negative int, unquoted", intstr.FromInt32(-1), field.Portion{}, `f: Invalid value: -1` + want},
		{"percent", intstr.FromString("7%"), field.Portion{N: 7, Percent: true}, ""},
		{"zero percent", intstr.FromString("0%"), field.Portion{Percent: true}, ""},
		{"hundred percent", intstr.FromString("100%"), field.Portion{N: 100, Percent: true}, ""},
		{"leading zero", intstr.FromString("07%"), field.Portion{N: 7, Percent: true}, ""},
		{"over 100", intstr.FromString("150%"), field.Portion{}, `f: Invalid value: "150%"` + want},
		{"not a number", intstr.FromString("abc"), field.Portion{}, `f: Invalid value: "abc"` + want},
		{"bare number string", intstr.FromString("5"), field.Portion{}, `f: Invalid value: "5"` + want},
		{"decimal", intstr.FromString("7.5%"), field.Portion{}, `f: Invalid value: "7.5%"` + want},
		{"sign", intstr.FromString("-5%"), field.Portion{}, `f: Invalid value: "-5%"` + want},
		{"empty", intstr.FromString(""), field.Portion{}, `f: Invalid value: ""` + want},
		{"only percent", intstr.FromString("%"), field.Portion{}, `f: Invalid value: "%"` + want},
		{"huge", intstr.FromString("99999999999999999999999%"), field.Portion{}, `f: Invalid value: "99999999999999999999999%"` + want},
		{"bad type", intstr.IntOrString{Type: 7}, field.Portion{}, `f: Invalid value: "<intstr type 7>"` + want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := field.ParsePortion(tt.in)
			assert.Equal(t, tt.want, got)
			if tt.wantErr != "" {
				assert.False(t, ok)
				err := field.InvalidPortion(apifield.NewPath("f"), tt.in)
				assert.EqualError(t, err, tt.wantErr)
				assert.Equal(t, apifield.ErrorTypeInvalid, err.Type)
				return
			}
			assert.True(t, ok)
		})
	}
}

func TestPortionOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     field.Portion
		total int
		want  int
	}{
		{"int", field.Portion{N: 3}, 100, 3},
		{"7% of 100 is exactly 7", field.Portion{N: 7, Percent: true}, 100, 7},
		{"ceil", field.Portion{N: 50, Percent: true}, 3, 2},
		{"1% of 1", field.Portion{N: 1, Percent: true}, 1, 1},
		{"0%", field.Portion{N: 0, Percent: true}, 1000, 0},
		{"100% of 0", field.Portion{N: 100, Percent: true}, 0, 0},
		{"33% of 3", field.Portion{N: 33, Percent: true}, 3, 1},
		{"10% of 1M", field.Portion{N: 10, Percent: true}, 1_000_000, 100_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.p.Of(tt.total))
		})
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"dev-cluster", "dev-cluster"},
		{"a.b_C-9", "a.b_C-9"},
		{"", `""`},
		{"two words", `"two words"`},
		{"evil\n+00:00 applied forged", `"evil\n+00:00 applied forged"`},
		{"ünï", `"ünï"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, field.Name(tt.in))
	}
}
