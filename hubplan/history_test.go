package hubplan_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
)

// seedRef is the seed's placement, as the status names it.
func seedRef() v1alpha1.PlacementRef {
	return v1alpha1.PlacementRef{Namespace: addontest.SeedPlacement().Namespace, Name: addontest.SeedPlacement().Name}
}

// proxyConfig is the seed's config at spec hash h.
func proxyConfig(h string) v1alpha1.RevisionConfig {
	gr, ref := addontest.ProxyGR(), addontest.ProxyReferent()
	return v1alpha1.RevisionConfig{Group: gr.Group, Resource: gr.Resource, Namespace: ref.Namespace, Name: ref.Name, SpecHash: h}
}

// specOf is the recorded spec of the config at spec hash h.
func specOf(h string) runtime.RawExtension {
	return runtime.RawExtension{Raw: []byte(`{"proxyAgent":{"image":"agent:` + h + `"}}`)}
}

// entry is the seed placement's revision at spec hash h, number n,
// completed on clusters when any are given.
func entry(h string, n int64, clusters ...string) hubplan.HistoryEntry {
	rev := revision(h)
	e := hubplan.HistoryEntry{Name: hubplan.HistoryName("cluster-proxy", seedRef(), rev), Number: n,
		Record: v1alpha1.RevisionRecord{AddOn: "cluster-proxy", Placement: seedRef(), Revision: rev,
			Configs: []v1alpha1.RecordedConfig{{RevisionConfig: proxyConfig(h), Spec: specOf(h)}}}}
	if len(clusters) > 0 {
		at := metav1.NewTime(addontest.PlanNow.Add(-10 * time.Hour))
		e.Completed, e.Clusters = &at, clusters
	}
	return e
}

// TestPlanHistory: a revision is recorded when it starts, with its
// configs' specs; marked completed with the placement's clusters; takes
// the next number when it comes back; is not recorded once its configs
// moved on; and the oldest go past the limit, never the current one.
func TestPlanHistory(t *testing.T) {
	t.Parallel()
	done := metav1.NewTime(addontest.PlanNow)
	status := func(h string, completed bool) v1alpha1.AddOnRolloutStatus {
		ps := v1alpha1.PlacementStatus{Namespace: seedRef().Namespace, Name: seedRef().Name, Revision: revision(h), Kind: hubplan.KindConfig,
			Configs: []v1alpha1.RevisionConfig{proxyConfig(h)}}
		if completed {
			ps.CompletionTime = &done
		}
		return v1alpha1.AddOnRolloutStatus{Placements: []v1alpha1.PlacementStatus{ps}}
	}
	clusters := map[string][]string{seedRef().Namespace + "/" + seedRef().Name: {"stg-cluster", "dev-cluster", "prod-cluster"}}
	all := []string{"dev-cluster", "prod-cluster", "stg-cluster"}
	completed := func(e hubplan.HistoryEntry) hubplan.HistoryEntry { e.Completed, e.Clusters = &done, all; return e }
	for _, c := range []struct {
		name    string
		st      v1alpha1.AddOnRolloutStatus
		history []hubplan.HistoryEntry
		hubHash string // the config's spec hash on the hub
		limit   int
		want    hubplan.HistoryChanges
	}{
		{name: "a new revision is recorded", st: status("v2", false), history: []hubplan.HistoryEntry{entry("v1", 1, all...)}, hubHash: "v2", limit: 10,
			want: hubplan.HistoryChanges{Create: []hubplan.HistoryEntry{entry("v2", 2)}}},
		{name: "its configs moved on: nothing to record", st: status("v2", false), history: []hubplan.HistoryEntry{entry("v1", 1, all...)}, hubHash: "v3", limit: 10},
		{name: "completed: its clusters, sorted", st: status("v2", true), history: []hubplan.HistoryEntry{entry("v1", 1, all...), entry("v2", 2)}, hubHash: "v2", limit: 10,
			want: hubplan.HistoryChanges{Update: []hubplan.HistoryEntry{completed(entry("v2", 2))}}},
		{name: "recorded and completed at once", st: status("v2", true), hubHash: "v2", limit: 10,
			want: hubplan.HistoryChanges{Create: []hubplan.HistoryEntry{completed(entry("v2", 1))}}},
		{name: "nothing new", st: status("v2", true), history: []hubplan.HistoryEntry{entry("v1", 1, all...), entry("v2", 2, all...)}, hubHash: "v2", limit: 10},
		{name: "rolled out again: the next number", st: status("v1", false), history: []hubplan.HistoryEntry{entry("v1", 1, all...), entry("v2", 2)}, hubHash: "v1", limit: 10,
			want: hubplan.HistoryChanges{Update: []hubplan.HistoryEntry{entry("v1", 3, all...)}}},
		{name: "past the limit: the oldest go", st: status("v3", false), history: []hubplan.HistoryEntry{entry("v1", 1, all...), entry("v2", 2, all...)}, hubHash: "v3", limit: 2,
			want: hubplan.HistoryChanges{Create: []hubplan.HistoryEntry{entry("v3", 3)}, Delete: []string{entry("v1", 1).Name}}},
		{name: "the current revision is kept past the limit", st: status("v1", false), history: []hubplan.HistoryEntry{entry("v1", 1, all...), entry("v2", 2), entry("v3", 3)}, hubHash: "v1", limit: 1,
			want: hubplan.HistoryChanges{Update: []hubplan.HistoryEntry{entry("v1", 4, all...)}, Delete: []string{entry("v2", 2).Name, entry("v3", 3).Name}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (runtime.RawExtension, string, error) {
				return specOf(c.hubHash), c.hubHash, nil
			}
			got, err := hubplan.PlanHistory("cluster-proxy", c.st, clusters, c.history, spec, c.limit)
			require.NoError(t, err)
			c.want.Delete = slices.Sorted(slices.Values(c.want.Delete)) // by name
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.want.Empty(), got.Empty())
		})
	}
	t.Run("a config that cannot be read is an error that names it", func(t *testing.T) {
		t.Parallel()
		_, err := hubplan.PlanHistory("cluster-proxy", status("v2", false), clusters, nil,
			func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (runtime.RawExtension, string, error) {
				return runtime.RawExtension{}, "", errors.New("forbidden")
			}, 10)
		require.Error(t, err)
		assert.Contains(t, err.Error(), hubplan.ConfigRef(proxyConfig("v2")))
		assert.Contains(t, err.Error(), "forbidden")
	})
}

