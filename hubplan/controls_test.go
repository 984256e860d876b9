package hubplan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// controlCall is one call of Planner.Plan in a scenario: what changes on
// the hub before it, what it must decide, and what the agents and the
// checks do after it.
type controlCall struct {
	name   string
	after  time.Duration                                     // the clock moves by this first
	before func(h *controlHub)                               // changes on the hub before the call
	check  string                                            // "pass" or "fail": run every check due, with that result
	finish []string                                          // the agents of these clusters complete after the call
	then   func(t *testing.T, h *controlHub, p hubplan.Plan) // more checks

	starting    []string          // the clusters that start
	groups      []string          // "name Phase WaitsFor", in rollout order
	pending     []string          // the groups pending an approval
	due         []string          // the checks due: "group/name"
	progressing string            // the reason of the Progressing condition
	approvals   map[string]string // approval name: the reason of its Approved condition, after the call
}

// run runs the calls of a scenario, in order, on h.
func (h *controlHub) run(t *testing.T, calls []controlCall) {
	for i, c := range calls {
		if c.before != nil {
			c.before(h)
		}
		h.clock.Step(c.after)
		p := h.plan()
		var results []hubplan.CheckResult
		for _, ch := range p.Checks {
			results = append(results, hubplan.CheckResult{Check: ch, Passed: c.check == "pass", Message: c.check + "ed", At: h.clock.Now()})
		}
		h.apply(p, results...)
		label := fmt.Sprintf("call %d %s", i, c.name)
		assert.Equal(t, c.starting, startedBy(p), "%s: starting", label)
		assert.Equal(t, c.groups, groupLines(p), "%s: groups", label)
		var pending []string
		for _, pa := range p.Status.PendingApprovals {
			pending = append(pending, pa.Group)
			assert.Equal(t, p.Steps[0].Revision, pa.Revision, "%s: a pending approval names the revision", label)
		}
		assert.Equal(t, c.pending, pending, "%s: pending approvals", label)
		var due []string
		for _, ch := range p.Checks {
			due = append(due, ch.Group.Name+"/"+ch.Name)
		}
		assert.Equal(t, c.due, due, "%s: checks due", label)
		if c.progressing != "" {
			assert.Equal(t, c.progressing, reasonOf(p, hubplan.ConditionProgressing), "%s: Progressing", label)
		}
		for name, reason := range c.approvals {
			assert.Equal(t, reason, h.approvedReason(name), "%s: approval %s", label, name)
		}
		if c.then != nil {
			c.then(t, h, p)
		}
		h.finish(c.finish...)
	}
}

const soaked = 6 * time.Minute // past the seed's 5m minSuccessTime

