package addons

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

const historyNS = "rolloutkit-system"

// history reads the seed add-on's history from the hub.
func (h *rolloutHub) history() []hubplan.HistoryEntry {
	h.T.Helper()
	var list appsv1.ControllerRevisionList
	require.NoError(h.T, h.Client.List(context.Background(), &list, client.InNamespace(historyNS)))
	crs := make([]*appsv1.ControllerRevision, len(list.Items))
	for i := range list.Items {
		crs[i] = &list.Items[i]
	}
	out, err := hubplan.HistoryOf(hubtest.SeedAddonName, crs)
	require.NoError(h.T, err)
	return out
}

// setImage sets both images of the seed's config to tag.
func (h *rolloutHub) setImage(tag string) {
	h.T.Helper()
	u := hubtest.ProxyConfig(h.T, "cluster-proxy", tag)
	cur := u.DeepCopy()
	require.NoError(h.T, h.Client.Get(context.Background(), client.ObjectKeyFromObject(u), cur))
	cur.Object["spec"] = u.Object["spec"]
	require.NoError(h.T, h.Client.Update(context.Background(), cur))
}

// image is the seed config's agent image on the hub.
func (h *rolloutHub) image() string {
	h.T.Helper()
	u := hubtest.ProxyConfig(h.T, "cluster-proxy", "")
	require.NoError(h.T, h.Client.Get(context.Background(), types.NamespacedName{Name: "cluster-proxy"}, u))
	image, _, err := unstructured.NestedString(u.Object, "spec", "proxyAgent", "image")
	require.NoError(h.T, err)
	return image
}

// TestHistoryReconcile: with spec.onFailure: Rollback, the reconciler
// records v1.0.0 when it starts and marks it completed on the three
// clusters; v2.0.0 is recorded when it starts, and when stg's check of it
// fails the reconciler writes v1.0.0's spec back to the config, says so
// in an event and in the status, and leaves prod on v1.0.0.
func TestHistoryReconcile(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{OnFailure: v1alpha1.OnFailureRollback, Verifications: []v1alpha1.Verification{{
		Name: "smoke", Groups: []string{"stg"}, Webhook: &v1alpha1.WebhookCheck{URL: srv.URL + "/verify"}}}}))
	h.r.HistoryNamespace, h.r.Reader = historyNS, h.Client
	v1 := "quay.io/open-cluster-management/cluster-proxy:v1.0.0"

	h.reconcile()
	history := h.history()
	require.Len(t, history, 1, "v1.0.0 recorded as it starts")
	assert.Equal(t, int64(1), history[0].Number)
	assert.Nil(t, history[0].Completed)
	assert.Contains(t, string(history[0].Record.Configs[0].Spec.Raw), v1)
	h.soakThrough(3)
	h.apply()
	h.reconcile()
	history = h.history()
	require.Len(t, history, 1)
	require.NotNil(t, history[0].Completed, "v1.0.0 completed: %+v", h.rollout().Status.Placements)
	assert.Equal(t, []string{"dev-cluster", "prod-cluster", "stg-cluster"}, history[0].Clusters, "sorted")

	first := history[0]
	h.setImage("v2.0.0")
	failing.Store(true)
	h.events()
	h.soakThrough(2)
	assert.Equal(t, v1, h.image(), "v1.0.0's spec not restored")
	assert.Contains(t, strings.Join(h.events(), "\n"), EventRolledBack+" placement "+hubtest.SeedNamespace+"/"+hubtest.SeedRef.Name+" rolled back from revision ")
	ar := h.rollout()
	require.Len(t, ar.Status.Rollbacks, 1)
	rb := ar.Status.Rollbacks[0]
	assert.Equal(t, hubplan.ReasonVerificationFailed, rb.Reason)
	assert.Equal(t, first.Record.Revision, rb.To)
	assert.Equal(t, int64(1), rb.ToNumber)
	prod := h.Addon("prod-cluster", hubtest.SeedAddonName)
	assert.Equal(t, first.Record.Configs[0].SpecHash, hubtest.DesiredHash(t, prod), "prod was handed v2.0.0")

	// v2.0.0 was recorded, never completed; v1.0.0, rolled out again,
	// took the next number.
	h.reconcile()
	history = h.history()
	require.Len(t, history, 2)
	assert.Equal(t, rb.From, history[0].Record.Revision)
	assert.Equal(t, int64(2), history[0].Number)
	assert.Nil(t, history[0].Completed)
	assert.Equal(t, rb.To, history[1].Record.Revision)
	assert.Equal(t, int64(3), history[1].Number)
}

// TestHistoryNeedsRollout: an add-on without an AddOnRollout gets no
// history: nothing is read or written for it.
func TestHistoryNeedsRollout(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, nil)
	h.r.HistoryNamespace, h.r.Reader = historyNS, h.Client
	h.soakThrough(3)
	assert.Empty(t, h.history())
}
