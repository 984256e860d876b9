package field_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

func TestParsePortion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       intstr.IntOrString
		negative bool
		want     field.Portion
		wantErr  string
	}{
		{"zero int", intstr.FromInt32(0), false, field.Portion{}, ""},
		{"int", intstr.FromInt32(7), false, field.Portion{N: 7}, ""},
		{"negative int refused", intstr.FromInt32(-1), false, field.Portion{}, `f "-1": want a non-negative integer`},
		{"negative int allowed", intstr.FromInt32(-1), true, field.Portion{N: -1}, ""},
		{"percent", intstr.FromString("7%"), false, field.Portion{N: 7, Percent: true}, ""},
		{"zero percent", intstr.FromString("0%"), false, field.Portion{Percent: true}, ""},
		{"hundred percent", intstr.FromString("100%"), false, field.Portion{N: 100, Percent: true}, ""},
		{"leading zero", intstr.FromString("07%"), false, field.Portion{N: 7, Percent: true}, ""},
		{"over 100", intstr.FromString("150%"), false, field.Portion{}, `f "150%": want a non-negative integer or a percentage 0%-100%`},
		{"not a number", intstr.FromString("abc"), false, field.Portion{}, `f "abc": want`},
		{"bare number string", intstr.FromString("5"), false, field.Portion{}, `f "5": want`},
		{"decimal", intstr.FromString("7.5%"), false, field.Portion{}, `f "7.5%": want`},
		{"sign", intstr.FromString("-5%"), false, field.Portion{}, `f "-5%": want`},
		{"empty", intstr.FromString(""), false, field.Portion{}, `f "": want`},
		{"only percent", intstr.FromString("%"), false, field.Portion{}, `f "%": want`},
		{"huge", intstr.FromString("99999999999999999999999%"), false, field.Portion{}, `want`},
		{"bad type", intstr.IntOrString{Type: 7}, false, field.Portion{}, `f "<intstr type 7>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := field.ParsePortion("f", tt.in, tt.negative)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var fe *field.Error
				assert.True(t, errors.As(err, &fe))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
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

func TestErrorFormat(t *testing.T) {
	t.Parallel()
	e := &field.Error{Field: "decisionStrategy.groupStrategy.clustersPerDecisionGroup", Value: "150%", Want: "an integer or a percentage 0%-100%"}
	assert.Equal(t, `placement "ns/p": decisionStrategy.groupStrategy.clustersPerDecisionGroup "150%": want an integer or a percentage 0%-100%`,
		e.In(`placement "ns/p"`).Error())
	assert.Equal(t, "", e.Object, "In must not modify the receiver")
	assert.Equal(t, `a: b: f "v\n": want w`, (&field.Error{Object: "b", Field: "f", Value: "v\n", Want: "w"}).In("a").Error())
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