// TestPlanControlledScenarios drives Planner.Plan through the seed's
// dev/stg/prod placement over successive calls, the agents completing the
// clusters the plans start.
func TestPlanControlledScenarios(t *testing.T) {
	t.Parallel()
	v2, v3 := revision("v2"), revision("v3")
	webhook := &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}
	tests := []struct {
		name  string
		spec  v1alpha1.AddOnRolloutSpec
		calls []controlCall
	}{
		{
			name: "approval of prod, per revision",
			spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}},
			calls: []controlCall{
				{name: "dev starts: it needs no approval", before: func(h *controlHub) { h.approve("early-wrong", "prod", "000000000000") },
					starting: []string{"dev-cluster"}, finish: []string{"dev-cluster"},
					groups:      []string{"dev Active", "stg Waiting Group", "prod Waiting Group"},
					progressing: hubplan.ReasonRollingOut,
					approvals:   map[string]string{"early-wrong": hubplan.ReasonRevisionMismatch}},
				{name: "stg starts", after: soaked, starting: []string{"stg-cluster"}, finish: []string{"stg-cluster"},
					groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "prod waits for an approval", after: soaked,
					groups: []string{"dev Complete", "stg Complete", "prod Blocked Approval"}, pending: []string{"prod"},
					progressing: hubplan.ReasonWaitingForApproval,
					approvals:   map[string]string{"early-wrong": hubplan.ReasonRevisionMismatch}},
				{name: "an approval of stg changes nothing", after: time.Minute, before: func(h *controlHub) { h.approve("stg", "stg", v2) },
					groups: []string{"dev Complete", "stg Complete", "prod Blocked Approval"}, pending: []string{"prod"},
					approvals: map[string]string{"stg": hubplan.ReasonNotRequired}},
				{name: "the right approval starts prod, and is used", after: time.Minute, before: func(h *controlHub) { h.approve("prod-v2", "prod", v2) },
					starting: []string{"prod-cluster"}, finish: []string{"prod-cluster"},
					groups:      []string{"dev Complete", "stg Complete", "prod Active"},
					progressing: hubplan.ReasonRollingOut,
					approvals:   map[string]string{"prod-v2": hubplan.ReasonUsed, "early-wrong": hubplan.ReasonRevisionMismatch}},
				{name: "complete", after: soaked,
					groups: []string{"dev Complete", "stg Complete", "prod Complete"}, progressing: hubplan.ReasonCompleted,
					approvals: map[string]string{"prod-v2": hubplan.ReasonUsed},
					then: func(t *testing.T, h *controlHub, p hubplan.Plan) {
						ps := p.Status.Placements[0]
						require.NotNil(t, ps.CompletionTime)
						assert.Equal(t, h.clock.Now(), ps.CompletionTime.Time)
						assert.Equal(t, addontest.PlanNow, ps.RevisionStartTime.Time, "kept while the revision is the same")
						assert.Equal(t, metav1.ConditionFalse, addontest.Condition(p.Status.Conditions, hubplan.ConditionProgressing).Status)
					}},
				{name: "a config change is a new revision: the old approval approves nothing",
					after: time.Minute, before: func(h *controlHub) { h.hash = "v3" },
					starting: []string{"dev-cluster"}, finish: []string{"dev-cluster"},
					groups:    []string{"dev Active", "stg Waiting Group", "prod Waiting Group"},
					approvals: map[string]string{"prod-v2": hubplan.ReasonRevisionMismatch},
					then: func(t *testing.T, h *controlHub, p hubplan.Plan) {
						ps := p.Status.Placements[0]
						assert.Equal(t, v3, ps.Revision)
						assert.Equal(t, h.clock.Now(), ps.RevisionStartTime.Time, "a new revision starts now")
						assert.Nil(t, ps.CompletionTime)
					}},
				{after: soaked, starting: []string{"stg-cluster"}, finish: []string{"stg-cluster"},
					groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "prod waits for an approval of the new revision", after: soaked,
					groups: []string{"dev Complete", "stg Complete", "prod Blocked Approval"}, pending: []string{"prod"},
					then: func(t *testing.T, h *controlHub, p hubplan.Plan) {
						assert.Equal(t, v3, p.Status.PendingApprovals[0].Revision)
					}},
				{after: time.Minute, before: func(h *controlHub) { h.approve("prod-v3", "prod", v3) },
					starting: []string{"prod-cluster"}, groups: []string{"dev Complete", "stg Complete", "prod Active"},
					approvals: map[string]string{"prod-v3": hubplan.ReasonUsed, "prod-v2": hubplan.ReasonRevisionMismatch}},
			},
		},
		{
			name: "paused before a change: the first group is held",
			spec: v1alpha1.AddOnRolloutSpec{Paused: true},
			calls: []controlCall{
				{groups: []string{"dev Blocked Paused", "stg Waiting Paused", "prod Waiting Paused"}, progressing: hubplan.ReasonPaused,
					then: func(t *testing.T, _ *controlHub, p hubplan.Plan) {
						assert.Equal(t, metav1.ConditionTrue, addontest.Condition(p.Status.Conditions, hubplan.ConditionPaused).Status)
						assert.Empty(t, givenNew(p, "v2"), "no add-on is given the new configs")
					}},
				{name: "unpaused: dev starts", after: time.Hour, before: func(h *controlHub) { h.edit(func(s *v1alpha1.AddOnRolloutSpec) { s.Paused = false }) },
					starting: []string{"dev-cluster"}, groups: []string{"dev Active", "stg Waiting Group", "prod Waiting Group"},
					progressing: hubplan.ReasonRollingOut,
					then: func(t *testing.T, _ *controlHub, p hubplan.Plan) {
						assert.Equal(t, hubplan.ReasonNotPaused, reasonOf(p, hubplan.ConditionPaused))
						assert.Equal(t, int64(2), p.Status.ObservedGeneration)
					}},
			},
		},
		{
			name: "paused mid-rollout: nothing new starts, the cluster in flight stays listed",
			spec: v1alpha1.AddOnRolloutSpec{},
			calls: []controlCall{
				{starting: []string{"dev-cluster"}, finish: []string{"dev-cluster"}, groups: []string{"dev Active", "stg Waiting Group", "prod Waiting Group"}},
				{after: soaked, starting: []string{"stg-cluster"}, groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "paused while stg is in flight", after: time.Minute, before: func(h *controlHub) { h.edit(func(s *v1alpha1.AddOnRolloutSpec) { s.Paused = true }) },
					finish: []string{"stg-cluster"}, groups: []string{"dev Complete", "stg Active", "prod Waiting Group"},
					then: func(t *testing.T, _ *controlHub, p hubplan.Plan) {
						assert.Equal(t, []string{"stg-cluster"}, clusterNames(p.Steps[0].Result.ToRollout), "in flight, still listed")
						assert.Equal(t, hubplan.ReasonPaused, reasonOf(p, hubplan.ConditionPaused))
					}},
				{name: "stg soaked: prod does not start", after: soaked,
					groups: []string{"dev Complete", "stg Complete", "prod Blocked Paused"}, progressing: hubplan.ReasonPaused},
				{name: "unpaused: prod starts", after: time.Minute, before: func(h *controlHub) { h.edit(func(s *v1alpha1.AddOnRolloutSpec) { s.Paused = false }) },
					starting: []string{"prod-cluster"}, groups: []string{"dev Complete", "stg Complete", "prod Active"}},
			},
		},
		{
			name: "a window for prod: outside, then inside",
			// addontest.PlanNow is Monday 12:00 UTC; prod's window opens at 12:20 Berlin time (UTC+1)
			spec: v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{
				{Groups: []string{"prod"}, Days: []string{"Mon"}, Start: "13:20", End: "14:00", TimeZone: "Europe/Berlin"},
				{Groups: []string{"prod"}, Days: []string{"Sat-Sun"}, Start: "00:00", End: "23:59"},
			}},
			calls: []controlCall{
				{name: "dev is named by no window", starting: []string{"dev-cluster"}, finish: []string{"dev-cluster"},
					groups: []string{"dev Active", "stg Waiting Group", "prod Waiting Group"}},
				{after: soaked, starting: []string{"stg-cluster"}, finish: []string{"stg-cluster"},
					groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "12:12: prod is outside its windows", after: soaked,
					groups: []string{"dev Complete", "stg Complete", "prod Blocked Window"}, progressing: hubplan.ReasonOutsideWindow,
					then: func(t *testing.T, h *controlHub, p hubplan.Plan) {
						assert.Equal(t, 8*time.Minute, p.Steps[0].Result.RecheckAfter, "until the window opens")
						assert.Equal(t, hubplan.ConfirmInterval, p.RecheckAfter, "confirmed sooner than that")
						prod := p.Status.Placements[0].Groups[2]
						require.NotNil(t, prod.Until)
						assert.Equal(t, addontest.PlanNow.Add(20*time.Minute), prod.Until.Time)
					}},
				{name: "12:20: inside", after: 8 * time.Minute,
					starting: []string{"prod-cluster"}, groups: []string{"dev Complete", "stg Complete", "prod Active"},
					progressing: hubplan.ReasonRollingOut},
			},
		},
		{
			name: "verification of stg: due after it completes and soaks, retried, passed; a new revision starts afresh",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
				{Name: "slo", Groups: []string{"stg"}, Interval: &metav1.Duration{Duration: time.Minute}, Webhook: webhook},
			}},
			calls: []controlCall{
				{starting: []string{"dev-cluster"}, finish: []string{"dev-cluster"}, groups: []string{"dev Active", "stg Waiting Group", "prod Waiting Group"}},
				{name: "dev needs no check", after: soaked, starting: []string{"stg-cluster"}, finish: []string{"stg-cluster"},
					groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "stg soaking: not due yet", after: time.Minute,
					groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "stg soaked: the check is due, and fails", after: soaked, check: "fail", due: []string{"stg/slo"},
					groups:      []string{"dev Complete", "stg Blocked Verification", "prod Waiting Verification"},
					progressing: hubplan.ReasonWaitingForVerification,
					then: func(t *testing.T, h *controlHub, p hubplan.Plan) {
						c := p.Checks[0]
						assert.Equal(t, v1alpha1.VerificationRequest{AddOn: "cluster-proxy",
							Placement: v1alpha1.PlacementRef{Namespace: addontest.SeedPlacement().Namespace, Name: addontest.SeedPlacement().Name},
							Group:     "stg", Revision: v2, Clusters: []string{"stg-cluster"}}, c.Request)
						assert.Equal(t, &metav1.Duration{Duration: hubplan.DefaultCheckTimeout}, c.Verification.Webhook.Timeout, "defaults filled in")
						assert.Equal(t, `waiting for the verification of group "stg": verification slo has not passed yet`,
							p.Status.Placements[0].Groups[2].Message)
					}},
				{name: "failed: held, retried at the interval", after: 10 * time.Second,
					groups: []string{"dev Complete", "stg Blocked Verification", "prod Waiting Verification"},
					then: func(t *testing.T, h *controlHub, p hubplan.Plan) {
						assert.Equal(t, 50*time.Second, p.RecheckAfter)
						stg := p.Status.Placements[0].Groups[1]
						assert.Equal(t, "verification slo: failed", stg.Message)
						require.NotNil(t, stg.Until)
						assert.Equal(t, h.clock.Now().Add(50*time.Second), stg.Until.Time)
						require.Len(t, p.Status.Placements[0].Verifications, 1)
						assert.False(t, p.Status.Placements[0].Verifications[0].Passed)
					}},
				{name: "the retry is due, and passes", after: 50 * time.Second, check: "pass", due: []string{"stg/slo"},
					groups: []string{"dev Complete", "stg Blocked Verification", "prod Waiting Verification"}},
				{name: "passed: prod starts", after: time.Second, starting: []string{"prod-cluster"}, finish: []string{"prod-cluster"},
					groups: []string{"dev Complete", "stg Complete", "prod Active"}, progressing: hubplan.ReasonRollingOut},
				{name: "complete and verified", after: soaked,
					groups: []string{"dev Complete", "stg Complete", "prod Complete"}, progressing: hubplan.ReasonCompleted},
				{name: "a new revision has no verification", after: time.Minute, before: func(h *controlHub) { h.hash = "v3" },
					starting: []string{"dev-cluster"}, finish: []string{"dev-cluster"},
					groups: []string{"dev Active", "stg Waiting Group", "prod Waiting Group"},
					then: func(t *testing.T, _ *controlHub, p hubplan.Plan) {
						assert.Empty(t, p.Status.Placements[0].Verifications)
					}},
				{after: soaked, starting: []string{"stg-cluster"}, finish: []string{"stg-cluster"},
					groups: []string{"dev Complete", "stg Active", "prod Waiting Group"}},
				{name: "stg is checked again", after: soaked, due: []string{"stg/slo"},
					groups: []string{"dev Complete", "stg Blocked Verification", "prod Waiting Verification"},
					then: func(t *testing.T, _ *controlHub, p hubplan.Plan) {
						assert.Equal(t, v3, p.Checks[0].Request.Revision)
					}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			newControlHub(t, &spec).run(t, tt.calls)
		})
	}
}

