package conformance

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

var (
	scheduleSeedFlag      = flag.Uint64("schedule-seed", 20250602, "seed of the scheduler parity test's hub generator")
	scheduleScenariosFlag = flag.Int("schedule-scenarios", scheduleScenarios, "number of scheduler parity scenarios (-short: a fifth)")
	scheduleScenarioFlag  = flag.Int("schedule-scenario", -1, "replay only this scheduler parity scenario index")
)

// scheduleStats counts the scenarios, those where both schedulers agree
// exactly, and per divergence those it applies to (fired) and those where
// the schedulers disagreed while it applied (observed).
type scheduleStats struct {
	scenarios, exact int
	selected         int // scenarios where OCM selected at least one cluster
	fired, observed  map[string]int
}

// TestScheduleParity runs OCM v1.2.0's scheduling controller and our
// ScheduleHub on the same random hubs and Placements. They must write the
// same decision groups (names, indices, PlacementDecisions and their
// clusters), the same numberOfSelectedClusters, the same PlacementSatisfied
// and PlacementMisconfigured conditions, and ask to be called again at the
// same time, unless a documented divergence applies to the input. Not
// parallel: OCM reads package-level clocks.
func TestScheduleParity(t *testing.T) {
	first, n := 0, *scheduleScenariosFlag
	if testing.Short() {
		n /= 5
	}
	replay := *scheduleScenarioFlag >= 0
	if replay {
		first, n = *scheduleScenarioFlag, *scheduleScenarioFlag+1
	}
	st := &scheduleStats{fired: map[string]int{}, observed: map[string]int{}}
	failures := 0
	for i := first; i < n; i++ {
		sc := generateHub(*scheduleSeedFlag, i)
		if replay {
			t.Logf("%s", sc)
		}
		if msg := checkHubScenario(&sc, st, replay); msg != "" {
			t.Errorf("%s\n%s", msg, sc)
			if failures++; failures == 5 {
				t.Fatalf("stopping after %d failing scenarios", failures)
			}
		}
	}

	t.Logf("schedule seed %d: %d scenarios (%d where OCM selected a cluster), %d (%.1f%%) agree exactly",
		*scheduleSeedFlag, st.scenarios, st.selected, st.exact, 100*float64(st.exact)/float64(max(st.scenarios, 1)))
	for _, d := range scheduleDivergences {
		t.Logf("%-3s fired %5d  disagreed %5d  %s", d.ID, st.fired[d.ID], st.observed[d.ID], d.Summary)
	}
	if replay || t.Failed() || st.scenarios < 5000 {
		return // too few to require that every divergence shows
	}
	assert.GreaterOrEqual(t, float64(st.exact)/float64(st.scenarios), 0.85, "exact agreement share")
	assert.GreaterOrEqual(t, float64(st.selected)/float64(st.scenarios), 0.4, "share of scenarios where something is selected")
	for _, d := range scheduleDivergences {
		assert.Positive(t, st.observed[d.ID], "%s (%s): never explained a disagreement in %d scenarios", d.ID, d.Summary, st.scenarios)
	}
}

// checkHubScenario runs both schedulers on sc and returns why it fails, or
// "".
func checkHubScenario(sc *hubScenario, st *scheduleStats, verbose bool) string {
	st.scenarios++
	wantPlacement, wantHub := sc.Placement.DeepCopy(), copyHub(sc.Hub)
	ours, res := runOurScheduler(sc.hubCase)
	if !equality.Semantic.DeepEqual(sc.Placement, wantPlacement) || !equality.Semantic.DeepEqual(sc.Hub, wantHub) {
		return "our ScheduleHub modified its input"
	}
	theirs := runOCMScheduler(sc.hubCase)
	if verbose {
		fmt.Printf("OCM:  %s\nours: %s\n", theirs, ours)
	}
	if theirs.Selected > 0 {
		st.selected++
	}

	var fired []string
	for _, d := range scheduleDivergences {
		if d.Applies != nil && d.Applies(&sc.hubCase, theirs) {
			fired = append(fired, d.ID)
			st.fired[d.ID]++
		}
	}
	if d := scheduleDivergenceByID("S1"); slices.Contains(fired, d.ID) {
		// Ours refuses the Placement outright; that is all there is to check.
		st.observed[d.ID]++
		return celRefused(&sc.hubCase, ours, res)
	}
	if msg := ourResultConsistent(res); msg != "" && ours.Err == nil {
		return msg
	}
	diffs := diffSchedule(ours, theirs)
	switch {
	case len(diffs) == 0:
		st.exact++
		return ""
	case len(fired) > 0:
		for _, id := range fired {
			st.observed[id]++
		}
		return ""
	}
	recheckOnly := theirs
	recheckOnly.RecheckAfter, recheckOnly.RecheckSlack = ours.RecheckAfter, 0
	if len(diffSchedule(ours, recheckOnly)) == 0 {
		id, why := explainRecheck(&sc.hubCase, ours, theirs)
		if id != "" {
			st.fired[id]++
			st.observed[id]++
			return ""
		}
		diffs = []string{why}
	}
	return "schedulers disagree and no documented divergence applies:\n  " + strings.Join(diffs, "\n  ") +
		"\n  OCM:  " + theirs.String() + "\n  ours: " + ours.String()
}

