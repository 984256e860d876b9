package planreport_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// stgDone is the seed's rollout at 12:20: dev done at 12:00, stg done at
// 12:10 and soaked at 12:15, prod on the old config: prod is next.
func stgDone() []*addonv1beta1.ManagedClusterAddOn {
	return []*addonv1beta1.ManagedClusterAddOn{
		managedAddon("dev-cluster", newHash, newHash, addonv1beta1.ProgressingReasonCompleted, at(12, 0)),
		managedAddon("stg-cluster", newHash, newHash, addonv1beta1.ProgressingReasonCompleted, at(12, 10)),
		managedAddon("prod-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0)),
	}
}

// seedRevision is the revision of the seed's placement: its one default
// config at newHash.
func seedRevision() string {
	return addon.Revision([]addon.Config{{GroupResource: proxyConfigGR(), Referent: addonv1beta1.ConfigReferent{Name: addonName}, SpecHash: newHash}})
}

// controlled is the seed's hub at stgDone, with an AddOnRollout of spec
// (generation 2, its status last written for generation 1) and the
// approvals.
func controlled(spec v1alpha1.AddOnRolloutSpec, status v1alpha1.AddOnRolloutStatus, approvals ...*v1alpha1.RolloutApproval) *planreport.Hub {
	h := seedHub(true, stgDone()...)
	h.AddOnRollouts = []*v1alpha1.AddOnRollout{{ObjectMeta: metav1.ObjectMeta{Name: addonName, Generation: 2}, Spec: spec, Status: status}}
	h.RolloutApprovals = approvals
	return h
}

// approval approves group of the seed's placement at revision.
func approval(name, addOn, group, revision string) *v1alpha1.RolloutApproval {
	return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.RolloutApprovalSpec{
		AddOn: addOn, Placement: v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}, Group: group, Revision: revision,
	}}
}

// stgVerified is the status of an AddOnRollout whose check "smoke" of stg
// passed, or failed, for revision at 12:19:50.
func stgVerified(revision string, passed bool) v1alpha1.AddOnRolloutStatus {
	return v1alpha1.AddOnRolloutStatus{ObservedGeneration: 1, Placements: []v1alpha1.PlacementStatus{{
		Namespace: hubNS, Name: placeName, Revision: revision,
		Verifications: []v1alpha1.VerificationStatus{{Name: "smoke", Group: "stg", Index: 1, Passed: passed, Message: "503 Service Unavailable",
			LastCheckTime: metav1.NewTime(at(12, 19).Add(50 * time.Second))}},
	}}}
}