// TestPlanControlledChecksOfOneGroup: with two checks of one group, each
// is due on its own; the first not passed speaks for the group, and the
// group waits until the nearest retry.
func TestPlanControlledChecksOfOneGroup(t *testing.T) {
	t.Parallel()
	webhook := &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}
	prom := &v1alpha1.PrometheusCheck{Address: "http://prometheus.example:9090", Query: "max(addon_error_ratio) < 0.01"}
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
		{Groups: []string{"dev"}, Interval: &metav1.Duration{Duration: 2 * time.Minute}, Webhook: webhook},
		{Name: "errors", Groups: []string{"dev"}, Prometheus: prom},
	}})
	h.step(0)
	h.finish("dev-cluster")
	h.clock.Step(soaked)
	p := h.plan()
	require.Len(t, p.Checks, 2)
	assert.Equal(t, "verifications[0]", p.Checks[0].Name, "an unnamed check is named by its place")
	assert.Equal(t, "errors", p.Checks[1].Name)
	assert.Equal(t, &metav1.Duration{Duration: hubplan.DefaultCheckInterval}, p.Checks[1].Verification.Interval)
	dev := p.Status.Placements[0].Groups[0]
	assert.Equal(t, "verification verifications[0] has not passed yet", dev.Message)

	// the first fails, the second passes
	now := h.clock.Now()
	h.apply(p, hubplan.CheckResult{Check: p.Checks[0], Message: "HTTP 503", At: now}, hubplan.CheckResult{Check: p.Checks[1], Passed: true, Message: "1 series", At: now})
	h.clock.Step(30 * time.Second)
	p = h.plan()
	assert.Empty(t, p.Checks)
	assert.Empty(t, startedBy(p))
	dev = p.Status.Placements[0].Groups[0]
	assert.Equal(t, "verification verifications[0]: HTTP 503", dev.Message)
	require.NotNil(t, dev.Until)
	assert.Equal(t, now.Add(2*time.Minute), dev.Until.Time)
	assert.Equal(t, 90*time.Second, p.RecheckAfter)

	// the retry passes: stg starts
	h.clock.Step(90 * time.Second)
	p = h.plan()
	require.Len(t, p.Checks, 1)
	h.apply(p, hubplan.CheckResult{Check: p.Checks[0], Passed: true, Message: "HTTP 200", At: h.clock.Now()})
	p = h.plan()
	assert.Equal(t, []string{"stg-cluster"}, startedBy(p))
}

