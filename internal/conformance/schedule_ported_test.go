package conformance

// OCM v1.2.0's own hand-written scheduler cases, their inputs rewritten
// as hubs: pkg/placement/controllers/scheduling (schedule_test.go and the
// cluster-set cases of scheduling_controller_test.go) and the plugins'
// tests (predicate, tainttoleration, balance, steady, resource, addon).
// Each case states what OCM's test expects; TestSchedulePorted runs OCM's
// scheduling controller on the hub (which checks the port) and ours.

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// portedCase is one case of OCM's tests. The zero value of an expectation
// means the case does not state it, except selected: nil is "nothing".
type portedCase struct {
	from string // OCM's test function / case name
	hc   hubCase
	// selected are the clusters the case expects chosen, in any order.
	selected []string
	// ranking, for a prioritizer's case, are the clusters by the scores
	// the case expects, best first (ties in name order): the case is run
	// with every numberOfClusters from 1 to len(ranking), and each must
	// choose the head of the ranking.
	ranking []string
	// satisfied is the PlacementSatisfied reason, misconfigured the
	// PlacementMisconfigured message (set: the condition is True).
	satisfied, misconfigured string
	// groups, when set, are the decision groups: name, index and clusters.
	groups []decisionGroupOutcome
	// recheck is the requeue the case expects of OCM.
	recheck time.Duration
	// errs: the hub itself is bad; both schedulers fail and write nothing.
	errs bool
	// untouched: OCM leaves the Placement as it is.
	untouched bool
	// divergence names the documented divergence by which ours differs, and
	// ours checks ours against it.
	divergence string
	ours       func(t *testing.T, hc hubCase, ours scheduleOutcome, res placement.Result)
}

// TestSchedulePorted runs every ported case on OCM's scheduling controller
// and on ours. Not parallel: OCM reads package-level clocks.
func TestSchedulePorted(t *testing.T) {
	var cases []portedCase
	for _, group := range [][]portedCase{scheduleTestCases(), predicateCases(), taintCases(), scoreCases(), controllerCases()} {
		cases = append(cases, group...)
	}
	passed, diverged := 0, map[string]int{}
	for _, c := range cases {
		ok := t.Run(c.from, func(t *testing.T) {
			for _, hc := range c.runs() {
				checkPorted(t, "OCM", c, hc, runOCMScheduler(hc))
				ours, res := runOurScheduler(hc)
				if c.divergence != "" {
					c.ours(t, hc, ours, res)
					continue
				}
				checkPorted(t, "ours", c, hc, ours)
			}
		})
		if ok && c.divergence == "" {
			passed++
		} else if ok {
			diverged[c.divergence]++
		}
	}
	t.Logf("%d cases of OCM's tests ported: %d pass on ours as OCM's test expects, and by a documented divergence: %v",
		len(cases), passed, diverged)
}

// runs are the cases to run: one, or one per numberOfClusters for a
// ranking.
func (c portedCase) runs() []hubCase {
	if len(c.ranking) == 0 {
		return []hubCase{c.hc}
	}
	var out []hubCase
	for k := range c.ranking {
		hc := c.hc
		hc.Placement = c.hc.Placement.DeepCopy()
		n := int32(k + 1)
		hc.Placement.Spec.NumberOfClusters = &n
		out = append(out, hc)
	}
	return out
}

// checkPorted checks one scheduler's outcome against the case.
func checkPorted(t *testing.T, who string, c portedCase, hc hubCase, o scheduleOutcome) {
	t.Helper()
	switch {
	case c.errs:
		assert.Error(t, o.Err, who)
		assert.Empty(t, o.Groups, who)
		return
	case c.untouched:
		assert.Empty(t, o.Groups, who)
		assert.Equal(t, "<none>", o.Satisfied.Reason, who)
		return
	}
	want := c.selected
	if hc.Placement.Spec.NumberOfClusters != nil && len(c.ranking) > 0 {
		want = slices.Clone(c.ranking[:*hc.Placement.Spec.NumberOfClusters])
	}
	assert.Equal(t, sorted(want), selectedOf(o), "%s: selected clusters", who)
	if c.satisfied != "" {
		assert.Equal(t, c.satisfied, o.Satisfied.Reason, "%s: PlacementSatisfied", who)
	}
	if c.misconfigured != "" {
		assert.Equal(t, conditionOutcome{Status: metav1.ConditionTrue, Reason: "Misconfigured", Message: c.misconfigured}, o.Misconfig, who)
	} else {
		assert.Equal(t, metav1.ConditionFalse, o.Misconfig.Status, "%s: PlacementMisconfigured", who)
	}
	if c.groups != nil {
		got := make([]decisionGroupOutcome, len(o.Groups))
		for i, g := range o.Groups {
			got[i] = decisionGroupOutcome{Name: g.Name, Index: g.Index, Clusters: sorted(g.Clusters)}
		}
		assert.Equal(t, c.groups, got, "%s: decision groups", who)
	}
	// OCM's requeue is read on the real clock during its sync: the case's
	// value lies in [RecheckAfter, RecheckAfter+RecheckSlack] (ours has no
	// slack), and 10ms either side is rounding in the cases' figures.
	lo, hi := o.RecheckAfter-10*time.Millisecond, o.RecheckAfter+o.RecheckSlack+10*time.Millisecond
	assert.True(t, c.recheck >= lo && c.recheck <= hi, "%s: requeue %s, want %s within [%s, %s]", who, o.RecheckAfter, c.recheck, lo, hi)
}

func selectedOf(o scheduleOutcome) []string {
	var out []string
	for _, g := range o.Groups {
		out = append(out, g.Clusters...)
	}
	return sorted(out)
}

func sorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// rankingOf orders the clusters of a prioritizer test's expected scores
// as OCM's scheduler does: higher score first, then name.
func rankingOf(scores map[string]int64) []string {
	var names []string
	for n := range scores {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if scores[names[i]] != scores[names[j]] {
			return scores[names[i]] > scores[names[j]]
		}
		return strings.Compare(names[i], names[j]) < 0
	})
	return names
}
