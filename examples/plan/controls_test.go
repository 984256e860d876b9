package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Files of the operator's controls over the hub of v1alpha1File: an
// AddOnRollout that requires an approval of prod, and the approval.
const (
	controlsFile = "testdata/controls.yaml"
	approvalFile = "testdata/approval.yaml"
)

// controlsNow is when stg has soaked on the hub of v1alpha1File (12:23),
// and prod is next.
const controlsNow = "2026-11-30T12:25:00Z"

// fixtureRevision is the revision of cluster-proxy-placement in
// v1alpha1File, which controlsFile and approvalFile name.
const fixtureRevision = "80d621a59c65"

// docs joins YAML streams into one.
func docs(parts ...string) string {
	return strings.Join(parts, "\n---\n")
}

// controlsOutput is what the tests read of plan's JSON under an
// AddOnRollout.
type controlsOutput struct {
	Placements []struct {
		Revision string `json:"revision"`
		Groups   []struct {
			Name   string `json:"name"`
			Status *struct {
				Phase    string `json:"phase"`
				WaitsFor string `json:"waitsFor"`
			} `json:"status"`
		} `json:"groups"`
	} `json:"placements"`
	Start   []string `json:"start"`
	Rollout *struct {
		Invalid          []string `json:"invalid"`
		PendingApprovals []struct {
			Group    string `json:"group"`
			Revision string `json:"revision"`
		} `json:"pendingApprovals"`
	} `json:"rollout"`
}

// TestPlanControls: plan reads the AddOnRollout and the RolloutApprovals of
// a dump, and plans as the controller does under them: prod waits for an
// approval of the revision, and starts once approved; an invalid
// AddOnRollout holds the add-on and names every field at fault, with exit
// code 0, as any held rollout: it is the hub's state, not bad input.
func TestPlanControls(t *testing.T) {
	t.Parallel()
	hub, controls, approval := mustRead(t, v1alpha1File), mustRead(t, controlsFile), mustRead(t, approvalFile)
	invalid := strings.Replace(controls, "    approvalRequired:\n    - prod\n",
		"    approvalRequired:\n    - prd\n    windows:\n    - days: [Mon]\n      start: \"9am\"\n      end: \"16:00\"\n      timeZone: Mars/Olympus\n", 1)
	require.NotEqual(t, controls, invalid, "the fixture edit must apply")
	tests := []controlsCase{
		{name: "no AddOnRollout: prod starts", input: hub, start: []string{"prod-cluster"}},
		{
			name: "prod waits for an approval", input: docs(hub, controls), start: []string{}, prod: "Blocked/Approval",
			pending: []string{"prod@" + fixtureRevision}, controls: true,
			text: []string{
				`controlled by AddOnRollout "cluster-proxy", generation 1`,
				"  revision: " + fixtureRevision,
				`  2      prod   Blocked   Approval   "prod-cluster"  held: waiting for approval of group "prod"`,
				`  - placement "open-cluster-management/cluster-proxy-placement", group "prod", revision ` + fixtureRevision +
					" (approve: kubectl rolloutkit approve cluster-proxy prod --revision " + fixtureRevision + ")",
				"clusters to start now: (none)",
			},
		},
		{
			name: "approved: prod starts", input: docs(hub, controls, approval), start: []string{"prod-cluster"}, prod: "Active/",
			pending: []string{}, controls: true,
			text: []string{"pending approvals: (none)", `clusters to start now: "prod-cluster"`},
		},
		{
			name: "approved for another revision: prod still waits", input: docs(hub, controls, strings.ReplaceAll(approval, fixtureRevision, "0123456789ab")),
			start: []string{}, prod: "Blocked/Approval", pending: []string{"prod@" + fixtureRevision}, controls: true,
		},
		{
			name: "invalid AddOnRollout: held, each field named", input: docs(hub, invalid, approval), start: []string{}, prod: "Blocked/Invalid",
			pending: []string{}, controls: true,
			invalid: []string{`spec.approvalRequired[0]: Unsupported value: "prd"`, `spec.windows[0].start: Invalid value: "9am"`,
				`spec.windows[0].timeZone: Invalid value: "Mars/Olympus"`},
			text: []string{
				"invalid AddOnRollout: the add-on is held until its spec is fixed:\n" +
					`  - spec.approvalRequired[0]: Unsupported value: "prd": supported values: "dev", "prod", "stg"`,
				"Valid=False (InvalidSpec)",
				"clusters to start now: (none)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t)
		})
	}
}