// TestPlanControlledInvalid: every problem of an invalid AddOnRollout is a
// *field.Error rooted at spec; every group is held, waiting for the spec
// to be fixed, no add-on is given the new configs and no check runs.
func TestPlanControlledInvalid(t *testing.T) {
	t.Parallel()
	webhook := &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}
	prom := &v1alpha1.PrometheusCheck{Address: "http://prometheus.example:9090", Query: "up"}
	zero := &metav1.Duration{}
	tests := []struct {
		name     string
		spec     v1alpha1.AddOnRolloutSpec
		validate hubplan.QueryValidator
		want     []string // the errors' texts
	}{
		{name: "an unknown time zone",
			spec: v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Mars/Olympus"}}},
			want: []string{`spec.windows[0].timeZone: Invalid value: "Mars/Olympus": want an IANA name such as Europe/Berlin or UTC`}},
		{name: "a malformed time and day",
			spec: v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{
				{Days: []string{"Mon"}, Start: "09:00", End: "17:00"},
				{Days: []string{"Mon", "Fry"}, Start: "9am", End: "17:00"}}},
			want: []string{
				`spec.windows[1].days[1]: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`,
				`spec.windows[1].start: Invalid value: "9am": want HH:MM from 00:00 to 23:59`,
			}},
		{name: "a group no placement has",
			spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod", "qa"},
				Windows:       []v1alpha1.RolloutWindow{{Groups: []string{"canary"}, Days: []string{"Mon"}, Start: "09:00", End: "17:00"}},
				Verifications: []v1alpha1.Verification{{Groups: []string{"Prod"}, Webhook: webhook}}},
			want: []string{
				`spec.approvalRequired[1]: Unsupported value: "qa": supported values: "dev", "prod", "stg"`,
				`spec.windows[0].groups[0]: Unsupported value: "canary": supported values: "dev", "prod", "stg"`,
				`spec.verifications[0].groups[0]: Unsupported value: "Prod": supported values: "dev", "prod", "stg"`,
			}},
		{name: "an invalid URL",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
				{Webhook: &v1alpha1.WebhookCheck{URL: "verifier.example/verify"}},
				{Prometheus: &v1alpha1.PrometheusCheck{Address: "ftp://prometheus", Query: "up"}}}},
			want: []string{
				`spec.verifications[0].webhook.url: Invalid value: "verifier.example/verify": want an absolute http or https URL, e.g. http://verifier.example:8080/verify`,
				`spec.verifications[1].prometheus.address: Invalid value: "ftp://prometheus": want an absolute http or https URL, e.g. http://verifier.example:8080/verify`,
			}},
		{name: "a query the validator refuses, and a blank one",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
				{Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.example", Query: `sum(rate(x[5m]) < 1`}},
				{Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.example", Query: " "}},
				{Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.example", Query: "up"}}}},
			validate: func(q string) error {
				if strings.Count(q, "(") != strings.Count(q, ")") {
					return errors.New("1:20: unclosed left parenthesis\n1:4: another problem")
				}
				return nil
			},
			want: []string{
				`spec.verifications[0].prometheus.query: Invalid value: "sum(rate(x[5m]) < 1": 1:20: unclosed left parenthesis; 1:4: another problem`,
				`spec.verifications[1].prometheus.query: Invalid value: " ": want a PromQL expression, e.g. max(addon_error_ratio) < 0.01`,
			}},
		{name: "without a validator only a blank query is refused",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
				{Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.example", Query: `sum(rate(x[5m]) < 1`}},
				{Prometheus: &v1alpha1.PrometheusCheck{Address: "http://prometheus.example", Query: ""}}}},
			want: []string{
				`spec.verifications[1].prometheus.query: Invalid value: "": want a PromQL expression, e.g. max(addon_error_ratio) < 0.01`,
			}},
		{name: "both and neither of webhook and prometheus",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{Name: "both", Webhook: webhook, Prometheus: prom}, {Name: "neither"}}},
			want: []string{
				`spec.verifications[0].prometheus: Forbidden: set only one of webhook and prometheus`,
				`spec.verifications[1]: Required value: one of webhook and prometheus`,
			}},
		{name: "non-positive durations",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
				{Name: "a", Interval: zero, Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example", Timeout: &metav1.Duration{Duration: -time.Second}}},
				{Name: "b", Prometheus: &v1alpha1.PrometheusCheck{Address: "http://p.example", Query: "up", Timeout: zero}}}},
			want: []string{
				`spec.verifications[0].interval: Invalid value: "0s": want a positive duration, e.g. 30s`,
				`spec.verifications[0].webhook.timeout: Invalid value: "-1s": want a positive duration, e.g. 30s`,
				`spec.verifications[1].prometheus.timeout: Invalid value: "0s": want a positive duration, e.g. 30s`,
			}},
		{name: "duplicate names",
			spec: v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{Name: "slo", Webhook: webhook}, {Name: "slo", Prometheus: prom}}},
			want: []string{`spec.verifications[1].name: Duplicate value: "slo": want a name of its own (spec.verifications[0] has it)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			h := newControlHub(t, &spec)
			h.planner.ValidateQuery = tt.validate
			h.finish() // nothing in flight: every cluster waits for v2
			p := h.step(0)
			require.Error(t, p.Invalid)
			var got []string
			for _, e := range unjoin(p.Invalid) {
				got = append(got, e.Error())
				var fe *field.Error
				assert.True(t, errors.As(e, &fe), "each problem is a *field.Error: %v", e)
			}
			assert.Equal(t, tt.want, got)
			var own, notGroups []string
			for _, e := range hubplan.ValidateSpec(&v1alpha1.AddOnRollout{Spec: spec}, tt.validate) {
				own = append(own, e.Error())
			}
			for _, g := range got {
				if !strings.Contains(g, "Unsupported value") {
					notGroups = append(notGroups, g)
				}
			}
			assert.Equal(t, notGroups, own, "ValidateSpec, as a webhook runs it, refuses what the plan does, but group names")

			assert.Empty(t, startedBy(p))
			assert.Empty(t, givenNew(p, "v2"), "no add-on is given the new configs")
			assert.Empty(t, p.Checks)
			assert.Equal(t, []string{"dev Blocked Invalid", "stg Waiting Invalid", "prod Waiting Invalid"}, groupLines(p))
			valid := addontest.Condition(p.Status.Conditions, hubplan.ConditionValid)
			assert.Equal(t, metav1.ConditionFalse, valid.Status)
			assert.Equal(t, hubplan.ReasonInvalidSpec, valid.Reason)
			assert.Contains(t, valid.Message, tt.want[0])
			assert.NotContains(t, valid.Message, "\n")
			assert.Equal(t, hubplan.ReasonInvalidSpec, reasonOf(p, hubplan.ConditionProgressing))

			// still held later, and with dev complete: the walk goes no further
			h.clock.Step(time.Hour)
			assert.Empty(t, startedBy(h.plan()))
		})
	}
}

// TestPlanControlledInvalidHoldsEveryLaterGroup: an AddOnRollout that
// becomes invalid mid-rollout holds the group the walk reached; the
// clusters in flight finish, and no check runs.
func TestPlanControlledInvalidHoldsEveryLaterGroup(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
		{Name: "slo", Groups: []string{"dev"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example"}}}})
	h.step(0)
	h.edit(func(s *v1alpha1.AddOnRolloutSpec) { s.ApprovalRequired = []string{"qa"} })
	p := h.step(time.Minute)
	require.Error(t, p.Invalid)
	assert.Equal(t, []string{"dev-cluster"}, clusterNames(p.Steps[0].Result.ToRollout), "in flight, still listed")
	h.finish("dev-cluster")
	p = h.step(soaked)
	assert.Empty(t, p.Checks, "no check runs under an invalid spec")
	assert.Empty(t, startedBy(p))
	assert.Equal(t, []string{"dev Complete", "stg Blocked Invalid", "prod Waiting Invalid"}, groupLines(p))
	assert.Nil(t, p.Status.Placements[0].CompletionTime)
}

// TestPlanControlledWithoutRollout: without an AddOnRollout, Planner.Plan
// is PlanAddon, exactly.
func TestPlanControlledWithoutRollout(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, nil)
	for i, d := range []time.Duration{0, time.Minute, soaked, soaked, soaked} {
		h.clock.Step(d)
		cma, in, mcas, specHash := h.inputs()
		steps := configSteps(addon.PlanAddon(rollout.Planner{Clock: h.clock}, cma, in, mcas, specHash))
		p := h.plan()
		assert.Equal(t, hubplan.Plan{Steps: steps, RecheckAfter: p.RecheckAfter}, p, "call %d", i)
		var recheck time.Duration
		for _, s := range steps {
			if r := s.Result.RecheckAfter; r > 0 && (recheck == 0 || r < recheck) {
				recheck = r
			}
		}
		assert.Equal(t, recheck, p.RecheckAfter)
		h.apply(p)
		h.finish(startedBy(p)...)
	}
	assert.Nil(t, h.ctl.Rollout)
}

// TestPlannerArguments: inputs that name no add-on, or two, are an
// error, with or without an AddOnRollout.
func TestPlannerArguments(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	for _, ctl := range []hubplan.Controls{{}, {Rollout: &v1alpha1.AddOnRollout{}}} {
		p, err := hubplan.Planner{}.Plan(hubplan.Inputs{Controls: ctl, SpecHash: addontest.Names()})
		assert.EqualError(t, err, `plan add-on: Inputs.AddOn "" and no ClusterManagementAddOn: want the add-on's name`)
		assert.Zero(t, p)
		p, err = hubplan.Planner{}.Plan(hubplan.Inputs{AddOn: "other", ClusterManagementAddOn: cma, Controls: ctl, SpecHash: addontest.Names()})
		assert.EqualError(t, err, `plan add-on: Inputs.AddOn "other" but ClusterManagementAddOn "cluster-proxy": want the same add-on`)
		assert.Zero(t, p)
	}
}

