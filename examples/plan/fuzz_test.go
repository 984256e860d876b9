package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/seed"
)

// FuzzReadHub feeds arbitrary bytes to the YAML reader of plan. It never
// panics; an error says which document it is about (or the size limit,
// or that the whole input is empty);
// accepted input gives objects of the kinds plan uses (cluster sets
// converted to v1beta2, add-ons of either version to v1beta1), and reading
// it twice gives the same hub.
func FuzzReadHub(f *testing.F) {
	for _, name := range []string{seed.ManagedClustersFile, seed.PlacementFile, seed.PlacementDecisionsFile, seed.ClusterManagementAddOnFile} {
		data, err := seed.Raw(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	tainted, err := os.ReadFile(taintedFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tainted)
	alpha, err := os.ReadFile(v1alpha1File)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(alpha)
	f.Add([]byte("apiVersion: addon.open-cluster-management.io/v1alpha1\nkind: ClusterManagementAddOn\nmetadata: {name: a}\nspec: {supportedConfigs: [{group: g, resource: r, defaultConfig: {name: c}}, {group: g, resource: s}]}\n"))
	f.Add([]byte("apiVersion: addon.open-cluster-management.io/v1alpha1\nkind: ManagedClusterAddOn\nmetadata: {name: a, namespace: c}\nspec: {installNamespace: ns}\nstatus: {configReferences: [{group: g, resource: r, name: c, desiredConfig: {name: d, specHash: h}}]}\n"))
	f.Add([]byte("apiVersion: addon.open-cluster-management.io/v2\nkind: ClusterManagementAddOn\nmetadata: {name: a}\n"))
	f.Add([]byte("{\"kind\":\"ManagedClusterAddOn\",\"metadata\":{\"name\":\"a\",\"namespace\":\"c\"}}"))
	f.Add([]byte("apiVersion: cluster.open-cluster-management.io/v1beta1\nkind: ManagedClusterSet\nmetadata: {name: a}\nspec: {clusterSelector: {selectorType: LegacyClusterSetLabel}}\n"))
	f.Add([]byte("apiVersion: cluster.open-cluster-management.io/v1beta1\nkind: ManagedClusterSetBinding\nmetadata: {name: a, namespace: ns}\nspec: {clusterSet: a}\n"))
	f.Add([]byte("apiVersion: cluster.open-cluster-management.io/v1alpha1\nkind: AddOnPlacementScore\nmetadata: {name: s, namespace: c}\nstatus: {scores: [{name: cpu, value: 1}]}\n"))
	f.Add([]byte("{\"apiVersion\":\"cluster.open-cluster-management.io\",\"kind\":\"ManagedClusterSet\"}"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("{\"kind\":\"Placement\",\"metadata\":{\"name\":1}}"))
	f.Fuzz(checkReadHub)
}

// checkReadHub is FuzzReadHub's check of one input.
func checkReadHub(t *testing.T, data []byte) {
	const limit = 1 << 16
	h, err := readHub(bytes.NewReader(data), limit)
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, "document ") && !strings.Contains(msg, "limit") && !strings.HasPrefix(msg, "the input ") {
			t.Fatalf("error %q names neither the document, the limit nor the whole input", msg)
		}
		return
	}
	for _, c := range h.clusters {
		if c == nil {
			t.Fatal("nil ManagedCluster")
		}
	}
	for _, s := range h.sets {
		if s == nil || s.Spec.ClusterSelector.SelectorType == legacyClusterSetLabel {
			t.Fatalf("ManagedClusterSet %v: want a v1beta2 set", s)
		}
	}
	for _, c := range h.cmas {
		if c == nil || c.APIVersion != addonv1beta1.GroupVersion.String() {
			t.Fatalf("ClusterManagementAddOn %v: want a v1beta1 add-on", c)
		}
	}
	for _, m := range h.mcas {
		if m == nil || m.APIVersion != addonv1beta1.GroupVersion.String() {
			t.Fatalf("ManagedClusterAddOn %v: want a v1beta1 add-on", m)
		}
	}
	again, err := readHub(bytes.NewReader(data), limit)
	if err != nil || len(again.clusters) != len(h.clusters) || len(again.placements) != len(h.placements) ||
		len(again.decisions) != len(h.decisions) || len(again.cmas) != len(h.cmas) || len(again.mcas) != len(h.mcas) ||
		len(again.sets) != len(h.sets) || len(again.bindings) != len(h.bindings) || len(again.scores) != len(h.scores) {
		t.Fatalf("reading the same input twice differs: %v", err)
	}
}
