package sidebyside

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLateInstalls checks the test of D8 (the race on a real hub) on orders of its own: OCM's
// order is explained only when each cluster it started out of ours's
// order had its add-on created after the one it was overtaken by.
func TestLateInstalls(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 5, 4, 18, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ours := []string{"dev-0001", "dev-0002", "prod-0001", "prod-0002", "stg-0001"}
	inOrder := map[string]time.Time{"dev-0001": at(0), "dev-0002": at(0.1), "prod-0001": at(0.2), "prod-0002": at(0.3), "stg-0001": at(0.4)}
	prodLate := map[string]time.Time{"dev-0001": at(0), "dev-0002": at(0.1), "prod-0001": at(2.7), "prod-0002": at(0.3), "stg-0001": at(0.4)}
	tests := []struct {
		name     string
		ocm      []string
		created  map[string]time.Time
		late     []string
		explains bool
	}{
		{"the same order: nothing to explain", ours, prodLate, nil, false},
		{"prod-0001 overtaken, its add-on created later", []string{"dev-0001", "dev-0002", "prod-0002", "prod-0001", "stg-0001"}, prodLate, []string{"prod-0001", "prod-0002"}, true},
		{"prod-0001 overtaken, its add-on created first", []string{"dev-0001", "dev-0002", "prod-0002", "prod-0001", "stg-0001"}, inOrder, nil, false},
		{"a creation not recorded", []string{"dev-0001", "dev-0002", "prod-0002", "prod-0001", "stg-0001"}, map[string]time.Time{"prod-0001": at(3)}, nil, false},
		{"other clusters", []string{"dev-0001", "dev-0002", "prod-0002", "prod-0003", "stg-0001"}, prodLate, nil, false},
		{"fewer clusters", []string{"dev-0001", "dev-0002"}, prodLate, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			late := lateInstalls(tt.ocm, ours, tt.created)
			require.Equal(t, tt.explains, len(late) > 0, "%v", late)
			if !tt.explains {
				return
			}
			var got []string
			for _, c := range ours {
				if late[c] {
					got = append(got, c)
				}
			}
			assert.Equal(t, tt.late, got)
		})
	}
}

// TestD8 checks that D8 explains an out-of-order install only when its
// creations do, and claims the soaks broken around the late clusters
// only.
func TestD8(t *testing.T) {
	t.Parallel()
	rec := soakRecord{lateInstall: map[string]bool{"prod-0001": true, "prod-0002": true}}
	ocm := order{waves: [][]string{{"dev-0001", "prod-0002"}, {"prod-0001"}}, soak: rec}
	ours := order{waves: [][]string{{"dev-0001"}, {"prod-0001"}, {"prod-0002"}}}
	ids, ok := explain(difference{phase: "install", aspect: "order", ocm: ocm, ours: ours}, []divergence{w2(), d8()})
	assert.True(t, ok)
	assert.Equal(t, []string{"D8"}, ids)

	unexplained := ocm
	unexplained.soak = soakRecord{}
	_, ok = explain(difference{phase: "install", aspect: "order", ocm: unexplained, ours: ours}, []divergence{w2(), d8()})
	assert.False(t, ok, "an order the creations do not explain")

	claims := d8().claims
	assert.True(t, claims(ocmSide, soakBreak{cluster: "dev-0002", before: []string{"dev-0001", "prod-0002"}}, rec))
	assert.True(t, claims(ocmSide, soakBreak{cluster: "prod-0001", before: []string{"dev-0001"}}, rec))
	assert.False(t, claims(ocmSide, soakBreak{cluster: "stg-0001", before: []string{"dev-0001"}}, rec))
	assert.False(t, claims(oursSide, soakBreak{cluster: "prod-0001", before: []string{"dev-0001"}}, rec))
	rec.lateInstall = nil
	assert.False(t, claims(ocmSide, soakBreak{cluster: "prod-0001", before: []string{"dev-0001"}}, rec))
}