// TestPlanControlledInputsNotModified: the arguments are left as they
// were, and the plan shares nothing with them.
func TestPlanControlledInputsNotModified(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Paused: false, ApprovalRequired: []string{"prod"},
		Windows:       []v1alpha1.RolloutWindow{{Groups: []string{"prod"}, Days: []string{"Mon-Fri"}, Start: "09:00", End: "17:00"}},
		Verifications: []v1alpha1.Verification{{Name: "slo", Groups: []string{"stg"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example"}}}})
	h.approve("prod", "prod", revision("v2"))
	h.approve("old", "prod", "000000000000")
	// stg completed and soaked: its check is due, and the approvals get a status
	h.step(0)
	h.finish("dev-cluster")
	h.step(soaked)
	h.finish("stg-cluster")
	h.clock.Step(soaked)

	cma, in, mcas, specHash := h.inputs()
	ctl := hubplan.Controls{Rollout: h.ctl.Rollout.DeepCopy()}
	for _, a := range h.ctl.Approvals {
		ctl.Approvals = append(ctl.Approvals, a.DeepCopy())
	}
	cmaBefore, ctlBefore := cma.DeepCopy(), hubplan.Controls{Rollout: ctl.Rollout.DeepCopy(), Approvals: append(ctl.Approvals[:0:0], ctl.Approvals...)}
	var mcasBefore []*addonv1beta1.ManagedClusterAddOn
	for _, m := range mcas {
		mcasBefore = append(mcasBefore, m.DeepCopy())
	}
	inBefore := []addon.PlacementInput{{Placement: in[0].Placement.DeepCopy(), Groups: addontest.SeedGroups()}}
	approvalsBefore := make([]*v1alpha1.RolloutApproval, len(ctl.Approvals))
	for i, a := range ctl.Approvals {
		approvalsBefore[i] = a.DeepCopy()
	}

	p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: h.clock}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: ctl, SpecHash: specHash})
	require.NoError(t, err)
	require.NotEmpty(t, p.Checks)
	require.NotEmpty(t, p.Approvals)
	next := p.Record(ctl, []hubplan.CheckResult{{Check: p.Checks[0], Passed: true, At: h.clock.Now()}})

	assert.Equal(t, cmaBefore, cma)
	assert.Equal(t, mcasBefore, mcas)
	assert.Equal(t, inBefore, in)
	assert.Equal(t, ctlBefore.Rollout, ctl.Rollout)
	assert.Equal(t, approvalsBefore, ctl.Approvals)
	assert.NotSame(t, ctl.Rollout, next.Rollout, "Record copies the AddOnRollout")

	// the plan shares nothing with the inputs
	p.Checks[0].Verification.Webhook.URL = "http://changed"
	p.Status.Conditions[0].Message = "changed"
	for i := range p.Approvals {
		p.Approvals[i].Conditions[0].Message = "changed"
	}
	assert.Equal(t, ctlBefore.Rollout, ctl.Rollout)
	assert.Equal(t, approvalsBefore, ctl.Approvals)
}

