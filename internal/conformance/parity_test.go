package conformance

import (
	"errors"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

var (
	seedFlag      = flag.Uint64("seed", 20250602, "seed of the parity test's scenario generator")
	scenariosFlag = flag.Int("scenarios", 20000, "number of parity scenarios (-short: a tenth)")
	scenarioFlag  = flag.Int("scenario", -1, "replay only this parity scenario index")
)

// parityStats counts, per divergence, the scenarios whose input it applies
// to (fired), those where the planners disagreed while it applied
// (observed), and those where it was the only one applying (alone).
type parityStats struct {
	scenarios, exact, rewritten int
	normalized                  int // disagreed only by divergences that Normalize erases
	fired, observed, alone      map[string]int
}

// TestParity runs OCM's GetRolloutCluster and our Plan on the same random
// scenarios. They must agree exactly unless a documented divergence applies
// to the input. Not parallel: OCM reads the package-level RolloutClock.
func TestParity(t *testing.T) {
	first, n := 0, *scenariosFlag
	if testing.Short() {
		n /= 10
	}
	replay := *scenarioFlag >= 0
	if replay {
		first, n = *scenarioFlag, *scenarioFlag+1
	}
	st := &parityStats{fired: map[string]int{}, observed: map[string]int{}, alone: map[string]int{}}
	failures := 0
	for i := first; i < n; i++ {
		sc := generate(*seedFlag, i)
		if replay {
			t.Logf("%s", sc)
		}
		if msg := checkScenario(&sc, st); msg != "" {
			t.Errorf("%s\n%s", msg, sc)
			if failures++; failures == 5 {
				t.Fatalf("stopping after %d failing scenarios", failures)
			}
		}
	}

	t.Logf("seed %d: %d scenarios, %d (%.1f%%) agree exactly, %d agree once OCM is given the equivalent spelling (D1, D12)",
		*seedFlag, st.scenarios, st.exact, 100*float64(st.exact)/float64(st.scenarios), st.rewritten)
	t.Logf("%d scenarios disagree only where D10/D13/D18 apply and agree once those are erased", st.normalized)
	for _, d := range divergences {
		t.Logf("%-4s fired %5d  disagreed %5d  alone %5d  %s", d.ID, st.fired[d.ID], st.observed[d.ID], st.alone[d.ID], d.Summary)
	}
	if replay || t.Failed() {
		return
	}
	assert.GreaterOrEqual(t, float64(st.exact)/float64(st.scenarios), 0.5, "exact agreement share, seed %d", *seedFlag)
	if st.scenarios < 5000 {
		return // too few to require that every divergence shows (-short with another seed)
	}
	for _, d := range divergences {
		assert.Positive(t, st.fired[d.ID], "%s (%s): its predicate never held in %d scenarios of seed %d", d.ID, d.Summary, st.scenarios, *seedFlag)
		assert.Positive(t, st.observed[d.ID], "%s (%s): never explained a disagreement in %d scenarios of seed %d", d.ID, d.Summary, st.scenarios, *seedFlag)
	}
}

// checkScenario runs both planners on sc and returns why it fails, or "".
func checkScenario(sc *scenario, st *parityStats) string {
	st.scenarios++
	wantStatuses := slices.Clone(sc.Statuses)
	wantGroups := cloneGroups(sc.Groups)

	ours, res := runOurs(sc.Now, sc.Strategy, sc.Groups, sc.Statuses)
	if !slices.Equal(sc.Statuses, wantStatuses) || !groupsEqual(sc.Groups, wantGroups) {
		return "our Plan modified its input"
	}
	if msg := ordered(res); msg != "" {
		return msg
	}

	h := ocmHandler(sc.Groups)
	in := toOCM(sc.Statuses)
	inCopy := slices.Clone(in)
	raw := runOCM(sc.Now, sc.Strategy, h, in)
	if !reflect.DeepEqual(in, inCopy) {
		return "OCM reordered or changed the caller's statuses" // not seen with sdk-go v1.3.0; record it if it starts
	}

	if negativeInt(sc.Strategy) { // D14
		st.fired["D14"]++
		var fe *field.Error
		if ours.Err == nil || !errors.As(ours.Err, &fe) {
			return fmt.Sprintf("D14: want a *field.Error for a negative int, got %v", ours.Err)
		}
		if raw.Err == nil {
			st.observed["D14"]++
			st.alone["D14"]++
		}
		return ""
	}
	if ours.Err != nil {
		return fmt.Sprintf("our Plan failed: %v", ours.Err)
	}

	theirs := raw
	equiv, rewrites := ocmEquivalent(sc.Strategy)
	if len(rewrites) > 0 {
		if raw.Err == nil {
			return fmt.Sprintf("%v: OCM accepted the strategy as written", rewrites)
		}
		for _, id := range rewrites {
			st.fired[id]++
			st.observed[id]++
			if len(rewrites) == 1 {
				st.alone[id]++
			}
		}
		theirs = runOCM(sc.Now, equiv, h, toOCM(sc.Statuses))
	}
	if theirs.Err != nil {
		return fmt.Sprintf("OCM failed: %v", theirs.Err)
	}

	a := analyse(sc)
	var fired []divergence
	for _, d := range divergences {
		if d.Applies != nil && d.Applies(a) {
			fired = append(fired, d)
			st.fired[d.ID]++
		}
	}
	d := diff(ours, theirs)
	if len(d) == 0 {
		if len(rewrites) == 0 {
			st.exact++
		} else {
			st.rewritten++
		}
		return ""
	}
	if len(fired) == 0 {
		return "planners disagree and no documented divergence applies:\n  " + strings.Join(d, "\n  ")
	}
	normalizable := true
	for _, dv := range fired {
		st.observed[dv.ID]++
		if len(fired) == 1 {
			st.alone[dv.ID]++
		}
		normalizable = normalizable && dv.Normalize != nil
	}
	if !normalizable {
		return ""
	}
	// Every divergence that applies can be erased: what remains must agree.
	ours, theirs = cloneOutcome(ours), cloneOutcome(theirs)
	for _, dv := range fired {
		dv.Normalize(a, &ours, false)
		dv.Normalize(a, &theirs, true)
	}
	if d := diff(ours, theirs); len(d) > 0 {
		return fmt.Sprintf("planners disagree beyond %s:\n  %s", ids(fired), strings.Join(d, "\n  "))
	}
	st.normalized++
	return ""
}

// ordered checks that our lists are ordered by group index, then name.
func ordered(res rollout.Result) string {
	for what, l := range map[string][]rollout.ClusterStatus{"ToRollout": res.ToRollout, "TimedOut": res.TimedOut} {
		if !slices.IsSortedFunc(l, func(a, b rollout.ClusterStatus) int {
			if a.Group.Index != b.Group.Index {
				return int(a.Group.Index - b.Group.Index)
			}
			return strings.Compare(a.Cluster, b.Cluster)
		}) {
			return what + " is not ordered by group index, then cluster name"
		}
	}
	return ""
}

func cloneGroups(gs []grouping.Group) []grouping.Group {
	out := slices.Clone(gs)
	for i := range out {
		out[i].Clusters = slices.Clone(out[i].Clusters)
	}
	return out
}

func groupsEqual(a, b []grouping.Group) bool {
	return slices.EqualFunc(a, b, func(x, y grouping.Group) bool {
		return x.GroupKey == y.GroupKey && slices.Equal(x.Clusters, y.Clusters)
	})
}

// TestParityReplay shows that a scenario is rebuilt from its seed and index.
func TestParityReplay(t *testing.T) {
	t.Parallel() // no OCM call here
	for i := range 50 {
		a, b := generate(7, i), generate(7, i)
		require.Equal(t, a.String(), b.String(), "scenario %d", i)
	}
}

// TestGenerateKnownStatuses shows that the generator draws only OCM's six
// status values: any other is an error for Plan (D14), which the parity
// test would report as a failure of ours.
func TestGenerateKnownStatuses(t *testing.T) {
	t.Parallel() // no OCM call here
	for i := range 2000 {
		for _, cs := range generate(*seedFlag, i).Statuses {
			require.True(t, cs.Status >= rollout.ToApply && cs.Status <= rollout.Skip, "scenario %d: %s has status %s", i, cs.Cluster, cs.Status)
		}
	}
}

func cloneOutcome(o outcome) outcome {
	o.ToRollout, o.TimedOut, o.Removed = slices.Clone(o.ToRollout), slices.Clone(o.TimedOut), slices.Clone(o.Removed)
	return o
}

func ids(ds []divergence) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.ID)
	}
	return strings.Join(s, "+")
}
