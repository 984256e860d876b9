package hubplan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestPlanFastRollback: every cluster is on config v1 and the config is
// back at v2, a revision the history says completed on all three. With
// spec.fastRollback, prod's approval, the verification and the 5m soaks
// are skipped: each group starts once the one before it applied. Without
// it, or when a cluster about to take v2 never ran it, the rollout is the
// usual one.
func TestPlanFastRollback(t *testing.T) {
	t.Parallel()
	all := []string{"dev-cluster", "prod-cluster", "stg-cluster"}
	spec := func(fast bool) *v1alpha1.AddOnRolloutSpec {
		return &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}, FastRollback: fast, Verifications: []v1alpha1.Verification{
			{Groups: []string{"dev"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}}
	}
	for _, c := range []struct {
		name    string
		fast    bool
		ran     []string
		started [][]string // by step: dev done, then stg done
	}{
		{name: "fast", fast: true, ran: all, started: [][]string{{"stg-cluster"}, {"prod-cluster"}}},
		{name: "not allowed", fast: false, ran: all, started: [][]string{nil, nil}},
		{name: "prod never ran it", fast: true, ran: all[:1], started: [][]string{nil, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newControlHub(t, spec(c.fast))
			h.ctl.History = []hubplan.HistoryEntry{entry("v1", 2, all...), entry("v2", 1, c.ran...)}
			p := h.step(0)
			assert.Equal(t, []string{"dev-cluster"}, startedBy(p))
			assert.Equal(t, c.fast && len(c.ran) == 3, p.Status.Placements[0].FastRollback)
			h.finish("dev-cluster")
			p = h.step(time.Second)
			assert.Equal(t, c.started[0], startedBy(p), "after dev applied")
			if c.started[0] == nil {
				assert.Equal(t, []string{"dev Active", "stg Waiting Group", "prod Waiting Group"}, groupLines(p), "dev soaks")
				return
			}
			assert.Empty(t, p.Checks, "a verification ran on the fast path")
			h.finish("stg-cluster")
			p = h.step(time.Second)
			assert.Equal(t, c.started[1], startedBy(p), "after stg applied")
			h.finish("prod-cluster")
			p = h.step(time.Second)
			assert.NotNil(t, p.Status.Placements[0].CompletionTime)
			assert.True(t, p.Status.Placements[0].FastRollback, "the status no longer says it went the fast path")
			assert.Equal(t, hubplan.ReasonCompleted, reasonOf(p, hubplan.ConditionProgressing))
		})
	}
}

// TestPlanOnFailureRollback: dev's verification of v2 fails. With
// spec.onFailure: Rollback the plan restores v1, the last revision that
// completed, and records why; once v1 is back, a failure of it rolls
// nothing back again. With Pause, it only holds.
func TestPlanOnFailureRollback(t *testing.T) {
	t.Parallel()
	for _, onFailure := range []string{v1alpha1.OnFailureRollback, v1alpha1.OnFailurePause, ""} {
		t.Run("onFailure="+onFailure, func(t *testing.T) {
			t.Parallel()
			h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{OnFailure: onFailure, Verifications: []v1alpha1.Verification{
				{Name: "smoke", Groups: []string{"dev"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}})
			h.ctl.History = []hubplan.HistoryEntry{entry("v1", 1, "dev-cluster", "prod-cluster", "stg-cluster"), entry("v2", 2)}
			h.step(0)
			h.finish("dev-cluster")
			h.clock.Step(soaked)
			p := h.plan()
			require.Len(t, p.Checks, 1)
			assert.Empty(t, p.Rollbacks)
			h.apply(p, hubplan.CheckResult{Check: p.Checks[0], Message: "HTTP 503", At: h.clock.Now()})
			p = h.plan()
			if onFailure != v1alpha1.OnFailureRollback {
				assert.Empty(t, p.Rollbacks)
				assert.Empty(t, p.Status.Rollbacks)
				assert.Equal(t, []string{"dev Blocked Verification", "stg Waiting Verification", "prod Waiting Group"}, groupLines(p))
				return
			}
			want := v1alpha1.RollbackStatus{Placement: seedRef(), From: revision("v2"), To: revision("v1"), ToNumber: 1,
				Reason: hubplan.ReasonVerificationFailed, Message: `verification smoke of group "dev" failed: HTTP 503`,
				Time: metav1.NewTime(h.clock.Now().UTC().Truncate(time.Second))}
			require.Len(t, p.Rollbacks, 1)
			assert.Equal(t, hubplan.Rollback{Status: want, Configs: entry("v1", 1).Record.Configs}, p.Rollbacks[0])
			assert.Equal(t, []v1alpha1.RollbackStatus{want}, p.Status.Rollbacks)
			h.apply(p)
			assert.Empty(t, h.plan().Rollbacks, "rolled back again before its configs were back")

			// the configs are back at v1: dev goes back, and a failure of v1
			// does not roll back again
			h.hash = "v1"
			p = h.step(time.Second)
			assert.Empty(t, p.Rollbacks)
			assert.Equal(t, []string{"dev-cluster"}, startedBy(p), "only dev took v2")
			h.finish("dev-cluster")
			h.clock.Step(soaked)
			p = h.plan()
			require.Len(t, p.Checks, 1)
			h.apply(p, hubplan.CheckResult{Check: p.Checks[0], Message: "HTTP 503", At: h.clock.Now()})
			p = h.plan()
			assert.Empty(t, p.Rollbacks, "a revision a rollback restored was rolled back")
			assert.Equal(t, []v1alpha1.RollbackStatus{want}, p.Status.Rollbacks)
		})
	}
}
