package conformance

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/controllers/agentdeploy"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

var (
	progressingSeedFlag      = flag.Uint64("progressing-seed", 20250602, "seed of the progressing parity test's generator")
	progressingScenariosFlag = flag.Int("progressing-scenarios", progressingScenarios, "number of progressing parity scenarios (-short: a fifth)")
	progressingScenarioFlag  = flag.Int("progressing-scenario", -1, "replay only this progressing parity scenario index")
)

// progressingStats counts the scenarios, those where both controllers
// agree exactly, OCM's outcomes by Progressing reason and message, and per
// divergence those it applies to (fired) and those where the two
// disagreed while it applied (observed).
type progressingStats struct {
	scenarios, exact int
	unwritten        int            // scenarios where OCM sent no patch
	outcomes         map[string]int // by OCM's Progressing condition
	fired, observed  map[string]int
}

// TestProgressingParity runs OCM v1.2.0's addonprogressing controller and
// our addon.Progressing on the same random add-ons and ManifestWorks. They
// must write the same status (the Progressing condition's status, reason,
// message and observedGeneration, whether its lastTransitionTime is new,
// every configReference's lastAppliedConfig, the rest unchanged) and
// agree on whether anything is written at all, unless a documented
// divergence applies; ConfigHashes must be addon-framework's ConfigsToMap.
func TestProgressingParity(t *testing.T) {
	t.Parallel() // OCM's addonprogressing reads no package-level state
	first, n := 0, *progressingScenariosFlag
	if testing.Short() {
		n /= 5
	}
	replay := *progressingScenarioFlag >= 0
	if replay {
		first, n = *progressingScenarioFlag, *progressingScenarioFlag+1
	}
	st := &progressingStats{outcomes: map[string]int{}, fired: map[string]int{}, observed: map[string]int{}}
	failures := 0
	for i := first; i < n; i++ {
		sc := generateProgressing(*progressingSeedFlag, i)
		if replay {
			t.Logf("%s", sc)
		}
		if msg := checkProgressingScenario(sc.progressingCase, st, replay); msg != "" {
			t.Errorf("%s\n%s", msg, sc)
			if failures++; failures == 5 {
				t.Fatalf("stopping after %d failing scenarios", failures)
			}
		}
	}

	t.Logf("progressing seed %d: %d scenarios (%d where OCM writes nothing), %d (%.1f%%) agree exactly",
		*progressingSeedFlag, st.scenarios, st.unwritten, st.exact, 100*float64(st.exact)/float64(max(st.scenarios, 1)))
	for _, k := range slices.Sorted(maps.Keys(st.outcomes)) {
		t.Logf("OCM gives %5d  %s", st.outcomes[k], k)
	}
	for _, d := range progressingDivergences {
		t.Logf("%-3s fired %5d  disagreed %5d  %s", d.ID, st.fired[d.ID], st.observed[d.ID], d.Summary)
	}
	if replay || t.Failed() || st.scenarios < 1000 {
		return // too few to require that every outcome and divergence shows
	}
	assert.GreaterOrEqual(t, float64(st.exact)/float64(st.scenarios), 0.9, "exact agreement share")
	for _, want := range []string{
		"False/ConfigurationUnsupported", "False/WaitingForManifestApplied", "False/WaitingForHostingManifestApplied",
		`True/Progressing "progressing... no addon works"`, `True/Progressing "` + progressingMsgMismatch + `"`,
		`True/Progressing "` + progressingMsgNotReady + `"`, `False/Completed "completed with no errors."`,
	} {
		found := 0
		for k, n := range st.outcomes {
			if strings.HasPrefix(k, want) {
				found += n
			}
		}
		assert.GreaterOrEqual(t, found, st.scenarios/100, "OCM's outcome %s is too rare to be tested", want)
	}
	for _, d := range progressingDivergences {
		assert.Positive(t, st.observed[d.ID], "%s (%s): never explained a disagreement in %d scenarios", d.ID, d.Summary, st.scenarios)
	}
}

// checkProgressingScenario runs both on pc and returns why it fails, or "".
func checkProgressingScenario(pc progressingCase, st *progressingStats, verbose bool) string {
	st.scenarios++
	wantMCA, wantWorks := pc.MCA.DeepCopy(), copyAll(pc.Works, (*workv1.ManifestWork).DeepCopy)
	ours := runOurProgressing(pc)
	if !equality.Semantic.DeepEqual(pc.MCA, wantMCA) || !equality.Semantic.DeepEqual(pc.Works, wantWorks) {
		return "our Progressing modified its input"
	}
	theirs := runOCMProgressing(pc)
	if verbose {
		fmt.Printf("OCM:  %s\nours: %s\n", theirs, ours)
	}
	if theirs.Err != nil || ours.Err != nil {
		return fmt.Sprintf("errors: ours %v, OCM %v", ours.Err, theirs.Err)
	}
	st.outcomes[theirs.progressing().String()]++
	if !theirs.Wrote {
		st.unwritten++
	}
	if msg := hashesAgree(pc); msg != "" {
		return msg
	}

	var fired []progressingDivergence
	for _, d := range progressingDivergences {
		if d.Applies(pc, theirs) {
			fired = append(fired, d)
			st.fired[d.ID]++
		}
	}
	diffs := diffProgressing(ours, theirs)
	switch {
	case len(diffs) == 0:
		st.exact++
		return ""
	case len(fired) > 0:
		for _, d := range fired {
			if d.Confirm != nil {
				if still := d.Confirm(pc, ours); len(still) > 0 {
					return d.ID + " applies, but OCM does not give our answer in the other order either:\n  " + strings.Join(still, "\n  ")
				}
			}
			st.observed[d.ID]++
		}
		return ""
	}
	return "controllers disagree and no documented divergence applies:\n  " + strings.Join(diffs, "\n  ") +
		"\n  OCM:  " + theirs.String() + "\n  ours: " + ours.String()
}

// hashesAgree checks addon.ConfigHashes against addon-framework's
// agentdeploy.ConfigsToMap, which renders the works' annotation, on the
// case's references.
func hashesAgree(pc progressingCase) string {
	beta, err := betaAddon(pc.MCA)
	if err != nil {
		return err.Error()
	}
	ours, theirs := addon.ConfigHashes(beta.Status.ConfigReferences), agentdeploy.ConfigsToMap(pc.MCA.Status.ConfigReferences)
	if !equality.Semantic.DeepEqual(ours, theirs) {
		return fmt.Sprintf("ConfigHashes %v, addon-framework's ConfigsToMap %v", ours, theirs)
	}
	return ""
}

// TestProgressingParityReplay shows that a scenario is rebuilt from its
// seed and index.
func TestProgressingParityReplay(t *testing.T) {
	t.Parallel()
	for i := range 50 {
		a, b := generateProgressing(7, i), generateProgressing(7, i)
		require.Equal(t, a.String(), b.String(), "scenario %d", i)
	}
}
