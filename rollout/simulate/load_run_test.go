package simulate_test

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// Flags of TestRunInvariantsUnderLoad, to reproduce a failure:
//
//	go test -run TestRunInvariantsUnderLoad ./rollout/simulate/ -load.seed=S -load.case=I
var (
	loadSeed = flag.Uint64("load.seed", 20260501, "seed of TestRunInvariantsUnderLoad's random fleets")
	loadOne  = flag.Int("load.case", -1, "run only this case of TestRunInvariantsUnderLoad (even with -short or -race), and print its whole timeline if it fails")
)

const (
	// longTestsEnv names the environment variable that turns on the long
	// tests: set to 1, they run.
	longTestsEnv = "ROLLOUTKIT_LONG_TESTS"
	loadCases    = 10_000
	loadFailures = 3 // stop after this many failing cases
)

// TestRunInvariantsUnderLoad drives whole simulated rollouts over 10,000
// random fleets of 1-500 clusters in 1-8 groups, with random behaviours,
// every strategy, and gates on and off. Each timeline must pass the checks
// of TestRunProperties (scenario.check) and the load checks
// (loadCase.checkLoad):
//
//   - ProgressivePerGroup starts a group only once every earlier group of
//     the walk is complete: checkPerGroup from the replayed states,
//     checkGroupOrder from the planner's completions;
//   - Progressive never has more clusters in flight than its window:
//     checkBatch when it starts some, checkWindowAlways at every instant;
//   - nothing starts during a breach: no Applied event between Breach and
//     BreachCleared, and the replayed failures are within every budget at
//     every start (checkPerGroup, checkProgressive); a halt shows a breach
//     (checkHalted);
//   - mandatory groups finish first: checkMandatoryFirst, and
//     checkProgressive and checkPerGroup from the replayed states;
//   - gates hold what they should: checkGates;
//   - a healthy fleet behind gates that open completes (checkEnd) within
//     the time its strategy implies (checkDuration).
//
// A second run, from inputs built again from the same seed, must give an
// identical Result.
//
// It takes about 45 seconds on two cores, so it runs only when the
// environment sets ROLLOUTKIT_LONG_TESTS=1 (CI does, in .ci/run), and
// never with -short or under the race detector, which would make it take
// many minutes. A single case (-load.case) always runs.
func TestRunInvariantsUnderLoad(t *testing.T) {
	one := *loadOne >= 0
	switch {
	case raceEnabled && !one:
		t.Skip("too slow under the race detector; TestRunProperties runs the property checks on small fleets")
	case testing.Short() && !one:
		t.Skip("a long test: it runs without -short")
	case os.Getenv(longTestsEnv) != "1" && !one:
		t.Skip("a long test (about 45 s on 2 cores): run it with " + longTestsEnv + "=1 go test -run TestRunInvariantsUnderLoad ./rollout/simulate/")
	}
	seed := *loadSeed
	if one {
		runLoadCase(t, seed, *loadOne, true)
		return
	}
	t.Parallel()

	began := time.Now()
	stats := make([]loadStat, loadCases)
	var next, failed atomic.Int64
	t.Run("workers", func(t *testing.T) {
		for w := range runtime.GOMAXPROCS(0) {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				for failed.Load() < loadFailures {
					i := int(next.Add(1) - 1)
					if i >= loadCases {
						return
					}
					var ok bool
					if stats[i], ok = runLoadCase(t, seed, i, false); !ok {
						failed.Add(1)
					}
				}
			})
		}
	})
	t.Logf("seed %d: %s\n%s", seed, time.Since(began).Round(time.Millisecond), summarize(stats))
}

// loadStat is what the summary tells of one case.
type loadStat struct {
	clusters int
	kind     clusterv1alpha1.RolloutType
	gated    bool
	outcome  simulate.Outcome
	plans    int
	timed    string // how checkDuration bounded its simulated time: "exact", "bounded" or ""
}

