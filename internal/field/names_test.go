package field_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

func TestNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		names        []string
		total, shown int
		want         string
	}{
		{"none", nil, 0, 3, ""},
		{"all shown", []string{"a", "b"}, 2, 3, `"a", "b"`},
		{"cut at shown", []string{"a", "b", "c", "d"}, 4, 3, `"a", "b", "c" and 1 more`},
		{"total beyond the list", []string{"a"}, 5, 3, `"a" and 4 more`},
		{"quoted", []string{"two words\n"}, 1, 5, `"two words\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, field.Names(tt.names, tt.total, tt.shown))
		})
	}
}

func TestObjectAndAbout(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `placement "ns/p"`, field.Object("placement", "ns", "p"))
	assert.Equal(t, `managedcluster "c"`, field.Object("managedcluster", "", "c"))
	assert.NoError(t, field.About(`placement "ns/p"`))
	a, b := errors.New("a"), errors.New("b")
	err := field.About(`placement "ns/p"`, a, b)
	assert.Equal(t, "placement \"ns/p\": a\nb", err.Error())
	assert.ErrorIs(t, err, a)
	assert.ErrorIs(t, err, b)
}
