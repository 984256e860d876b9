package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/examples/seed"
)

const hubFile = "testdata/hub.yaml"

func runPlan(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// seedHub is the seed's own manifests as one multi-document stream, with no
// PlacementDecisions, so plan schedules the Placement itself.
func seedHub(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{seed.ManagedClustersFile, seed.PlacementFile, seed.ClusterManagementAddOnFile, seed.ManagedProxyConfigurationFile} {
		data, err := seed.Raw(f)
		require.NoError(t, err)
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String()
}

func TestPlanText(t *testing.T) {
	t.Parallel()
	code, out, errOut := runPlan(t, "", "-f", hubFile, "-now", "2026-11-30T12:10:00Z")
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		`add-on "cluster-proxy" at 2026-11-30T12:10:00Z`,
		`groups from 3 PlacementDecisions`,
		`0      dev    Complete  "dev-cluster"   complete: 1 succeeded`,
		`1      stg    Active    "stg-cluster"   rolling out: 1 progressing; "stg-cluster" progressing, deadline 12:21:00 (11m0s left)`,
		`2      prod   Waiting   "prod-cluster"  waiting for group "stg": "stg-cluster" progressing, deadline 12:21:00 (11m0s left)`,
		`progression: selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.`,
		`  start now: (none)`,
		`  in flight: "stg-cluster" (progressing, deadline 12:21:00)`,
		`clusters to start now: (none)`,
		`clusters in flight (already updating): "stg-cluster" (progressing, deadline 12:21:00)`,
		`look again in: 11m0s`,
	} {
		assert.Contains(t, out, want)
	}
}

func TestPlanJSON(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(hubFile)
	require.NoError(t, err)
	// After the deadline stg-cluster has timed out and, with maxFailures 0,
	// the rollout halts before prod.
	code, out, errOut := runPlan(t, string(data), "-f", "-", "-o", "json", "-now", "2026-11-30T12:30:00Z")
	require.Equal(t, 0, code, errOut)
	var got struct {
		Addon      string `json:"addon"`
		Placements []struct {
			Groups []struct {
				Index    int      `json:"index"`
				Name     string   `json:"name"`
				Clusters []string `json:"clusters"`
				Phase    string   `json:"phase"`
				Reason   string   `json:"reason"`
			} `json:"groups"`
		} `json:"placements"`
		Start    []string `json:"start"`
		InFlight []struct {
			Cluster string `json:"cluster"`
		} `json:"inFlight"`
		Next         []string `json:"next"`
		TimedOut     []string `json:"timedOut"`
		Removed      []string `json:"removed"`
		Breach       bool     `json:"breach"`
		RecheckAfter float64  `json:"recheckAfter"`
		Warnings     []string `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "cluster-proxy", got.Addon)
	require.Len(t, got.Placements, 1)
	require.Len(t, got.Placements[0].Groups, 3)
	stg := got.Placements[0].Groups[1]
	assert.Equal(t, 1, stg.Index)
	assert.Equal(t, []string{"stg-cluster"}, stg.Clusters)
	assert.Equal(t, "Breached", stg.Phase)
	assert.Equal(t, `halted: 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 12:21:00`, stg.Reason)
	assert.Equal(t, "Waiting", got.Placements[0].Groups[2].Phase)
	assert.NotNil(t, got.Start)
	assert.Empty(t, got.Start)
	assert.NotNil(t, got.InFlight)
	assert.Empty(t, got.InFlight, "a timed-out cluster is no longer in flight")
	assert.Empty(t, got.Next)
	assert.Equal(t, []string{"stg-cluster"}, got.TimedOut)
	assert.Empty(t, got.Removed)
	assert.True(t, got.Breach)
	assert.Zero(t, got.RecheckAfter)
	assert.NotNil(t, got.Warnings)
}

// TestPlanSchedulesWithoutDecisions: the seed's own manifests have no
// PlacementDecisions yet: the Placement has no groups, as the controller
// takes groups from PlacementDecisions only, and nothing starts; the
// warnings say what scheduling it selects and that every cluster was a
// candidate (the manifests hold no cluster set).
func TestPlanSchedulesWithoutDecisions(t *testing.T) {
	t.Parallel()
	code, out, errOut := runPlan(t, seedHub(t), "-f", "-", "-now", "2026-11-30T12:00:00Z")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "groups from no PlacementDecisions: no groups until the placement controller writes them")
	assert.Contains(t, out, `clusters to start now: (none)`)
	assert.Contains(t, out, "open-cluster-management/cluster-proxy-placement: the Placement selects 3 clusters but the input has no PlacementDecisions of it")
	assert.Contains(t, out, "open-cluster-management/cluster-proxy-placement: no ManagedClusterSet and no ManagedClusterSetBinding in the input")
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	hub, err := os.ReadFile(hubFile)
	require.NoError(t, err)
	withCEL := editItems(t, taintedFile, eachOf("Placement", func(it map[string]any) {
		predicates := object(it, "spec")["predicates"].([]any)
		selector := object(predicates[0].(map[string]any), "requiredClusterSelector")
		selector["celSelector"] = map[string]any{"celExpressions": []any{`managedCluster.metadata.labels["environment"] != "dev"`}}
	}))
	emptyFile := filepath.Join(t.TempDir(), "hub.yaml")
	require.NoError(t, os.WriteFile(emptyFile, nil, 0o600))
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"no -f", "", nil, 2, "-f is required"},
		{"bad -o", "", []string{"-f", "-", "-o", "xml"}, 2, `-o "xml": want text or json`},
		{"bad -now", "", []string{"-f", "-", "-now", "noon"}, 2, `-now "noon": want an RFC 3339 time`},
		{"missing file", "", []string{"-f", "testdata/nope.yaml"}, 2, "nope.yaml"},
		{"empty file", "", []string{"-f", emptyFile}, 2, "plan: " + emptyFile + ": the input is empty: want the YAML that `kubectl get managedclusters,"},
		{"empty stdin", " \n\t\n", []string{"-f", "-"}, 2, "plan: -: the input is empty"},
		{"only comments", "---\n# nothing here\n---\n", []string{"-f", "-"}, 2, "plan: -: the input holds only comments and empty documents"},
		{"bad yaml", "kind: [", []string{"-f", "-"}, 2, "document 1: not valid YAML"},
		{"no kind", "apiVersion: v1\nmetadata: {}\n", []string{"-f", "-"}, 2, "document 1: no kind"},
		{"no addon", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", []string{"-f", "-"}, 2, "no ClusterManagementAddOn in the input"},
		{"unknown addon", string(hub), []string{"-f", "-", "-addon", "nope"}, 2, `clustermanagementaddon "nope" is not in the input (found "cluster-proxy")`},
		{"unknown -approve group", string(hub), []string{"-f", "-", "-approve", "dev,nosuch"}, 2, `plan: -approve "nosuch": no such group; the groups are dev, stg, prod`},
		{"empty -approve", string(hub), []string{"-f", "-", "-approve", " , "}, 2, `-approve " , ": want comma-separated group names`},
		{"bad minSuccessTime", strings.Replace(string(hub), "minSuccessTime: 5m", "minSuccessTime: soon", 1), []string{"-f", "-"}, 2,
			`ClusterManagementAddOn "cluster-proxy": spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.minSuccessTime: Invalid value: "soon": want a duration such as 5m or 1h30m (time: invalid duration "soon")`},
		{"minSuccessTime not a string", strings.Replace(string(hub), "minSuccessTime: 5m", "minSuccessTime: 300", 1), []string{"-f", "-"}, 2,
			`spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.minSuccessTime: Invalid value: "300": want a duration string such as 5m or 1h30m`},
		{"bad decision label", strings.Replace(string(hub), `decision-group-index: "1"`, `decision-group-index: "one"`, 1), []string{"-f", "-"}, 2,
			`"one"`},
		{"celSelector", withCEL, []string{"-f", "-"}, 2,
			"spec.predicates[0].requiredClusterSelector.celSelector.celExpressions"},
		{"cluster set of an unknown version", "apiVersion: cluster.open-cluster-management.io/v1alpha1\nkind: ManagedClusterSet\nmetadata: {name: old}\n", []string{"-f", "-"}, 2,
			`document 1: ManagedClusterSet "old": apiVersion "cluster.open-cluster-management.io/v1alpha1": want cluster.open-cluster-management.io/v1beta2 or cluster.open-cluster-management.io/v1beta1`},
		{"binding of another group", "apiVersion: example.com/v1beta2\nkind: ManagedClusterSetBinding\nmetadata: {name: b, namespace: ns}\n", []string{"-f", "-"}, 2,
			`document 1: ManagedClusterSetBinding "ns/b": apiVersion "example.com/v1beta2": want cluster.open-cluster-management.io/v1beta2 or cluster.open-cluster-management.io/v1beta1`},
		{"too big", strings.Repeat("#", 2048), []string{"-f", "-", "-max-bytes", "1024"}, 2, "larger than the limit of 1024 bytes"},
		{"wrong type in a field", "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata: {name: [1]}\n", []string{"-f", "-"}, 2, "document 1: ManagedCluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runPlan(t, tt.stdin, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

// TestPlanMissingPlacement: a placement whose Placement is not in the
// input is not planned, as the controller plans nothing for it; the report
// says why.
func TestPlanMissingPlacement(t *testing.T) {
	t.Parallel()
	hub, err := os.ReadFile(hubFile)
	require.NoError(t, err)
	code, out, errOut := runPlan(t, onlyKinds(t, string(hub), "ClusterManagementAddOn", "ManagedClusterAddOn"), "-f", "-")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `not planned (PlacementNotFound): placement "open-cluster-management/cluster-proxy-placement" (spec.installStrategy.placements[0]) not found`)
	assert.Contains(t, out, "clusters to start now: (none)")
}

func TestPlanGates(t *testing.T) {
	t.Parallel()
	// At 12:20 stg has succeeded and soaked; prod is next, unless a gate
	// holds it.
	hub, err := os.ReadFile(hubFile)
	require.NoError(t, err)
	done := strings.Replace(string(hub), "specHash: d2c1bae8a01bb424ec2bd6b3cb5bb3692dd3faab365996ce6b2d89a4d339b222\n      lastObservedGeneration: 2\n      resource: managedproxyconfigurations\n    healthCheck:\n      mode: Customized\n    namespace: open-cluster-management-cluster-proxy\n- apiVersion: addon.open-cluster-management.io/v1beta1\n  kind: ManagedClusterAddOn\n  metadata:\n    creationTimestamp: \"2026-11-02T09:16:27Z\"\n    finalizers:\n    - addon.open-cluster-management.io/addon-pre-delete\n    generation: 1\n    name: cluster-proxy\n    namespace: prod-cluster",
		"specHash: 27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1\n      lastObservedGeneration: 2\n      resource: managedproxyconfigurations\n    healthCheck:\n      mode: Customized\n    namespace: open-cluster-management-cluster-proxy\n- apiVersion: addon.open-cluster-management.io/v1beta1\n  kind: ManagedClusterAddOn\n  metadata:\n    creationTimestamp: \"2026-11-02T09:16:27Z\"\n    finalizers:\n    - addon.open-cluster-management.io/addon-pre-delete\n    generation: 1\n    name: cluster-proxy\n    namespace: prod-cluster", 1)
	done = strings.Replace(done, "reason: Progressing\n      status: \"True\"", "reason: Completed\n      status: \"False\"", 1)
	require.NotEqual(t, string(hub), done, "the fixture edit must apply")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no gate", nil, []string{`start now: "prod-cluster"`}},
		{"approval", []string{"-approve", "dev,stg"}, []string{
			`2      prod   Blocked   "prod-cluster"  held: waiting for approval of group "prod"`,
			`held: group "prod": waiting for approval of group "prod"`,
			"clusters to start now: (none)"}},
		{"window", []string{"-window", "Sat,Sun 00:00-23:59 UTC"}, []string{
			`held: group "prod": outside the time window Sun,Sat 00:00-23:59 UTC; it opens Sat 2026-12-05 00:00 UTC`,
			"look again in: 107h40m0s"}},
		{"pause", []string{"-pause", "change freeze"}, []string{`held: group "prod": rollout paused: change freeze`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-f", "-", "-now", "2026-11-30T12:20:00Z"}, tt.args...)
			code, out, errOut := runPlan(t, done, args...)
			require.Equal(t, 0, code, errOut)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
		})
	}
}

func TestPlanHelp(t *testing.T) {
	t.Parallel()
	code, _, errOut := runPlan(t, "", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "usage: plan -f FILE")
	assert.Contains(t, errOut, "are read as v1beta1 (the\nversion kubectl prints) or v1alpha1 (the version a hub stores")
	assert.Contains(t, errOut, "add addonrollouts,rolloutapprovals to the kubectl get")
	assert.Contains(t, errOut, "0 when the plan is printed (held, halted or invalid AddOnRollout\nincluded)")
}

// onlyKinds keeps the List items of the given kinds.
func onlyKinds(t *testing.T, list string, kinds ...string) string {
	t.Helper()
	h, err := readHub(strings.NewReader(list), 1<<30)
	require.NoError(t, err)
	var b strings.Builder
	for _, k := range kinds {
		switch k {
		case "ClusterManagementAddOn":
			for _, o := range h.cmas {
				writeDoc(t, &b, k, o)
			}
		case "ManagedClusterAddOn":
			for _, o := range h.mcas {
				writeDoc(t, &b, k, o)
			}
		}
	}
	return b.String()
}

func writeDoc(t *testing.T, b *strings.Builder, kind string, o any) {
	t.Helper()
	js, err := json.Marshal(o)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m))
	m["kind"] = kind
	js, err = json.Marshal(m)
	require.NoError(t, err)
	fmt.Fprintf(b, "---\n%s\n", js)
}

func TestHostileYAML(t *testing.T) {
	t.Parallel()
	// Billion laughs: each level multiplies the previous by ten.
	var laughs strings.Builder
	laughs.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&laughs, "  a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				laughs.WriteString(",")
			}
			fmt.Fprintf(&laughs, "*a%d", i-1)
		}
		laughs.WriteString("]\n")
	}
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	tests := []struct {
		name, input, want string
	}{
		{"billion laughs", laughs.String(), "excessive aliasing"},
		{"deeply nested", "apiVersion: v1\nkind: ConfigMap\ndata: " + deep + "\n", "exceeded max depth"},
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

func TestReadHubIgnoresOtherKindsAndOrder(t *testing.T) {
	t.Parallel()
	input := seedHub(t) + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n"
	h, err := readHub(strings.NewReader(input), 1<<20)
	require.NoError(t, err)
	assert.Len(t, h.clusters, 3)
	assert.Equal(t, "dev-cluster", h.clusters[0].Name, "sorted by name")
	assert.Equal(t, "prod-cluster", h.clusters[1].Name)
	assert.Equal(t, map[string]int{"ManagedProxyConfiguration": 1, "Namespace": 1}, h.ignored)
}