// TestHistoryObject: an entry written as a ControllerRevision reads back
// the same, and one that cannot be read is an error naming it.
func TestHistoryObject(t *testing.T) {
	t.Parallel()
	for _, e := range []hubplan.HistoryEntry{entry("v1", 1, "dev-cluster", "prod-cluster"), entry("v2", 2)} {
		cr, err := hubplan.HistoryObject("rolloutkit", e)
		require.NoError(t, err)
		assert.Equal(t, "cluster-proxy", cr.Labels[hubplan.HistoryLabel])
		got, err := hubplan.HistoryOf("cluster-proxy", []*appsv1.ControllerRevision{cr})
		require.NoError(t, err)
		require.Len(t, got, 1)
		want := e
		if want.Completed != nil {
			at := metav1.NewTime(want.Completed.UTC())
			want.Completed = &at
		}
		got[0].Record.Configs[0].Spec.Object = nil
		assert.Equal(t, want, got[0])
		other, err := hubplan.HistoryOf("another", []*appsv1.ControllerRevision{cr})
		require.NoError(t, err)
		assert.Empty(t, other, "another add-on's revision")
	}
	cr, err := hubplan.HistoryObject("rolloutkit", entry("v1", 1, "dev-cluster"))
	require.NoError(t, err)
	cr.Annotations[hubplan.CompletedAnnotation] = "yesterday"
	_, err = hubplan.HistoryOf("cluster-proxy", []*appsv1.ControllerRevision{cr})
	require.Error(t, err)
	assert.Contains(t, err.Error(), cr.Name)
	assert.Contains(t, err.Error(), `"yesterday": want an RFC 3339 time`)
}

// TestUndoTarget: the newest completed revision before the current one,
// or the one asked for by number; an unknown number, another placement's
// revision, or a history with nothing to go back to, each say so.
func TestUndoTarget(t *testing.T) {
	t.Parallel()
	other := entry("v9", 9)
	other.Record.Placement = v1alpha1.PlacementRef{Namespace: "default", Name: "other"}
	history := []hubplan.HistoryEntry{entry("v1", 1, "dev-cluster"), entry("v2", 2, "dev-cluster"), entry("v3", 3), other}
	for _, c := range []struct {
		name    string
		current string
		to      int64
		want    int64
		err     string
	}{
		{name: "the previous completed revision", current: revision("v3"), want: 2},
		{name: "not the current one", current: revision("v2"), want: 1},
		{name: "by number", current: revision("v3"), to: 1, want: 1},
		{name: "an unknown number", current: revision("v3"), to: 7, err: "revision 7: not in the history (it has [1 2 3 9])"},
		{name: "another placement's", current: revision("v3"), to: 9, err: "revision 9: of placement default/other, want one of " + seedRef().Namespace + "/" + seedRef().Name},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := hubplan.UndoTarget(history, seedRef(), c.current, c.to)
			if c.err != "" {
				require.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got.Number)
		})
	}
	_, err := hubplan.UndoTarget(history[2:3], seedRef(), revision("v3"), 0)
	require.ErrorContains(t, err, "no completed revision before the current one")
}