// diffSchedule lists how two outcomes differ.
func diffSchedule(ours, theirs scheduleOutcome) []string {
	var d []string
	if ours.Selected != theirs.Selected {
		d = append(d, fmt.Sprintf("numberOfSelectedClusters: ours %d, OCM %d", ours.Selected, theirs.Selected))
	}
	if !slices.EqualFunc(ours.Groups, theirs.Groups, func(a, b decisionGroupOutcome) bool {
		return a.Name == b.Name && a.Index == b.Index && a.Count == b.Count && slices.Equal(a.Decisions, b.Decisions) && slices.Equal(a.Clusters, b.Clusters)
	}) {
		d = append(d, fmt.Sprintf("decision groups: ours %v, OCM %v", ours.Groups, theirs.Groups))
	}
	if ours.Satisfied != theirs.Satisfied {
		d = append(d, fmt.Sprintf("PlacementSatisfied: ours %s, OCM %s", ours.Satisfied, theirs.Satisfied))
	}
	if ours.Misconfig != theirs.Misconfig {
		d = append(d, fmt.Sprintf("PlacementMisconfigured: ours %s, OCM %s", ours.Misconfig, theirs.Misconfig))
	}
	if !recheckAgrees(ours, theirs) {
		d = append(d, fmt.Sprintf("RecheckAfter: ours %s, OCM %s (+%s)", ours.RecheckAfter, theirs.RecheckAfter, theirs.RecheckSlack))
	}
	return d
}

// recheckAgrees: both ask for no requeue, or ours falls in the window
// OCM's requeue can mean.
func recheckAgrees(ours, theirs scheduleOutcome) bool {
	if theirs.RecheckAfter == 0 && theirs.RecheckSlack == 0 {
		return ours.RecheckAfter == 0
	}
	return ours.RecheckAfter >= theirs.RecheckAfter && ours.RecheckAfter <= theirs.RecheckAfter+theirs.RecheckSlack
}

// ourResultConsistent checks what the parity comparison does not see of
// our Result: Clusters is the sorted union of the groups, Groups match the
// status, and each PlacementDecision carries its group's labels.
func ourResultConsistent(res placement.Result) string {
	var all []string
	for i, g := range res.Groups {
		all = append(all, g.Clusters...)
		if i >= len(res.Status.DecisionGroups) || res.Status.DecisionGroups[i].DecisionGroupIndex != g.Index ||
			res.Status.DecisionGroups[i].DecisionGroupName != g.Name {
			return fmt.Sprintf("our Result.Groups[%d] %v is not status.decisionGroups[%d]", i, g.GroupKey, i)
		}
	}
	slices.Sort(all)
	if !slices.Equal(all, res.Clusters) && len(all)+len(res.Clusters) > 0 {
		return fmt.Sprintf("our Result.Clusters %v are not the groups' clusters %v", res.Clusters, all)
	}
	index := map[string]clusterv1beta1.DecisionGroupStatus{}
	for _, dg := range res.Status.DecisionGroups {
		for _, name := range dg.Decisions {
			index[name] = dg
		}
	}
	for _, pd := range res.Decisions {
		dg, ok := index[pd.Name]
		if !ok || pd.Labels[clusterv1beta1.DecisionGroupNameLabel] != dg.DecisionGroupName ||
			pd.Labels[clusterv1beta1.DecisionGroupIndexLabel] != strconv.Itoa(int(dg.DecisionGroupIndex)) ||
			pd.Labels[clusterv1beta1.PlacementLabel] == "" {
			return fmt.Sprintf("our PlacementDecision %s has labels %v, not those of its group", pd.Name, pd.Labels)
		}
	}
	return ""
}

// TestScheduleParityReplay shows that a scenario is rebuilt from its seed
// and index.
func TestScheduleParityReplay(t *testing.T) {
	t.Parallel() // no OCM call here
	for i := range 50 {
		a, b := generateHub(7, i), generateHub(7, i)
		require.Equal(t, a.String(), b.String(), "scenario %d", i)
	}
}
