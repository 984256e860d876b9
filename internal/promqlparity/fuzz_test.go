package promqlparity

import (
	"testing"
)

// FuzzParity runs the checker and Prometheus's parser on arbitrary input,
// seeded with the corpus: they must agree.
func FuzzParity(f *testing.F) {
	for _, queries := range handWritten {
		for _, q := range queries {
			f.Add(q)
		}
	}
	refs := newReferences()
	f.Fuzz(func(t *testing.T, q string) {
		if msg := refs.compare(q, newTally()); msg != "" {
			t.Fatal(msg)
		}
	})
}
