package planreport_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		hub          *planreport.Hub
		now          time.Time
		gates        []rollout.Gate
		source       string
		phases       []string
		start        []string
		inFlight     []planreport.InFlight
		timedOut     []string
		breach       bool
		recheckAfter float64
		text         []string
	}{
		{
			name: "a new config: dev starts", hub: seedHub(true, freshAddons()...), now: at(12, 0),
			source: "3 PlacementDecisions",
			phases: []string{"Active", "Waiting", "Waiting"}, start: []string{"dev-cluster"}, inFlight: []planreport.InFlight{}, timedOut: []string{},
			text: []string{
				`  0      dev    Active   "dev-cluster"   rolling out: 1 starting now`,
				`  2      prod   Waiting  "prod-cluster"  waiting for group "dev": "dev-cluster" starting now`,
				`  start now: "dev-cluster"`,
				`  in flight: (none)`,
				`clusters to start now: "dev-cluster"`,
				`clusters in flight (already updating): (none)`,
				"look again in: (nothing to wait for)",
			},
		},
		{
			name: "dev done, stg in flight", hub: seedHub(true, midRollout()...), now: at(12, 10),
			source: "3 PlacementDecisions",
			phases: []string{"Complete", "Active", "Waiting"}, start: []string{},
			inFlight: []planreport.InFlight{{Cluster: "stg-cluster", Status: "Progressing", Until: ptr.To(at(12, 21))}}, timedOut: []string{},
			recheckAfter: (11 * time.Minute).Seconds(),
			text: []string{
				`  0      dev    Complete  "dev-cluster"   complete: 1 succeeded`,
				`  1      stg    Active    "stg-cluster"   rolling out: 1 progressing; "stg-cluster" progressing, deadline 12:21:00 (11m0s left)`,
				`  progression: selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.`,
				`clusters to start now: (none)`,
				`clusters in flight (already updating): "stg-cluster" (progressing, deadline 12:21:00)`,
				"look again in: 11m0s",
			},
		},
		{
			name: "stg past its deadline halts the rollout", hub: seedHub(true, midRollout()...), now: at(12, 30),
			source: "3 PlacementDecisions",
			phases: []string{"Complete", "Breached", "Waiting"}, start: []string{}, inFlight: []planreport.InFlight{},
			timedOut: []string{"stg-cluster"}, breach: true,
			text: []string{
				`halted: 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 12:21:00`,
				`timed out: "stg-cluster"`,
				"failure budget breached: true",
			},
		},
		{
			name: "paused: dev held", hub: seedHub(true, freshAddons()...), now: at(12, 0), gates: []rollout.Gate{rollout.Paused("change freeze")},
			source: "3 PlacementDecisions",
			phases: []string{"Blocked", "Waiting", "Waiting"}, start: []string{}, inFlight: []planreport.InFlight{}, timedOut: []string{},
			text: []string{
				`  held: group "dev": rollout paused: change freeze`,
				"clusters to start now: (none)",
			},
		},
		{
			name: "dev soaking: in flight, nothing to start", now: at(12, 2),
			hub: seedHub(true,
				managedAddon("dev-cluster", newHash, newHash, addonv1beta1.ProgressingReasonCompleted, at(12, 0)),
				managedAddon("stg-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0)),
				managedAddon("prod-cluster", oldHash, oldHash, addonv1beta1.ProgressingReasonCompleted, at(9, 0))),
			source: "3 PlacementDecisions",
			phases: []string{"Active", "Waiting", "Waiting"}, start: []string{},
			inFlight: []planreport.InFlight{{Cluster: "dev-cluster", Status: "Succeeded", Until: ptr.To(at(12, 5))}}, timedOut: []string{},
			recheckAfter: (3 * time.Minute).Seconds(),
			text: []string{
				`  start now: (none)`,
				`  in flight: "dev-cluster" (soaking until 12:05:00)`,
				`clusters in flight (already updating): "dev-cluster" (soaking until 12:05:00)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(tt.hub, "", tt.now, tt.gates)
			require.NoError(t, err)
			assert.Equal(t, addonName, rep.Addon)
			require.Len(t, rep.Placements, 1)
			p := rep.Placements[0]
			assert.Equal(t, "ProgressivePerGroup", p.Strategy)
			assert.Equal(t, tt.source, p.Source)
			var phases []string
			for _, g := range p.Groups {
				phases = append(phases, g.Phase)
			}
			assert.Equal(t, tt.phases, phases)
			assert.Equal(t, []string{"dev-cluster"}, p.Groups[0].Clusters)
			assert.Equal(t, tt.start, p.Start)
			assert.Equal(t, tt.start, rep.Start)
			assert.Equal(t, tt.inFlight, p.InFlight)
			assert.Equal(t, tt.inFlight, rep.InFlight)
			// Next is Start and InFlight together, in the planner's order
			// (one group at a time here, so Start and InFlight never mix).
			next := slices.Clone(tt.start)
			for _, f := range tt.inFlight {
				next = append(next, f.Cluster)
			}
			assert.ElementsMatch(t, next, rep.Next)
			assert.ElementsMatch(t, next, p.Next)
			assert.Equal(t, tt.timedOut, rep.TimedOut)
			assert.Equal(t, tt.breach, rep.Breach)
			assert.InDelta(t, tt.recheckAfter, rep.RecheckAfter, 0)

			var text bytes.Buffer
			require.NoError(t, rep.WriteText(&text))
			for _, want := range tt.text {
				assert.Contains(t, text.String(), want)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	two := seedHub(true)
	two.ClusterManagementAddOns = append(two.ClusterManagementAddOns, seedAddon("managed-serviceaccount"))
	tests := []struct {
		name  string
		hub   *planreport.Hub
		addon string
		want  string
	}{
		{"nil hub", nil, "", "no ClusterManagementAddOn in the input"},
		{"unknown add-on", seedHub(true), "nope", `clustermanagementaddon "nope" is not in the input (found "cluster-proxy")`},
		{"two add-ons, none named", two, "", `2 ClusterManagementAddOns in the input ("cluster-proxy", "managed-serviceaccount")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(tt.hub, tt.addon, at(12, 0), nil)
			require.Error(t, err)
			assert.Nil(t, rep)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestPlanIgnoresOrder plans a hub listed in reverse, as a live read may
// list it: the text is the same, and the caller's lists keep their order.
func TestPlanIgnoresOrder(t *testing.T) {
	t.Parallel()
	sorted := seedHub(true, midRollout()...)
	reversed := seedHub(true, midRollout()...)
	slices.Reverse(reversed.Clusters)
	slices.Reverse(reversed.Decisions)
	slices.Reverse(reversed.ManagedClusterAddOns)
	before := slices.Clone(reversed.Decisions)

	texts := make([]string, 2)
	for i, h := range []*planreport.Hub{sorted, reversed} {
		rep, err := planreport.New(h, addonName, at(12, 10), nil)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, rep.WriteText(&b))
		texts[i] = b.String()
	}
	assert.Equal(t, texts[0], texts[1])
	assert.Equal(t, before, reversed.Decisions, "Plan must not reorder the caller's lists")
}

func TestAddonNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hub  *planreport.Hub
		want []string
	}{
		{"nil hub", nil, nil},
		{"empty hub", &planreport.Hub{}, nil},
		{"sorted, nil skipped", &planreport.Hub{ClusterManagementAddOns: []*addonv1beta1.ClusterManagementAddOn{
			seedAddon("managed-serviceaccount"), nil, seedAddon("cluster-proxy"),
		}}, []string{"cluster-proxy", "managed-serviceaccount"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.hub.AddonNames())
		})
	}
}

