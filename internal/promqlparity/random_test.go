package promqlparity

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
)

var (
	seedFlag    = flag.Uint64("seed", 20260601, "seed of the random queries")
	queriesFlag = flag.Int("queries", 100000, "number of random queries, half of them mutated (-short: a tenth)")
	queryFlag   = flag.Int("query", -1, "replay only this random query index")
)

// TestParityRandom runs random queries from the grammar, and random
// mutations of them, through the checker and Prometheus's parser: they
// must agree on every one. A failure names the query's index, for
// -query.
func TestParityRandom(t *testing.T) {
	t.Parallel()
	first, n := 0, *queriesFlag
	if testing.Short() {
		n /= 10
	}
	if *queryFlag >= 0 {
		first, n = *queryFlag, *queryFlag+1
	}
	refs := newReferences()
	generated, mutated := newTally(), newTally()
	failures := 0
	for i := first; i < n; i++ {
		g := newGenerator(*seedFlag, i)
		q, counts := g.query(), generated
		if i%2 == 1 {
			q, counts = g.mutate(q), mutated
		}
		if msg := refs.compare(q, counts); msg != "" {
			t.Errorf("query %d of seed %d: %s", i, *seedFlag, msg)
			if failures++; failures == 10 {
				t.Fatal("stopping after 10 disagreements")
			}
		}
	}
	t.Logf("seed %d, generated: %v", *seedFlag, generated)
	t.Logf("seed %d, mutated: %v", *seedFlag, mutated)
	if *queryFlag >= 0 || n-first < 10000 {
		return
	}
	for _, c := range []*tally{generated, mutated} {
		assert.Greater(t, c.accepted, c.queries/20, "too few valid queries to tell much")
		assert.Greater(t, c.refused, c.queries/20, "too few invalid queries to tell much")
	}
	for _, d := range differences {
		if d.byDefault != nil {
			assert.Positive(t, generated.fired[d.ID]+mutated.fired[d.ID], "%s (%s) never explained a refusal by default", d.ID, d.Summary)
		}
	}
}