// TestPlanControlledDeterministic: the same inputs give the same plan, and
// the order of the approvals does not matter.
func TestPlanControlledDeterministic(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod", "stg"}})
	h.approve("b-stg", "stg", revision("v2"))
	h.approve("a-wrong", "prod", "000000000000")
	h.approve("c-prod", "prod", revision("v2"))
	h.approve("d-other-addon", "prod", revision("v2"))
	h.ctl.Approvals[3].Spec.AddOn = "other"
	h.step(0)
	h.finish("dev-cluster")
	h.clock.Step(soaked)
	for i, a := range h.ctl.Approvals { // as created: no status yet
		a = a.DeepCopy()
		a.Status = v1alpha1.RolloutApprovalStatus{}
		h.ctl.Approvals[i] = a
	}

	first, second := h.plan(), h.plan()
	assert.Equal(t, first, second)

	reversed := h.ctl.Approvals
	h.ctl.Approvals = nil
	for i := len(reversed) - 1; i >= 0; i-- {
		h.ctl.Approvals = append(h.ctl.Approvals, reversed[i])
	}
	assert.Equal(t, first, h.plan(), "the order of the approvals does not matter")
	var changed []string
	for _, a := range first.Approvals {
		changed = append(changed, a.Name)
	}
	assert.Equal(t, []string{"a-wrong", "b-stg", "c-prod"}, changed, "sorted by name; another add-on's approval is left alone")
}