// TestPlanControlled: an add-on's AddOnRollout holds its plan as the
// controller's does (hubplan.Planner.Plan), and the report says what holds
// each group, the approvals pending, the checks due and the problems of an
// invalid spec.
func TestPlanControlled(t *testing.T) {
	t.Parallel()
	rev := seedRevision()
	prodPending := []v1alpha1.PendingApproval{{Placement: v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}, Group: "prod", Revision: rev}}
	smoke := []v1alpha1.Verification{{Name: "smoke", Groups: []string{"stg"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}
	tests := []struct {
		name        string
		hub         *planreport.Hub
		start       []string
		phases      []string // the status's, by group
		waitsFor    []string
		pending     []v1alpha1.PendingApproval
		invalid     []string // a part of each problem, in order
		checks      []string // the groups with a check due
		progressing string   // the Progressing condition's reason
		recheck     float64
		text        []string
	}{
		{
			name: "prod needs an approval: held, and pending", hub: controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{}),
			start: []string{}, phases: []string{"Complete", "Complete", "Blocked"}, waitsFor: []string{"", "", "Approval"},
			pending: prodPending, progressing: hubplan.ReasonWaitingForApproval,
			text: []string{
				`controlled by AddOnRollout "cluster-proxy", generation 2` + "\n",
				"  revision: " + rev + "\n  config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy: spec hash " + newHash + ", image quay.io/open-cluster-management/cluster-proxy:v2\n",
				"  INDEX  GROUP  PHASE     WAITS FOR  CLUSTERS        REASON\n",
				`  2      prod   Blocked   Approval   "prod-cluster"  held: waiting for approval of group "prod"`,
				`  held: group "prod", waits for Approval: waiting for approval of group "prod"`,
				"pending approvals:\n  - placement \"open-cluster-management/cluster-proxy-placement\", group \"prod\", revision " + rev +
					" (approve: kubectl rolloutkit approve cluster-proxy prod --revision " + rev + ")\n",
				"verifications due now: (none)\n",
				"conditions:\n  Valid=True (Valid): the spec is valid\n  Paused=False (NotPaused): spec.paused is false\n  Progressing=True (WaitingForApproval): ",
			},
		},
		{
			name: "approved for the revision: prod starts",
			hub: controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{},
				approval("ok", addonName, "prod", rev)),
			start: []string{"prod-cluster"}, phases: []string{"Complete", "Complete", "Active"}, waitsFor: []string{"", "", ""},
			pending: []v1alpha1.PendingApproval{}, progressing: hubplan.ReasonRollingOut,
			text: []string{"pending approvals: (none)\n", `clusters to start now: "prod-cluster"`},
		},
		{
			name: "approved for another revision, or another add-on: still pending",
			hub: controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{},
				approval("old", addonName, "prod", "0123456789ab"), approval("other", "other-addon", "prod", rev)),
			start: []string{}, phases: []string{"Complete", "Complete", "Blocked"}, waitsFor: []string{"", "", "Approval"},
			pending: prodPending, progressing: hubplan.ReasonWaitingForApproval,
		},
		{
			name:  "paused: nothing starts; prod's approval can be given meanwhile",
			hub:   controlled(v1alpha1.AddOnRolloutSpec{Paused: true, ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{}),
			start: []string{}, phases: []string{"Complete", "Complete", "Blocked"}, waitsFor: []string{"", "", "Paused"},
			pending: prodPending, progressing: hubplan.ReasonPaused,
			text: []string{`controlled by AddOnRollout "cluster-proxy", generation 2, paused (spec.paused): no cluster starts; clusters in flight finish`},
		},
		{
			name: "invalid: held, every problem named by its field",
			hub: controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prd"}, Windows: []v1alpha1.RolloutWindow{
				{Days: []string{"Mon"}, Start: "09:00", End: "16:00", TimeZone: "Mars/Olympus"},
			}}, v1alpha1.AddOnRolloutStatus{}),
			start: []string{}, phases: []string{"Complete", "Complete", "Blocked"}, waitsFor: []string{"", "", "Invalid"},
			pending:     []v1alpha1.PendingApproval{},
			invalid:     []string{`spec.approvalRequired[0]: Unsupported value: "prd"`, `spec.windows[0].timeZone: Invalid value: "Mars/Olympus"`},
			progressing: hubplan.ReasonInvalidSpec,
			text: []string{
				"invalid AddOnRollout: the add-on is held until its spec is fixed:\n  - spec.approvalRequired[0]: Unsupported value: \"prd\"",
				"  Valid=False (InvalidSpec): the add-on is held until the spec is fixed: ",
			},
		},
		{
			name: "stg's check due: stg verifies, prod waits", hub: controlled(v1alpha1.AddOnRolloutSpec{Verifications: smoke}, v1alpha1.AddOnRolloutStatus{}),
			start: []string{}, phases: []string{"Complete", "Blocked", "Waiting"}, waitsFor: []string{"", "Verification", "Verification"},
			pending: []v1alpha1.PendingApproval{}, checks: []string{"stg"}, progressing: hubplan.ReasonWaitingForVerification,
			text: []string{
				`  held: group "stg", waits for Verification: verification smoke has not passed yet`,
				"verifications due now (the controller runs them; the groups after wait until they pass):\n" +
					`  - placement "open-cluster-management/cluster-proxy-placement", group "stg": smoke: webhook POST http://verifier.example/verify`,
			},
		},
		{
			name: "stg's check failed 10s ago: retried after its interval", hub: controlled(v1alpha1.AddOnRolloutSpec{Verifications: smoke}, stgVerified(rev, false)),
			start: []string{}, phases: []string{"Complete", "Blocked", "Waiting"}, waitsFor: []string{"", "Verification", "Verification"},
			pending: []v1alpha1.PendingApproval{}, progressing: hubplan.ReasonWaitingForVerification,
			recheck: 20, // at 12:20:20, 30s after the last check
			text:    []string{`waits for Verification: verification smoke: 503 Service Unavailable`},
		},
		{
			name: "stg's check passed for the revision: prod starts", hub: controlled(v1alpha1.AddOnRolloutSpec{Verifications: smoke}, stgVerified(rev, true)),
			start: []string{"prod-cluster"}, phases: []string{"Complete", "Complete", "Active"}, waitsFor: []string{"", "", ""},
			pending: []v1alpha1.PendingApproval{}, progressing: hubplan.ReasonRollingOut,
		},
		{
			name: "stg's check passed for an older revision: checked again", hub: controlled(v1alpha1.AddOnRolloutSpec{Verifications: smoke}, stgVerified("0123456789ab", true)),
			start: []string{}, phases: []string{"Complete", "Blocked", "Waiting"}, waitsFor: []string{"", "Verification", "Verification"},
			pending: []v1alpha1.PendingApproval{}, checks: []string{"stg"}, progressing: hubplan.ReasonWaitingForVerification,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(tt.hub, addonName, at(12, 20), nil)
			require.NoError(t, err)
			assert.Equal(t, tt.start, rep.Start)
			if tt.recheck > 0 {
				assert.InDelta(t, tt.recheck, rep.RecheckAfter, 0)
			}
			require.Len(t, rep.Placements, 1)
			p := rep.Placements[0]
			assert.Equal(t, rev, p.Revision)
			var phases, waitsFor []string
			for _, g := range p.Groups {
				require.NotNil(t, g.Status, "group %q has no status", g.Name)
				assert.Equal(t, g.Name, g.Status.Name)
				phases, waitsFor = append(phases, g.Status.Phase), append(waitsFor, g.Status.WaitsFor)
			}
			assert.Equal(t, tt.phases, phases)
			assert.Equal(t, tt.waitsFor, waitsFor)

			r := rep.Rollout
			require.NotNil(t, r)
			assert.Equal(t, addonName, r.Name)
			assert.Equal(t, int64(2), r.Generation)
			assert.Equal(t, tt.hub.AddOnRollouts[0].Status.ObservedGeneration, r.ObservedGeneration, "the status as read")
			var pending []v1alpha1.PendingApproval
			for _, pa := range r.PendingApprovals {
				assert.Equal(t, p.Configs, pa.Configs, "a pending approval's configs are its placement's revision's")
				pa.Configs = nil
				pending = append(pending, pa)
			}
			if pending == nil {
				pending = []v1alpha1.PendingApproval{}
			}
			assert.Equal(t, tt.pending, pending)
			require.Len(t, r.Invalid, len(tt.invalid), "%q", r.Invalid)
			for i, want := range tt.invalid {
				assert.Contains(t, r.Invalid[i], want)
			}
			var checks []string
			for _, c := range r.Checks {
				assert.Equal(t, v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}, c.Placement)
				checks = append(checks, c.Group.Name)
			}
			assert.Equal(t, tt.checks, checks)
			progressing := meta.FindStatusCondition(r.Conditions, hubplan.ConditionProgressing)
			require.NotNil(t, progressing)
			assert.Equal(t, tt.progressing, progressing.Reason)

			var text bytes.Buffer
			require.NoError(t, rep.WriteText(&text))
			for _, want := range tt.text {
				assert.Contains(t, text.String(), want)
			}
		})
	}
}