// controlsCase is a case of TestPlanControls.
type controlsCase struct {
	name     string
	input    string
	start    []string
	prod     string // prod's phase and what it waits for, as the status says
	pending  []string
	invalid  []string // a part of each problem, in order
	text     []string
	controls bool
}

// check plans tt.input and checks the JSON and the text report.
func (tt controlsCase) check(t *testing.T) {
	t.Helper()
	code, js, errOut := runPlan(t, tt.input, "-f", "-", "-o", "json", "-now", controlsNow)
	require.Equal(t, 0, code, errOut)
	var got controlsOutput
	require.NoError(t, json.Unmarshal([]byte(js), &got))
	assert.Equal(t, tt.start, got.Start)
	require.Len(t, got.Placements, 1)
	if !tt.controls {
		assert.Nil(t, got.Rollout)
		assert.Empty(t, got.Placements[0].Revision)
	} else {
		require.NotNil(t, got.Rollout)
		assert.Equal(t, fixtureRevision, got.Placements[0].Revision)
		prod := got.Placements[0].Groups[2]
		require.NotNil(t, prod.Status)
		assert.Equal(t, tt.prod, prod.Status.Phase+"/"+prod.Status.WaitsFor)
		pending := []string{}
		for _, pa := range got.Rollout.PendingApprovals {
			pending = append(pending, pa.Group+"@"+pa.Revision)
		}
		assert.Equal(t, tt.pending, pending)
		require.Len(t, got.Rollout.Invalid, len(tt.invalid), "%q", got.Rollout.Invalid)
		for i, want := range tt.invalid {
			assert.Contains(t, got.Rollout.Invalid[i], want)
		}
	}

	code, text, errOut := runPlan(t, tt.input, "-f", "-", "-now", controlsNow)
	require.Equal(t, 0, code, errOut)
	for _, want := range tt.text {
		assert.Contains(t, text, want)
	}
}

// TestControlsFixtures: the revision controlsFile and approvalFile name is
// the one of v1alpha1File's placement: its one default config at the spec
// hash of the ManagedProxyConfiguration in it.
func TestControlsFixtures(t *testing.T) {
	t.Parallel()
	assert.Equal(t, fixtureRevision, addon.Revision([]addon.Config{{
		GroupResource: addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
		Referent:      addonv1beta1.ConfigReferent{Name: "cluster-proxy"},
		SpecHash:      newSpecHash,
	}}))
	h, err := readHub(strings.NewReader(docs(mustRead(t, controlsFile), mustRead(t, approvalFile))), 1<<20)
	require.NoError(t, err)
	require.Len(t, h.rollouts, 1)
	assert.Equal(t, []string{"prod"}, h.rollouts[0].Spec.ApprovalRequired)
	require.Len(t, h.rollouts[0].Status.Placements, 1)
	assert.Equal(t, fixtureRevision, h.rollouts[0].Status.Placements[0].Revision)
	require.Len(t, h.approvals, 1)
	assert.Equal(t, fixtureRevision, h.approvals[0].Spec.Revision)
	assert.Empty(t, h.ignored)
}

// TestReadControlsErrors: an AddOnRollout or a RolloutApproval of another
// version, or with a field rolloutkit does not know, is bad input (exit
// code 2), named by kind and name.
func TestReadControlsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, want string
	}{
		{"AddOnRollout of another version", "apiVersion: rolloutkit.io/v1beta1\nkind: AddOnRollout\nmetadata: {name: cluster-proxy}\n",
			`document 1: AddOnRollout "cluster-proxy": apiVersion "rolloutkit.io/v1beta1": want rolloutkit.io/v1alpha1`},
		{"RolloutApproval of no version", "kind: RolloutApproval\nmetadata: {name: ok}\n",
			`document 1: RolloutApproval "ok": no apiVersion: want rolloutkit.io/v1alpha1`},
		{"a misspelt field", "apiVersion: rolloutkit.io/v1alpha1\nkind: AddOnRollout\nmetadata: {name: cluster-proxy}\nspec: {approvalRequire: [prod]}\n",
			`document 1: AddOnRollout "cluster-proxy": strict decoding error: unknown field "spec.approvalRequire"`},
		{"a duration that is none", "apiVersion: rolloutkit.io/v1alpha1\nkind: AddOnRollout\nmetadata: {name: cluster-proxy}\n" +
			"spec: {verifications: [{interval: soon, webhook: {url: http://v.example}}]}\n",
			`document 1: AddOnRollout "cluster-proxy": time: invalid duration "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runPlan(t, tt.input, "-f", "-")
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.want)
		})
	}
}
