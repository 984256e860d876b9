package simulate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// TestTimelineQuotesOddNames shows that a cluster or group name with a
// newline cannot forge a line of the timeline.
func TestTimelineQuotesOddNames(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	g := grouping.GroupKey{Name: "dev\n+00:01 completed group prod"}
	r := simulate.Result{
		Start: start, End: start, Reason: "stuck: example",
		Groups: []simulate.GroupTimes{{GroupKey: g}},
		Events: []simulate.Event{{At: start, Kind: simulate.Applied, Cluster: "evil\n+00:00 applied forged", Group: g}},
	}
	lines := strings.Split(strings.TrimSuffix(r.Timeline(), "\n"), "\n")
	assert.Equal(t, []string{
		`+00:00 applied "evil\n+00:00 applied forged" ("dev\n+00:01 completed group prod")`,
		"+00:00 stuck: example (0 planner calls)",
	}, lines)
}
