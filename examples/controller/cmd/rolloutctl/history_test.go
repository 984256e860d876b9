package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// historyHub is the seed's hub whose add-on went from h1 (image old,
// completed on three clusters) to h2, the spec the config has now.
func historyHub(t *testing.T) client.Client {
	t.Helper()
	ref := v1alpha1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	config := func(h string) v1alpha1.RevisionConfig {
		return v1alpha1.RevisionConfig{Group: proxyGVK.Group, Resource: "managedproxyconfigurations", Name: "cluster-proxy", SpecHash: h, Image: "agent:" + h}
	}
	entry := func(n int64, h string, completed bool) client.Object {
		rev := hubplan.ConfigsRevision([]v1alpha1.RevisionConfig{config(h)})
		e := hubplan.HistoryEntry{Name: hubplan.HistoryName(addonName, ref, rev), Number: n, Record: v1alpha1.RevisionRecord{AddOn: addonName, Placement: ref, Revision: rev,
			Configs: []v1alpha1.RecordedConfig{{RevisionConfig: config(h), Spec: runtime.RawExtension{Raw: []byte(`{"proxyAgent":{"image":"agent:` + h + `"}}`)}}}}}
		if completed {
			at := metav1.NewTime(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
			e.Completed, e.Clusters = &at, []string{"dev-cluster", "prod-cluster", "stg-cluster"}
		}
		cr, err := hubplan.HistoryObject(defaultControllerNamespace, e)
		require.NoError(t, err)
		return cr
	}
	ar := rollout(v1alpha1.AddOnRolloutSpec{})
	ar.Status.Placements = []v1alpha1.PlacementStatus{{Namespace: ref.Namespace, Name: ref.Name, Revision: "r2", Configs: []v1alpha1.RevisionConfig{config("h2")}}}
	return fakeHub(t, true, append(seedHub(t), ar, entry(1, "h1", true), entry(2, "h2", false))...)
}

// TestHistoryUndo: history lists the revisions, newest first, the current
// one marked; undo restores the previous completed one's config spec, and
// refuses a revision the history does not have, naming those it has.
func TestHistoryUndo(t *testing.T) {
	t.Parallel()
	c := historyHub(t)
	code, out, errOut := runWith(t, c, "history", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?s)REVISION +PLACEMENT +HASH +STATE +CONFIGS\n2 +open-cluster-management/cluster-proxy-placement +\w{12} +current, not completed +managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy spec h2 image agent:h2\n`+
		`1 .* completed 2026-12-01T09:00:00Z on 3 clusters +managedproxyconfigurations.* spec h1 image agent:h1\n$`, out)

	code, out, errOut = runWith(t, c, "history", addonName, "-o", "json")
	require.Equal(t, 0, code, errOut)
	var revs []revisionJSON
	require.NoError(t, json.Unmarshal([]byte(out), &revs))
	require.Len(t, revs, 2)
	assert.Equal(t, []int64{1, 2}, []int64{revs[0].Number, revs[1].Number})
	assert.Equal(t, []bool{false, true}, []bool{revs[0].Current, revs[1].Current})
	assert.Equal(t, 3, revs[0].Clusters)

	code, out, errOut = runWith(t, c, "undo", addonName, "--to-revision", "7")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, errOut, "undo cluster-proxy: revision 7: not in the history (it has [1 2])")
	code, _, errOut = runWith(t, c, "undo", addonName, "--placement", "nonsense")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--placement "nonsense": want NAMESPACE/NAME`)

	code, out, errOut = runWith(t, c, "undo", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `add-on "cluster-proxy" placement open-cluster-management/cluster-proxy-placement: restored revision 1 (`)
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(proxyGVK)
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: "cluster-proxy"}, cfg))
	assert.Equal(t, map[string]any{"proxyAgent": map[string]any{"image": "agent:h1"}}, cfg.Object["spec"])
}
