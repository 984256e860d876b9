package sidebyside

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// The differential's timing: a work agent applies in 2s, a group soaks
// 3s. A soak skipped for a new add-on (W2) is skipped whole, well beyond
// readyTolerance.
const (
	applyDelay = 2 * time.Second
	soakTime   = 3 * time.Second
)

// perGroup is the seed's ProgressivePerGroup strategy with the
// differential's soak.
func perGroup(deadline string, maxFailures int, mandatory ...string) clusterv1alpha1.RolloutStrategy {
	s := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
			RolloutConfig: clusterv1alpha1.RolloutConfig{
				MinSuccessTime:   metav1.Duration{Duration: soakTime},
				ProgressDeadline: deadline,
				MaxFailures:      intstr.FromInt32(int32(maxFailures)),
			},
		},
	}
	for _, g := range mandatory {
		s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups = append(
			s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups, clusterv1alpha1.MandatoryDecisionGroup{GroupName: g})
	}
	return s
}

// scenario is one story run on both sides, after both have installed
// their add-ons, and the divergences that explain where they differ.
type scenario struct {
	name    string
	setup   setup
	story   func(r *run)
	explain []divergence
}

func scenarios() []scenario {
	small := [3]int{2, 2, 3}
	seedStory := setup{sizes: small, strategy: perGroup("1m", 0), apply: applyDelay, soak: soakTime}
	withStrategy := func(s clusterv1alpha1.RolloutStrategy) setup {
		out := seedStory
		out.strategy = s
		return out
	}
	// After a failure has timed out on both sides, how long neither may
	// start anything more for the rollout to count as halted: time for
	// the slower side to run one more group.
	const quiet = 3 * (applyDelay + soakTime)
	// Every scenario installs its add-ons first (W2), and every install
	// progression's message has our words (A1).
	always := []divergence{w2(), a1(), d8()}
	return []scenario{{
		name:  "seed story",
		setup: seedStory,
		story: func(r *run) {
			r.change("change", "v2")
			r.waitRolledOut("change", 2*time.Minute)
		},
		explain: always,
	}, {
		name:  "failing cluster, maxFailures 0",
		setup: withStrategy(perGroup("6s", 0)),
		story: func(r *run) {
			r.restartInfra("stg-0001")
			r.change("change", "v2")
			r.waitSettled("stg-0001 timed out", 1, quiet, 2*time.Minute)
		},
		explain: always,
	}, {
		name:  "failing cluster, maxFailures 1",
		setup: withStrategy(perGroup("6s", 1)),
		story: func(r *run) {
			r.restartInfra("stg-0001")
			r.change("change", "v2")
			r.waitSettled("stg-0001 timed out", 1, quiet, 2*time.Minute)
		},
		explain: always,
	}, {
		name:  "timeout, then recovery",
		setup: withStrategy(perGroup("6s", 0)),
		story: func(r *run) {
			r.restartInfra("stg-0001")
			r.change("change", "v2")
			r.waitSettled("stg-0001 timed out", 1, applyDelay+soakTime, 2*time.Minute)
			r.restartInfra()
			r.waitRolledOut("change", 2*time.Minute)
		},
		explain: always,
	}, {
		name:  "mandatory decision groups",
		setup: withStrategy(perGroup("6s", 1, "dev")),
		story: func(r *run) {
			r.restartInfra("stg-0001")
			r.change("change", "v2")
			r.waitSettled("stg-0001 timed out", 1, quiet, 2*time.Minute)
		},
		explain: append(always, d5("prod-0001", "prod-0002", "prod-0003")),
	}, {
		name: "Progressive with maxConcurrency",
		setup: setup{sizes: small, apply: applyDelay, soak: soakTime, window: 2, strategy: clusterv1alpha1.RolloutStrategy{
			Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{
				RolloutConfig:  clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: soakTime}, ProgressDeadline: "1m"},
				MaxConcurrency: intstr.FromInt32(2),
			},
		}},
		story: func(r *run) {
			r.change("change", "v2")
			r.waitRolledOut("change", 2*time.Minute)
		},
		explain: always,
	}, {
		name:  "a cluster joins and one leaves mid-rollout",
		setup: seedStory,
		story: func(r *run) {
			r.change("change", "v2")
			r.waitStarted("stg started", []string{"stg-0001", "stg-0002"}, time.Minute)
			// Apart from stg's start on either side: the clusters that
			// start when they join make a wave of their own.
			time.Sleep(applyDelay)
			r.addCluster("dev-0003", "dev")
			r.addCluster("prod-0004", "prod")
			r.removeCluster("prod-0001")
			r.waitRolledOut("change", 2*time.Minute)
		},
		explain: append(always, a8("prod-0001")),
	}, {
		name:  "revert mid-rollout",
		setup: seedStory,
		story: func(r *run) {
			r.change("change", "v2")
			r.waitStarted("stg started", []string{"stg-0001", "stg-0002"}, time.Minute)
			r.change("revert", "v1")
			r.waitRolledOut("revert", 2*time.Minute)
		},
		explain: always,
	}, {
		name:  "controller restart mid-group",
		setup: seedStory,
		story: func(r *run) {
			r.change("change", "v2")
			r.waitStarted("stg started", []string{"stg-0001", "stg-0002"}, time.Minute)
			r.restartBoth(time.Second)
			r.waitRolledOut("change", 2*time.Minute)
		},
		explain: always,
	}}
}

// TestAddOnManagerSideBySide runs each scenario on a hub of its own with
// OCM v1.2.0's add-on manager and the rolloutkit controller side by side,
// and fails on any difference that no divergence the scenario names
// explains, and on any divergence named that does not show.
func TestAddOnManagerSideBySide(t *testing.T) {
	var mu sync.Mutex
	var summary []string
	// Cleanups of the parent run after its parallel subtests.
	t.Cleanup(func() {
		slices.Sort(summary)
		t.Logf("scenario | compared | agree | differ, by divergence\n%s", strings.Join(summary, "\n"))
	})
	for _, sc := range scenarios() {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			r := newRun(t, sc.setup)
			sc.story(r)
			c := r.compare()
			r.checkHandover(t)
			t.Logf("timeline:%s%s", r.timeline(ocmSide), r.timeline(oursSide))
			shown := map[string]int{}
			for _, d := range c.differences {
				ids, ok := explain(d, sc.explain)
				if !ok {
					t.Errorf("a difference no divergence explains: %s", d)
					continue
				}
				for _, id := range ids {
					shown[id]++
				}
				t.Logf("explained by %v: %s", ids, d)
			}
			hidden := map[string]bool{}
			for _, dv := range sc.explain {
				for _, id := range dv.hides {
					hidden[id] = hidden[id] || shown[dv.id] > 0
				}
			}
			for _, dv := range sc.explain {
				if shown[dv.id] == 0 && !dv.racy && !hidden[dv.id] {
					t.Errorf("divergence %s is named but did not show", dv.id)
				}
			}
			var by []string
			for _, id := range slices.Sorted(maps.Keys(shown)) {
				by = append(by, fmt.Sprintf("%s %d", id, shown[id]))
			}
			mu.Lock()
			summary = append(summary, fmt.Sprintf("%s | %d | %d | %d: %s", sc.name, c.compared, c.compared-len(c.differences), len(c.differences), strings.Join(by, ", ")))
			mu.Unlock()
		})
	}
}