// TestPlanWithoutRollout: an add-on whose AddOnRollout is absent (only
// another add-on has one) is planned as before: no revision, no status, no
// Rollout, and neither the text nor the JSON mention them.
func TestPlanWithoutRollout(t *testing.T) {
	t.Parallel()
	plain := seedHub(true, stgDone()...)
	other := controlled(v1alpha1.AddOnRolloutSpec{Paused: true}, v1alpha1.AddOnRolloutStatus{}, approval("x", addonName, "prod", seedRevision()))
	other.AddOnRollouts[0].Name = "other-addon"
	var texts, jsons [2]string
	for i, h := range []*planreport.Hub{plain, other} {
		rep, err := planreport.New(h, addonName, at(12, 20), nil)
		require.NoError(t, err)
		assert.Nil(t, rep.Rollout)
		assert.Empty(t, rep.Placements[0].Revision)
		assert.Equal(t, []string{"prod-cluster"}, rep.Start, "not held by another add-on's AddOnRollout")
		var text, js bytes.Buffer
		require.NoError(t, rep.WriteText(&text))
		require.NoError(t, rep.WriteJSON(&js))
		texts[i], jsons[i] = text.String(), js.String()
	}
	assert.Equal(t, texts[0], texts[1])
	assert.Equal(t, jsons[0], jsons[1])
	assert.NotContains(t, texts[0], "WAITS FOR")
	assert.NotContains(t, jsons[0], `"revision"`)
}