// runLoadCase runs case i twice from the seed, and checks the first run and
// that the second gives the same Result. It reports whether all passed.
func runLoadCase(t *testing.T, seed uint64, i int, verbose bool) (loadStat, bool) {
	lc := newLoadCase(seed, i)
	st := loadStat{clusters: lc.total, kind: lc.kind, gated: len(lc.opts.Planner.Gates) > 0}
	where := fmt.Sprintf("seed %d case %d\nreproduce: go test -run TestRunInvariantsUnderLoad ./rollout/simulate/ -load.seed=%d -load.case=%d\n%s",
		seed, i, seed, i, lc.dump())
	r, err := simulate.Run(lc.opts, lc.fleet)
	if !assert.NoError(t, err, where) {
		return st, false
	}
	st.outcome, st.plans = r.Outcome, r.Plans
	msg := lc.check(r)
	if msg == "" {
		msg = lc.checkLoad(r)
	}
	if msg != "" {
		return st, assert.Fail(t, msg, "%s\n%s", where, timeline(r, verbose))
	}
	if b, ok := lc.durationBounds(); lc.healthy && ok {
		st.timed = "bounded"
		if b.exact {
			st.timed = "exact"
		}
	}
	replay := newLoadCase(seed, i)
	again, err := simulate.Run(replay.opts, replay.fleet)
	if !assert.NoError(t, err, where) {
		return st, false
	}
	if !reflect.DeepEqual(r, again) {
		return st, assert.Fail(t, "a replay from the same seed gives another Result: "+firstDifference(r, again), where)
	}
	return st, true
}

// timeline is the whole timeline when verbose, else its last lines.
func timeline(r simulate.Result, verbose bool) string {
	const tail = 25
	lines := strings.SplitAfter(r.Timeline(), "\n")
	if verbose || len(lines) <= tail {
		return strings.Join(lines, "")
	}
	return fmt.Sprintf("... %d earlier lines (-load.case prints them all)\n%s", len(lines)-tail, strings.Join(lines[len(lines)-tail:], ""))
}

// firstDifference names the first field or event in which two Results
// differ.
func firstDifference(a, b simulate.Result) string {
	for i := range min(len(a.Events), len(b.Events)) {
		if a.Events[i] != b.Events[i] {
			return fmt.Sprintf("event %d: %+v, then %+v", i, a.Events[i], b.Events[i])
		}
	}
	switch {
	case len(a.Events) != len(b.Events):
		return fmt.Sprintf("%d events, then %d", len(a.Events), len(b.Events))
	case !reflect.DeepEqual(a.Groups, b.Groups):
		return fmt.Sprintf("group times %+v, then %+v", a.Groups, b.Groups)
	}
	return fmt.Sprintf("end %s %s after %d plans (%s), then %s %s after %d plans (%s)",
		a.End, a.Outcome, a.Plans, a.Reason, b.End, b.Outcome, b.Plans, b.Reason)
}

// summarize counts the cases by size, strategy and outcome.
func summarize(stats []loadStat) string {
	var b strings.Builder
	sizes := []int{20, 100, 300, 499, 500}
	bySize := make([]int, len(sizes))
	kinds, outcomes, timed := map[string]int{}, map[string]int{}, map[string]int{}
	fleets, gated, plans, clusters := 0, 0, 0, 0
	for _, s := range stats {
		if s.clusters == 0 {
			continue // not run: the test stopped early
		}
		bySize[slices.IndexFunc(sizes, func(n int) bool { return s.clusters <= n })]++
		kinds[string(s.kind)]++
		outcomes[s.outcome.String()]++
		fleets++
		timed[s.timed]++
		plans += s.plans
		clusters += s.clusters
		if s.gated {
			gated++
		}
	}
	fmt.Fprintf(&b, "%d fleets, %d clusters in all; fleets of 1-20 clusters: %d, 21-100: %d, 101-300: %d, 301-499: %d, 500: %d\n",
		fleets, clusters, bySize[0], bySize[1], bySize[2], bySize[3], bySize[4])
	fmt.Fprintf(&b, "strategies: %v; gated: %d; outcomes: %v; planner calls: %d (one run of each)\n", kinds, gated, outcomes, plans)
	fmt.Fprintf(&b, "healthy fleets whose simulated time is checked: %d exactly, %d within bounds", timed["exact"], timed["bounded"])
	return b.String()
}
