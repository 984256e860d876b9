package e2e_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestRenderingRollout restarts addon-framework v1.2.0's add-on manager
// with a new agent chart (two replicas instead of one) and an unchanged
// config: no spec hash changes, and without the work gate every work
// would take the new content at once (TestAddonFrameworkRollout's
// renderingChange). With the gate, the controller rolls the new rendering
// out as a revision of its own: the works change dev, then stg after dev
// has soaked, then prod, which waits for a RolloutApproval of the
// rendering revision (approvalRequired: [prod]); the controller is killed
// once dev is done and a new one carries on from what the hub holds. No
// desiredConfig is written, and the gate held prod's work meanwhile.
func TestRenderingRollout(t *testing.T) {
	t.Parallel()
	// A hub of its own: the work gate's configuration, which it installs,
	// holds every add-on's works on the hub.
	e := newEnv(t)
	o := seedHub(t, e, "2m")
	ctx := context.Background()
	h := specHash(t, testhub.Image)
	g := e.gatedController(t)
	e.workAgents(t, applyTime, nil)
	fw := e.addonFramework(t, 1)
	e.installed(t, o, addonName, h, 90*time.Second)
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName},
		Spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}}))
	e.rolloutCompleted(t, 30*time.Second, "the AddOnRollout says the config revision is complete", nil)

	ob := e.observe(t, o.Clusters(), addonName, h)
	first := e.watchReplicas(t, 2)
	fw.cancel()
	e.addonFramework(t, 2) // the new chart
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		rel, ok := e.release(ct, "dev-cluster")
		assert.True(ct, ok && rel.DoneAt != nil, "%+v", rel)
	}, 60*time.Second, poll, "dev's work has the new rendering, and dev is done")
	rendering := e.renderingRevision(t)
	var revision string // the placement's
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		st := e.rolloutStatus(ct)
		require.Len(ct, st.Placements, 1, "%+v", st.Placements)
		assert.Equal(ct, hubplan.KindRendering, st.Placements[0].Kind, "%+v", st.Placements)
		assert.Equal(ct, rendering, st.Placements[0].Rendering, "%+v", st.Placements)
		assert.NotEqual(ct, rendering, st.Placements[0].Revision, "%+v: the placement's revision joins the configs' and the rendering's", st.Placements)
		revision = st.Placements[0].Revision
	}, 30*time.Second, poll, "the AddOnRollout shows the rendering revision")
	assert.NotEmpty(t, first.at("dev-cluster"), "dev's work never had 2 replicas")
	assert.Zero(t, first.at("prod-cluster"), "prod's work took the new rendering with dev")

	// The controller dies; another carries on from the annotations.
	g.stop(t)
	g = e.restartGated(t, g)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.NotZero(ct, first.at("stg-cluster"))
	}, 60*time.Second, poll, "stg's work has the new rendering")
	dev, _ := e.release(t, "dev-cluster")
	assert.GreaterOrEqual(t, first.at("stg-cluster").Sub(dev.DoneAt.Time), soak-time.Second, // DoneAt is kept to the second
		"stg took the new rendering before dev had soaked")

	// prod waits for its approval of the rendering revision.
	var pending v1alpha1.PendingApproval
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		st := e.rolloutStatus(ct)
		i := slices.IndexFunc(st.PendingApprovals, func(pa v1alpha1.PendingApproval) bool { return pa.Group == "prod" })
		require.GreaterOrEqual(ct, i, 0, "%+v", st.Placements)
		pending = st.PendingApprovals[i]
	}, 60*time.Second, poll, "prod waits for an approval of the rendering revision")
	assert.Equal(t, revision, pending.Revision, "the approval asked for is of another revision")
	time.Sleep(3 * soak)
	assert.Zero(t, first.at("prod-cluster"), "prod's work took the new rendering without an approval")
	st := e.rolloutStatus(t)
	prodGroup := groupStatus(st, "prod")
	require.NotNil(t, prodGroup)
	assert.Equal(t, "Approval", prodGroup.WaitsFor)
	assert.Equal(t, int32(1), prodGroup.Counts.Held, "prod's held work is not counted")
	prod := e.addon(t, "prod-cluster", addonName)
	require.NotNil(t, prod.manifestApplied)
	assert.Equal(t, metav1.ConditionFalse, prod.manifestApplied.Status, "prod's work was not held")
	assert.Contains(t, prod.manifestApplied.Message, hubplan.WorkGateMarker)
	assert.Equal(t, addonv1beta1.ProgressingReasonCompleted, prod.progressing.Reason, "a held work counted as progressing or failed")

	approvedAt := time.Now()
	require.NoError(t, e.c.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: pending.Placement, Group: "prod", Revision: pending.Revision}}))
	e.rolloutCompleted(t, 60*time.Second, "the rendering revision completes", func(ct *assert.CollectT) {
		assert.NotZero(ct, first.at("prod-cluster"), "prod's work has not the new rendering")
	})
	assert.True(t, first.at("prod-cluster").After(approvedAt), "prod took the new rendering before its approval")
	ob.close()
	for _, c := range o.Clusters() {
		assert.Equal(t, []string{h}, ob.desired[c], "%s: a desiredConfig was written for a new rendering", c)
		w := e.works(t, addonName)[c]
		assert.Equal(t, []int32{2}, w.replicas, c)
		assert.True(t, w.ready, c)
		s := e.addon(t, c, addonName)
		assert.Equal(t, metav1.ConditionTrue, s.manifestApplied.Status, "%s: still held", c)
	}
	t.Logf("new rendering: dev %s, stg %s, prod %s after the manager's restart; %d refusals",
		first.since("dev-cluster"), first.since("stg-cluster"), first.since("prod-cluster"), g.total(t))
}