// TestPlanControlledStatusStable: while only time passes (inside a soak,
// outside a window, waiting for an approval), the status written is the
// status read: a controller writes nothing.
func TestPlanControlledStatusStable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spec  v1alpha1.AddOnRolloutSpec
		setup func(h *controlHub)
	}{
		{name: "inside a soak", setup: func(h *controlHub) {
			h.step(0)
			h.finish("dev-cluster")
			h.step(time.Minute)
		}},
		{name: "in flight, with a deadline", setup: func(h *controlHub) {
			h.step(0)
		}},
		{name: "outside a window",
			spec:  v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: []string{"Sat"}, Start: "09:00", End: "17:00"}}},
			setup: func(h *controlHub) { h.step(0) }},
		{name: "waiting for an approval and a check",
			spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"stg"}, Verifications: []v1alpha1.Verification{
				{Name: "slo", Groups: []string{"dev"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example"}}}},
			setup: func(h *controlHub) {
				h.step(0)
				h.finish("dev-cluster")
				p := h.plan()
				h.clock.Step(soaked)
				p = h.plan()
				h.apply(p, hubplan.CheckResult{Check: p.Checks[0], Message: "HTTP 500", At: h.clock.Now()})
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			h := newControlHub(t, &spec)
			tt.setup(h)
			h.clock.Step(time.Second)
			first := h.plan()
			h.apply(first)
			h.clock.Step(10 * time.Second)
			second := h.plan()
			assert.Equal(t, first.Status, second.Status)
			assert.Equal(t, h.ctl.Rollout.Status, second.Status, "the status read is the status to write")
			assert.Empty(t, second.Approvals, "no approval's status changes")
		})
	}
}

// TestPlanControlledNoStartWhilePaused: whatever the add-ons report, the
// strategy and the other controls, a paused rollout starts no cluster and
// gives no add-on the new configs; the clusters in flight stay listed.
func TestPlanControlledNoStartWhilePaused(t *testing.T) {
	t.Parallel()
	// the states an add-on can be in, as set on it
	states := []func(h *controlHub, cluster string){
		func(*controlHub, string) {}, // on v1, untouched by the rollout
		func(h *controlHub, c string) { // given v2, progressing
			m := addontest.AppliedAddon(c, "v1", h.clock.Now().Add(-time.Minute))
			m.Status.ConfigReferences[0].DesiredConfig.SpecHash = "v2"
			m.Status.Conditions[0] = metav1.Condition{Type: "Progressing", Status: metav1.ConditionTrue, Reason: "Progressing", LastTransitionTime: metav1.NewTime(h.clock.Now().Add(-time.Minute))}
			h.mcas[c] = m
		},
		func(h *controlHub, c string) {
			h.mcas[c] = addontest.AppliedAddon(c, "v2", h.clock.Now().Add(-time.Minute))
		}, // soaking
		func(h *controlHub, c string) {
			h.mcas[c] = addontest.AppliedAddon(c, "v2", h.clock.Now().Add(-time.Hour))
		}, // done
		func(h *controlHub, c string) { h.mcas[c] = addontest.EmptyAddon(c) }, // new add-on
	}
	specs := map[string]v1alpha1.AddOnRolloutSpec{
		"paused": {Paused: true},
		"paused, approved, inside a window, verified": {Paused: true, ApprovalRequired: []string{"stg"},
			Windows:       []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "00:00", End: "23:59"}},
			Verifications: []v1alpha1.Verification{{Name: "slo", Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example"}}}},
	}
	rc := clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}, ProgressDeadline: "15m"}
	strategies := map[string]func(*addonv1beta1.ClusterManagementAddOn){
		"ProgressivePerGroup": func(*addonv1beta1.ClusterManagementAddOn) {},
		"Progressive": func(c *addonv1beta1.ClusterManagementAddOn) {
			c.Spec.InstallStrategy.Placements[0].RolloutStrategy = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
				Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: rc}}
		},
		"All": func(c *addonv1beta1.ClusterManagementAddOn) {
			c.Spec.InstallStrategy.Placements[0].RolloutStrategy = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All,
				All: &clusterv1alpha1.RolloutAll{RolloutConfig: rc}}
		},
	}
	for specName, spec := range specs {
		for strategyName, edit := range strategies {
			t.Run(specName+"/"+strategyName, func(t *testing.T) {
				t.Parallel()
				for n := range len(states) * len(states) * len(states) {
					spec := spec
					h := newControlHub(t, &spec)
					edit(h.cma)
					h.approve("stg", "stg", revision("v2"))
					var inFlight []string
					for i, c := range []string{"dev-cluster", "stg-cluster", "prod-cluster"} { // ToRollout's order
						s := n / []int{1, 5, 25}[i] % 5
						states[s](h, c)
						if s == 1 || s == 2 && strategyName != "All" { // All has no soak (docs/semantics.md §3.4)
							inFlight = append(inFlight, c)
						}
					}
					p := h.plan()
					assert.Empty(t, startedBy(p), "states %d", n)
					assert.Empty(t, givenNew(p, "v2"), "states %d: no add-on is given the new configs", n)
					assert.Equal(t, inFlight, clusterNames(p.Steps[0].Result.ToRollout), "states %d: in flight, still listed", n)
				}
			})
		}
	}
}

