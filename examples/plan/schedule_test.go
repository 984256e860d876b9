package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/yaml"
)

// taintedFile is a kubectl dump in which stg-cluster-2 is tainted
// unreachable and cluster-proxy-placement has no PlacementDecisions.
const taintedFile = "testdata/tainted.yaml"

// editItems reads a kubectl List, lets edit change its items (each a
// decoded object), and returns the List as YAML again.
func editItems(t *testing.T, file string, edit func(items []map[string]any) []map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var list struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []map[string]any `json:"items"`
	}
	require.NoError(t, yaml.Unmarshal(data, &list))
	require.Equal(t, "List", list.Kind)
	list.Items = edit(list.Items)
	out, err := yaml.Marshal(list)
	require.NoError(t, err)
	return string(out)
}

// object returns the map at path in obj, creating the maps on the way.
func object(obj map[string]any, path ...string) map[string]any {
	for _, p := range path {
		next, ok := obj[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[p] = next
		}
		obj = next
	}
	return obj
}

// withoutKinds drops the items of the given kinds.
func withoutKinds(kinds ...string) func([]map[string]any) []map[string]any {
	return func(items []map[string]any) []map[string]any {
		var out []map[string]any
		for _, it := range items {
			drop := false
			for _, k := range kinds {
				drop = drop || it["kind"] == k
			}
			if !drop {
				out = append(out, it)
			}
		}
		return out
	}
}

// eachOf applies change to every item of kind.
func eachOf(kind string, change func(map[string]any)) func([]map[string]any) []map[string]any {
	return func(items []map[string]any) []map[string]any {
		for _, it := range items {
			if it["kind"] == kind {
				change(it)
			}
		}
		return items
	}
}

// planOutput is what the scheduling tests read of plan's JSON.
type planOutput struct {
	Placements []struct {
		Groups []struct {
			Name     string   `json:"name"`
			Clusters []string `json:"clusters"`
		} `json:"groups"`
	} `json:"placements"`
	Start        []string `json:"start"`
	RecheckAfter float64  `json:"recheckAfter"`
	Warnings     []string `json:"warnings"`
}

// groupClusters maps each group of the only placement to its clusters;
// groups without clusters are left out.
func (o planOutput) groupClusters(t *testing.T) map[string][]string {
	t.Helper()
	require.Len(t, o.Placements, 1)
	m := map[string][]string{}
	for _, g := range o.Placements[0].Groups {
		if len(g.Clusters) > 0 {
			m[g.Name] = append(m[g.Name], g.Clusters...)
		}
	}
	return m
}

// warningOf returns the first warning that holds every part, or "".
func (o planOutput) warningOf(parts ...string) string {
	for _, w := range o.Warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return w
		}
	}
	return ""
}

// tolerateUnreachable makes cluster-proxy-placement tolerate the
// unreachable taint for an hour.
func tolerateUnreachable(it map[string]any) {
	object(it, "spec")["tolerations"] = []any{map[string]any{
		"key": "cluster.open-cluster-management.io/unreachable", "operator": "Exists", "tolerationSeconds": 3600,
	}}
}

// TestPlanSchedulesTheHub: a Placement is scheduled against the whole hub
// dumped (sets, bindings, taints, tolerations, scores) for its warnings and
// its recheck time. taintedFile's placement has no PlacementDecisions, so
// it has no groups and nothing starts, as the controller, which takes
// groups from PlacementDecisions only, would start nothing; a warning says
// how many clusters the schedule selects.
func TestPlanSchedulesTheHub(t *testing.T) {
	t.Parallel()
	for _, tt := range scheduleCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t)
		})
	}
}

// scheduleCase is a case of TestPlanSchedulesTheHub.
type scheduleCase struct {
	name     string
	hub      string
	selected int // the clusters the schedule selects
	recheck  float64
	warning  []string // the parts of one warning; nil: none names a taint
	text     []string
}

// scheduleCases are taintedFile's hub, edited.
func scheduleCases(t *testing.T) []scheduleCase {
	t.Helper()
	original, err := os.ReadFile(taintedFile)
	require.NoError(t, err)
	return []scheduleCase{
		{
			name: "unreachable cluster dropped by its taint", hub: string(original), selected: 3,
			warning: []string{"Tainted:", "stg-cluster-2", "cluster.open-cluster-management.io/unreachable"},
			text:    []string{"Tainted:", "clusters to start now: (none)"},
		},
		{
			// The control: without the taint, nothing is dropped.
			name: "no taint: every cluster selected",
			hub: editItems(t, taintedFile, eachOf("ManagedCluster", func(it map[string]any) {
				delete(object(it, "spec"), "taints")
			})),
			selected: 4,
		},
		{
			name:     "tolerated for an hour: kept, and look again when it expires",
			hub:      editItems(t, taintedFile, eachOf("Placement", tolerateUnreachable)),
			selected: 4, recheck: (35*60 + 40), // the taint was added at 12:05:40
			warning: []string{"TolerationExpiring:", "stg-cluster-2"},
			text:    []string{"TolerationExpiring:", "look again in: 35m40s"},
		},
		{
			name:     "sets and bindings of version v1beta1",
			hub:      editItems(t, taintedFile, setsToV1beta1),
			selected: 3, warning: []string{"Tainted:", "stg-cluster-2"},
		},
		{
			name:     "no set and no binding in the dump: every cluster a candidate, with a warning",
			hub:      editItems(t, taintedFile, withoutKinds("ManagedClusterSet", "ManagedClusterSetBinding")),
			selected: 3, warning: []string{"no ManagedClusterSet and no ManagedClusterSetBinding in the input", "every ManagedCluster was taken as a candidate"},
			text: []string{"Tainted:", "managedclustersets and managedclustersetbindings"},
		},
		{
			name: "binding in another namespace: nothing selected",
			hub: editItems(t, taintedFile, eachOf("ManagedClusterSetBinding", func(it map[string]any) {
				object(it, "metadata")["namespace"] = "other"
			})),
			warning: []string{"NoClusterSetBinding:"},
			text:    []string{"clusters to start now: (none)"},
		},
	}
}