// TestWriteJSON pins the JSON field names, which scripts read.
func TestWriteJSON(t *testing.T) {
	t.Parallel()
	rep, err := planreport.New(seedHub(true, midRollout()...), addonName, at(12, 10), nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	var report map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b.Bytes(), &report))
	assert.ElementsMatch(t, []string{"addon", "now", "placements", "start", "inFlight", "next", "timedOut", "removed", "breach", "recheckAfter", "warnings"}, keys(report))
	var placements []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(report["placements"], &placements))
	require.Len(t, placements, 1)
	assert.ElementsMatch(t, []string{"namespace", "name", "strategy", "source", "groups", "start", "inFlight", "next", "progress"}, keys(placements[0]))
	var groups []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(placements[0]["groups"], &groups))
	require.Len(t, groups, 3)
	assert.ElementsMatch(t, []string{"index", "name", "clusters", "phase", "reason"}, keys(groups[1]))
	assert.JSONEq(t, `"Active"`, string(groups[1]["phase"]))
	assert.JSONEq(t, `{"kind": "Group", "group": {"index": 1, "name": "stg"},
		"cluster": {"cluster": "stg-cluster", "status": "Progressing", "until": "2026-11-30T12:21:00Z"},
		"until": "2026-11-30T12:21:00Z"}`, string(groups[2]["wait"]), "prod waits for stg, as values")
	assert.JSONEq(t, `["stg-cluster"]`, string(report["next"]), "next is kept: start and inFlight together")
	assert.JSONEq(t, `[]`, string(report["start"]))
	assert.JSONEq(t, `[{"cluster": "stg-cluster", "status": "Progressing", "until": "2026-11-30T12:21:00Z"}]`, string(report["inFlight"]))
	assert.JSONEq(t, `660`, string(report["recheckAfter"]))
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestPlanWithoutDecisions: a Placement without PlacementDecisions has no
// groups, as the controller takes groups from PlacementDecisions only:
// nothing starts, and a warning says that its selected clusters wait for
// them.
func TestPlanWithoutDecisions(t *testing.T) {
	t.Parallel()
	rep, err := planreport.New(seedHub(false, freshAddons()...), "", at(12, 0), nil)
	require.NoError(t, err)
	require.Len(t, rep.Placements, 1)
	p := rep.Placements[0]
	assert.Equal(t, "no PlacementDecisions: no groups until the placement controller writes them", p.Source)
	assert.Empty(t, p.Groups)
	assert.Empty(t, rep.Start)
	assert.Contains(t, strings.Join(rep.Warnings, "\n"), "the Placement selects 3 clusters but the input has no PlacementDecisions of it")
}