// TestPlanControlledManual: the add-ons of a Manual install strategy are
// one group, held by a pause like any other.
func TestPlanControlledManual(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
	mcas := []*addonv1beta1.ManagedClusterAddOn{addontest.EmptyAddon("dev-cluster"), addontest.EmptyAddon("prod-cluster")}
	ctl := hubplan.Controls{Rollout: &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}}
	p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: fake.New(addontest.PlanNow)}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Addons: mcas, Controls: ctl, SpecHash: addontest.Names()})
	require.NoError(t, err)
	assert.Empty(t, startedBy(p))
	require.Len(t, p.Status.Placements, 1)
	assert.Equal(t, v1alpha1.PlacementStatus{}.Namespace, p.Status.Placements[0].Namespace)
	assert.Equal(t, []string{" Blocked Paused"}, groupLines(p))

	ctl.Rollout.Spec.Paused = false
	p, err = hubplan.Planner{Rollout: rollout.Planner{Clock: fake.New(addontest.PlanNow)}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Addons: mcas, Controls: ctl, SpecHash: addontest.Names()})
	require.NoError(t, err)
	assert.Equal(t, []string{"dev-cluster", "prod-cluster"}, startedBy(p))
}

// TestPlanRecord: Record puts the plan's status in a copy of the controls
// with the results of the checks run; a result of another revision is for
// nothing, and a later result replaces an earlier one.
func TestPlanRecord(t *testing.T) {
	t.Parallel()
	assert.Equal(t, hubplan.Controls{}, hubplan.Plan{}.Record(hubplan.Controls{}, nil), "no AddOnRollout: nothing to record")

	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
		{Name: "slo", Groups: []string{"dev"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example"}}}})
	h.step(0)
	h.finish("dev-cluster")
	h.clock.Step(soaked)
	p := h.plan()
	require.Len(t, p.Checks, 1)
	c := p.Checks[0]
	stale := c
	stale.Request.Revision = "000000000000"
	at := h.clock.Now()
	ctl := p.Record(h.ctl, []hubplan.CheckResult{
		{Check: stale, Passed: true, Message: "stale", At: at},
		{Check: c, Message: "HTTP 500", At: at},
		{Check: c, Passed: true, Message: "HTTP 200", At: at.Add(time.Second)},
	})
	assert.Empty(t, h.ctl.Rollout.Status.Placements[0].Verifications, "ctl is not modified")
	assert.Equal(t, []v1alpha1.VerificationStatus{{Name: "slo", Group: "dev", Index: 0, Passed: true, Message: "HTTP 200",
		LastCheckTime: metav1.NewTime(at.Add(time.Second))}}, ctl.Rollout.Status.Placements[0].Verifications)
}

// TestPlanControlledPendingWhilePaused: a group that needs an approval is
// listed as pending even while a pause holds it too, so that the approval
// can be given before the rollout is resumed.
func TestPlanControlledPendingWhilePaused(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Paused: true, ApprovalRequired: []string{"dev"}})
	p := h.step(0)
	assert.Empty(t, startedBy(p))
	assert.Equal(t, "dev Blocked Paused", groupLines(p)[0])
	require.Len(t, p.Status.PendingApprovals, 1)
	assert.Equal(t, "dev", p.Status.PendingApprovals[0].Group)
	assert.Equal(t, revision("v2"), p.Status.PendingApprovals[0].Revision)
}

// TestPlanControlledGroupNamedByPlacement: a group the Placement names is
// a group of it while it selects no cluster, so an AddOnRollout naming it
// is valid; a name neither has is not.
func TestPlanControlledGroupNamedByPlacement(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		group string
		valid bool
	}{{"canary", true}, {"nowhere", false}} {
		t.Run(tt.group, func(t *testing.T) {
			t.Parallel()
			h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{tt.group}})
			cma, in, mcas, specHash := h.inputs()
			in[0].Placement.Spec.DecisionStrategy.GroupStrategy.DecisionGroups = append(
				in[0].Placement.Spec.DecisionStrategy.GroupStrategy.DecisionGroups,
				clusterv1beta1.DecisionGroup{GroupName: "canary"})
			p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: h.clock}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: h.ctl, SpecHash: specHash})
			require.NoError(t, err)
			assert.Equal(t, tt.valid, p.Invalid == nil, "%v", p.Invalid)
		})
	}
}

// TestPlanControlledEmptyGroupNotChecked: a group without clusters has
// nothing to verify: no check falls due for it and it holds nothing.
func TestPlanControlledEmptyGroupNotChecked(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{
		Groups: []string{"dev"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}})
	h.groups[0].Clusters = nil
	delete(h.mcas, "dev-cluster")
	p := h.step(0)
	assert.Empty(t, p.Checks)
	assert.Equal(t, []string{"stg-cluster"}, startedBy(p))
}