// setsToV1beta1 rewrites the ManagedClusterSets and their bindings as an
// older hub serves them, in v1beta1.
func setsToV1beta1(items []map[string]any) []map[string]any {
	for _, it := range items {
		if it["kind"] == "ManagedClusterSet" || it["kind"] == "ManagedClusterSetBinding" {
			it["apiVersion"] = "cluster.open-cluster-management.io/v1beta1"
		}
		if sel := object(it, "spec", "clusterSelector"); it["kind"] == "ManagedClusterSet" && sel["selectorType"] == "ExclusiveClusterSetLabel" {
			sel["selectorType"] = "LegacyClusterSetLabel"
		}
	}
	return items
}

// check plans tt.hub at 12:30 and checks the JSON and the text report.
func (tt scheduleCase) check(t *testing.T) {
	t.Helper()
	args := []string{"-f", "-", "-now", "2026-11-30T12:30:00Z"}
	code, out, errOut := runPlan(t, tt.hub, append(args, "-o", "json")...)
	require.Equal(t, 0, code, errOut)
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Empty(t, got.groupClusters(t), "no PlacementDecisions: no groups")
	assert.Empty(t, got.Start)
	assert.InDelta(t, tt.recheck, got.RecheckAfter, 0)
	if tt.warning != nil {
		assert.NotEmpty(t, got.warningOf(tt.warning...), "want a warning with %q in %q", tt.warning, got.Warnings)
	} else {
		assert.Empty(t, got.warningOf("Tainted:"), "no cluster is dropped by a taint")
	}
	if tt.selected > 0 {
		assert.NotEmpty(t, got.warningOf(fmt.Sprintf("the Placement selects %d clusters but the input has no PlacementDecisions of it", tt.selected)),
			"in %q", got.Warnings)
	}
	assert.Empty(t, got.warningOf("Unsupported:"), "the whole hub is evaluated")

	code, text, errOut := runPlan(t, tt.hub, args...)
	require.Equal(t, 0, code, errOut)
	for _, want := range tt.text {
		assert.Contains(t, text, want)
	}
}

func TestReadHubClusterSets(t *testing.T) {
	t.Parallel()
	input := `apiVersion: cluster.open-cluster-management.io/v1beta1
kind: ManagedClusterSet
metadata: {name: legacy, resourceVersion: "7", uid: 1f2e}
spec: {clusterSelector: {selectorType: LegacyClusterSetLabel}}
---
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: ManagedClusterSet
metadata: {name: by-label}
spec: {clusterSelector: {selectorType: LabelSelector, labelSelector: {matchLabels: {region: eu}}}}
---
apiVersion: cluster.open-cluster-management.io/v1beta2
kind: ManagedClusterSet
metadata: {name: default}
spec: {clusterSelector: {selectorType: ExclusiveClusterSetLabel}}
---
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: ManagedClusterSetBinding
metadata: {name: legacy, namespace: ns}
spec: {clusterSet: legacy}
---
apiVersion: cluster.open-cluster-management.io/v1alpha1
kind: AddOnPlacementScore
metadata: {name: usage, namespace: dev-cluster}
status: {scores: [{name: cpu, value: 30}], validUntil: "2026-11-30T13:00:00Z"}
`
	h, err := readHub(strings.NewReader(input), 1<<20)
	require.NoError(t, err)
	require.Len(t, h.sets, 3)
	byName := map[string]*clusterv1beta2.ManagedClusterSet{}
	for _, s := range h.sets {
		byName[s.Name] = s
		assert.Equal(t, "cluster.open-cluster-management.io/v1beta2", s.APIVersion, s.Name)
	}
	assert.Equal(t, clusterv1beta2.ExclusiveClusterSetLabel, byName["legacy"].Spec.ClusterSelector.SelectorType, "v1beta1's legacy label is v1beta2's exclusive label")
	assert.Equal(t, clusterv1beta2.LabelSelector, byName["by-label"].Spec.ClusterSelector.SelectorType)
	assert.Equal(t, map[string]string{"region": "eu"}, byName["by-label"].Spec.ClusterSelector.LabelSelector.MatchLabels)
	assert.Equal(t, clusterv1beta2.ExclusiveClusterSetLabel, byName["default"].Spec.ClusterSelector.SelectorType)
	require.Len(t, h.bindings, 1)
	assert.Equal(t, "legacy", h.bindings[0].Spec.ClusterSet)
	assert.Equal(t, "cluster.open-cluster-management.io/v1beta2", h.bindings[0].APIVersion)
	require.Len(t, h.scores, 1)
	assert.Equal(t, "dev-cluster", h.scores[0].Namespace)
	assert.Equal(t, int32(30), h.scores[0].Status.Scores[0].Value)
	assert.Empty(t, h.ignored)

	planned := h.planHub()
	assert.Len(t, planned.ManagedClusterSets, 3)
	assert.Len(t, planned.ManagedClusterSetBindings, 1)
	assert.Len(t, planned.AddOnPlacementScores, 1)
}