// TestPlanWarningKinds: the planner's warnings are reported as the
// scheduler's are, each led by its kind, and both name the placement.
func TestPlanWarningKinds(t *testing.T) {
	t.Parallel()
	h := withTaint(seedHub(true), unreachable)
	ps := &h.ClusterManagementAddOns[0].Spec.InstallStrategy.Placements[0]
	ps.RolloutStrategy.ProgressivePerGroup.MandatoryDecisionGroups = clusterv1alpha1.MandatoryDecisionGroups{
		MandatoryDecisionGroups: []clusterv1alpha1.MandatoryDecisionGroup{{GroupName: "canary"}}}
	rep, err := planreport.New(h, "", at(12, 0), nil)
	require.NoError(t, err)
	prefix := hubNS + "/" + placeName + ": "
	var planner, scheduler []string
	for _, w := range rep.Warnings {
		switch {
		case strings.HasPrefix(w, prefix+string(rollout.UnmatchedMandatoryGroup)+": "):
			planner = append(planner, w)
		case strings.HasPrefix(w, prefix):
			scheduler = append(scheduler, w)
		}
	}
	require.Len(t, planner, 1, "one UnmatchedMandatoryGroup warning in %q", rep.Warnings)
	assert.Contains(t, planner[0], `"canary"`)
	require.Len(t, scheduler, 2, "the scheduler's warnings in %q", rep.Warnings)
	assert.True(t, strings.HasPrefix(scheduler[0], prefix+"Tainted: "), scheduler[0])
	assert.True(t, strings.HasPrefix(scheduler[1], prefix+"EmptyNamedGroup: "), scheduler[1])
}

// TestPlanNotPlanned: a placement that the controller would not plan (no
// Placement; a config object the hub does not hold) is reported as such,
// with the reason and message of its install progression's condition, and
// the rest of the report is still made.
func TestPlanNotPlanned(t *testing.T) {
	t.Parallel()
	noPlacement := seedHub(false)
	noPlacement.Placements = nil
	noConfig := seedHub(true)
	noConfig.Configs = nil
	noConfig.ClusterManagementAddOns[0] = noConfig.ClusterManagementAddOns[0].DeepCopy()
	noConfig.ClusterManagementAddOns[0].Status = addonv1beta1.ClusterManagementAddOnStatus{}
	for _, tt := range []struct {
		name, reason, message string
		hub                   *planreport.Hub
	}{
		{"neither placement nor decisions", "PlacementNotFound", `placement "open-cluster-management/cluster-proxy-placement" (spec.installStrategy.placements[0]) not found`, noPlacement},
		{"no config object", "ConfigurationError", `managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy"`, noConfig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(tt.hub, addonName, at(12, 0), nil)
			require.NoError(t, err)
			require.Len(t, rep.Placements, 1)
			np := rep.Placements[0].NotPlanned
			require.NotNil(t, np)
			assert.Equal(t, tt.reason, np.Reason)
			assert.Contains(t, np.Message, tt.message)
			assert.Empty(t, rep.Start)
			var b strings.Builder
			require.NoError(t, rep.WriteText(&b))
			assert.Contains(t, b.String(), "not planned ("+tt.reason+"): ")
		})
	}
}

// TestPlanRefusesInvisibleConfigs: an add-on whose spec names no config
// while its status and its add-ons' name one (a v1alpha1 add-on served as
// v1beta1 without conversion) is refused with a clear error, rather than
// planned from the empty set; an add-on without configs anywhere is
// planned.
func TestPlanRefusesInvisibleConfigs(t *testing.T) {
	t.Parallel()
	lost := seedHub(true, midRollout()...)
	lost.ClusterManagementAddOns[0].Spec.DefaultConfigs = nil
	_, err := planreport.New(lost, addonName, at(12, 10), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `clustermanagementaddon "cluster-proxy": its spec names no config, but the configs status records `+
		`(managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy) say it has some: the input cannot see them.`)
	assert.Contains(t, err.Error(), "kubectl get clustermanagementaddons.v1alpha1.addon.open-cluster-management.io")

	none := seedHub(true)
	none.ClusterManagementAddOns[0].Spec.DefaultConfigs = nil
	none.ClusterManagementAddOns[0].Status = addonv1beta1.ClusterManagementAddOnStatus{}
	rep, err := planreport.New(none, addonName, at(12, 10), nil)
	require.NoError(t, err)
	assert.Len(t, rep.Placements, 1)
}