// TestWriteJSONControlled pins the JSON field names of what an
// AddOnRollout adds, which scripts (and rolloutctl status -o json) read.
func TestWriteJSONControlled(t *testing.T) {
	t.Parallel()
	rep, err := planreport.New(controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{}), addonName, at(12, 20), nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	var report map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b.Bytes(), &report))
	assert.Contains(t, keys(report), "rollout")
	var rollout map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(report["rollout"], &rollout))
	assert.ElementsMatch(t, []string{"name", "generation", "observedGeneration", "paused", "invalid", "pendingApprovals", "checks", "conditions",
		"confirmation", "notActedOn", "approvals"}, keys(rollout))
	var pending []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rollout["pendingApprovals"], &pending))
	require.Len(t, pending, 1)
	assert.JSONEq(t, `{"namespace": "open-cluster-management", "name": "cluster-proxy-placement"}`, string(pending[0]["placement"]))
	assert.JSONEq(t, `"prod"`, string(pending[0]["group"]))
	assert.JSONEq(t, `"`+seedRevision()+`"`, string(pending[0]["revision"]))
	assert.JSONEq(t, `{"stale": false}`, string(rollout["confirmation"]), "a status never written: nothing confirmed, no recheck time")
	assert.JSONEq(t, `[]`, string(rollout["approvals"]))
	assert.JSONEq(t, `[]`, string(rollout["invalid"]))
	var placements []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(report["placements"], &placements))
	assert.JSONEq(t, `"`+seedRevision()+`"`, string(placements[0]["revision"]))
	assert.JSONEq(t, `[{"group": "proxy.open-cluster-management.io", "resource": "managedproxyconfigurations", "name": "cluster-proxy", "specHash": "`+newHash+`",
		"image": "quay.io/open-cluster-management/cluster-proxy:v2"}]`,
		string(placements[0]["configs"]))
	var groups []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(placements[0]["groups"], &groups))
	assert.JSONEq(t, `"Blocked"`, string(groups[2]["phase"]))
	assert.JSONEq(t, `{"name": "prod", "index": 2, "phase": "Blocked", "waitsFor": "Approval", "message": "held: waiting for approval of group \"prod\"",
		"until": null, "counts": {"succeeded": 0, "progressing": 0, "failed": 0, "timedOut": 0, "toApply": 1}}`, string(groups[2]["status"]))
}