// rolloutStatus reads the add-on's AddOnRollout's status.
func (e *env) rolloutStatus(t tb) v1alpha1.AddOnRolloutStatus {
	t.Helper()
	var ar v1alpha1.AddOnRollout
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: e.addonName}, &ar))
	return ar.Status
}

// rolloutCompleted waits until the add-on's AddOnRollout says its
// revision completed and, when also is not nil, also holds.
func (e *env) rolloutCompleted(t testing.TB, timeout time.Duration, what string, also func(*assert.CollectT)) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		c := meta.FindStatusCondition(e.rolloutStatus(ct).Conditions, hubplan.ConditionProgressing)
		require.NotNil(ct, c, "no Progressing condition")
		assert.Equal(ct, hubplan.ReasonCompleted, c.Reason, "%+v", c)
		if also != nil {
			also(ct)
		}
	}, timeout, poll, what)
}

// renderingRevision reads the add-on's rendering revision from its
// ClusterManagementAddOn.
func (e *env) renderingRevision(t testing.TB) string {
	t.Helper()
	var cma addonv1alpha1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: e.addonName}, &cma))
	var b addonv1beta1.ClusterManagementAddOn
	b.ObjectMeta = cma.ObjectMeta
	rev, ok := hubplan.ReadRenderingRevision(&b)
	require.True(t, ok, "no rendering revision on the ClusterManagementAddOn: %v", cma.Annotations)
	return rev.Revision
}

// groupStatus finds the status of group name.
func groupStatus(st v1alpha1.AddOnRolloutStatus, name string) *v1alpha1.GroupStatus {
	for i := range st.Placements {
		for j := range st.Placements[i].Groups {
			if g := &st.Placements[i].Groups[j]; g.Name == name {
				return g
			}
		}
	}
	return nil
}

// release reads the rendering rollout's release of cluster's add-on.
func (e *env) release(t tb, cluster string) (hubplan.Release, bool) {
	t.Helper()
	var mca addonv1alpha1.ManagedClusterAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: e.addonName}, &mca))
	var b addonv1beta1.ManagedClusterAddOn
	b.ObjectMeta = mca.ObjectMeta
	return hubplan.ReadRelease(&b)
}

// firstReplicas records when each cluster's work first carried n
// replicas.
type firstReplicas struct {
	start time.Time
	mu    sync.Mutex
	seen  map[string]time.Time
}

func (f *firstReplicas) at(cluster string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[cluster]
}

func (f *firstReplicas) since(cluster string) time.Duration {
	if at := f.at(cluster); !at.IsZero() {
		return at.Sub(f.start).Round(100 * time.Millisecond)
	}
	return -1
}

// watchReplicas polls the add-on's works every 50ms until the test ends.
func (e *env) watchReplicas(t testing.TB, n int32) *firstReplicas {
	t.Helper()
	f := &firstReplicas{start: time.Now(), seen: map[string]time.Time{}}
	pollUntilEnd(t, 50*time.Millisecond, func(context.Context) {
		ws, err := e.readWorks(e.addonName)
		if err != nil {
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for c, w := range ws {
			if _, ok := f.seen[c]; !ok && len(w.replicas) == 1 && w.replicas[0] == n {
				f.seen[c] = time.Now()
			}
		}
	})
	return f
}
