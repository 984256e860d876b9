package addons

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// rolloutHub is the seed's hub (v1beta1) with an AddOnRollout, a
// reconciler on a fake clock, and the agents' part played by apply.
type rolloutHub struct {
	*hubtest.AddonHub
	clk *clockfake.Clock
	rec *events.FakeRecorder
	r   *AddonReconciler
}

func newRolloutHub(t *testing.T, ar *v1alpha1.AddOnRollout, objs ...client.Object) *rolloutHub {
	t.Helper()
	cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
	all := hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfg}, hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...), objs)
	if ar != nil {
		all = append(all, ar)
	}
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, nil, all...)
	clk := clockfake.New(hubtest.Start)
	rec := events.NewFakeRecorder(100)
	r := newAddonReconciler(h, clk, rec)
	r.Verifier = verify.Verifier{Clock: clk}
	return &rolloutHub{AddonHub: h, clk: clk, rec: rec, r: r}
}

// reconcile runs one reconcile of the seed's add-on.
func (h *rolloutHub) reconcile() time.Duration {
	h.T.Helper()
	res, err := reconcileAddon(h.r, hubtest.SeedAddonName)
	require.NoError(h.T, err)
	return res.RequeueAfter
}

// apply plays the agents: every add-on given a config it has not applied
// applies it now and completes.
func (h *rolloutHub) apply() {
	h.T.Helper()
	for _, c := range hubtest.SeedClusters {
		m := h.Addon(c, hubtest.SeedAddonName)
		changed := false
		for i, ref := range m.Status.ConfigReferences {
			if ref.DesiredConfig != nil && (ref.LastAppliedConfig == nil || ref.LastAppliedConfig.SpecHash != ref.DesiredConfig.SpecHash) {
				m.Status.ConfigReferences[i].LastAppliedConfig = ref.DesiredConfig.DeepCopy()
				changed = true
			}
		}
		if !changed {
			continue
		}
		meta.SetStatusCondition(&m.Status.Conditions, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing,
			Status: metav1.ConditionFalse, Reason: addonv1beta1.ProgressingReasonCompleted, LastTransitionTime: metav1.NewTime(h.clk.Now())})
		require.NoError(h.T, h.Client.Status().Update(context.Background(), m))
	}
}

// started returns the clusters whose add-on has been given the config.
func (h *rolloutHub) started() []string {
	h.T.Helper()
	var out []string
	for _, c := range hubtest.SeedClusters {
		if hubtest.DesiredHash(h.T, h.Addon(c, hubtest.SeedAddonName)) != "" {
			out = append(out, c)
		}
	}
	return out
}

// rollout returns the AddOnRollout as the hub holds it.
func (h *rolloutHub) rollout() *v1alpha1.AddOnRollout {
	h.T.Helper()
	var ar v1alpha1.AddOnRollout
	require.NoError(h.T, h.Client.Get(context.Background(), types.NamespacedName{Name: hubtest.SeedAddonName}, &ar))
	return &ar
}

// group returns the status of the seed placement's group name.
func (h *rolloutHub) group(name string) v1alpha1.GroupStatus {
	h.T.Helper()
	ar := h.rollout()
	require.Len(h.T, ar.Status.Placements, 1)
	for _, g := range ar.Status.Placements[0].Groups {
		if g.Name == name {
			return g
		}
	}
	h.T.Fatalf("no group %q in %+v", name, ar.Status.Placements[0].Groups)
	return v1alpha1.GroupStatus{}
}

// events drains the recorder.
func (h *rolloutHub) events() []string {
	var out []string
	for {
		select {
		case e := <-h.rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// soakThrough runs dev and stg through: reconcile, apply, wait out the
// soak, twice.
func (h *rolloutHub) soakThrough(groups int) {
	for range groups {
		h.reconcile()
		h.apply()
		h.reconcile()
		h.clk.Step(5*time.Minute + time.Second)
	}
	h.reconcile()
}

// TestRolloutApprovalReconcile: prod needs an approval. dev and stg roll
// out; prod waits, listed in pendingApprovals with an event saying how to
// approve. An approval of another revision approves nothing, and says
// so; the right one starts prod and is marked used.
func TestRolloutApprovalReconcile(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}))
	h.soakThrough(2)
	assert.Equal(t, []string{"dev-cluster", "stg-cluster"}, h.started())
	ar := h.rollout()
	require.Len(t, ar.Status.PendingApprovals, 1)
	pa := ar.Status.PendingApprovals[0]
	assert.Equal(t, "prod", pa.Group)
	assert.Equal(t, v1alpha1.PlacementRef{Namespace: hubtest.SeedNamespace, Name: hubtest.SeedRef.Name}, pa.Placement)
	prod := h.group("prod")
	assert.Equal(t, "Blocked", prod.Phase)
	assert.Equal(t, "Approval", prod.WaitsFor)
	assert.Equal(t, hubplan.ReasonWaitingForApproval, meta.FindStatusCondition(ar.Status.Conditions, hubplan.ConditionProgressing).Reason)
	assert.Contains(t, strings.Join(h.events(), "\n"), EventApprovalRequested)

	approval := func(name, revision string) *v1alpha1.RolloutApproval {
		return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: hubtest.SeedAddonName, Placement: pa.Placement, Group: "prod", Revision: revision}}
	}
	require.NoError(t, h.Client.Create(context.Background(), approval("wrong", "000000000000")))
	h.reconcile()
	assert.Equal(t, []string{"dev-cluster", "stg-cluster"}, h.started(), "an approval of another revision started prod")
	var wrong v1alpha1.RolloutApproval
	require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Name: "wrong"}, &wrong))
	assert.Equal(t, hubplan.ReasonRevisionMismatch, meta.FindStatusCondition(wrong.Status.Conditions, hubplan.ConditionApproved).Reason)

	require.NoError(t, h.Client.Create(context.Background(), approval("right", pa.Revision)))
	h.reconcile()
	assert.Equal(t, hubtest.SeedClusters, h.started())
	h.reconcile()
	var right v1alpha1.RolloutApproval
	require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Name: "right"}, &right))
	used := meta.FindStatusCondition(right.Status.Conditions, hubplan.ConditionApproved)
	require.NotNil(t, used)
	assert.Equal(t, metav1.ConditionTrue, used.Status)
	assert.Equal(t, hubplan.ReasonUsed, used.Reason)
	assert.Empty(t, h.rollout().Status.PendingApprovals)
	assert.Contains(t, strings.Join(h.events(), "\n"), EventApprovalUsed)
}

// TestRolloutPauseReconcile: paused before a change, the first group does
// not start; resumed, it does.
func TestRolloutPauseReconcile(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{Paused: true}))
	h.reconcile()
	assert.Empty(t, h.started())
	ar := h.rollout()
	assert.Equal(t, metav1.ConditionTrue, meta.FindStatusCondition(ar.Status.Conditions, hubplan.ConditionPaused).Status)
	assert.Equal(t, hubplan.ReasonPaused, meta.FindStatusCondition(ar.Status.Conditions, hubplan.ConditionProgressing).Reason)
	assert.Equal(t, "Paused", h.group("dev").WaitsFor)

	ar.Spec.Paused = false
	ar.Generation++
	require.NoError(t, h.Client.Update(context.Background(), ar))
	h.reconcile()
	assert.Equal(t, []string{"dev-cluster"}, h.started())
}

// TestRolloutVerificationReconcile: a webhook verifies stg. While it
// fails, prod waits and stg is Blocked on its verification, retried every
// interval; once it passes, prod starts in the same reconcile. The request
// names the add-on, placement, group, revision and clusters.
func TestRolloutVerificationReconcile(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		status = http.StatusServiceUnavailable
		bodies []v1alpha1.VerificationRequest
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req v1alpha1.VerificationRequest
		b, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.Unmarshal(b, &req)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		bodies = append(bodies, req)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{
		Name: "smoke", Groups: []string{"stg"}, Interval: &metav1.Duration{Duration: 30 * time.Second},
		Webhook: &v1alpha1.WebhookCheck{URL: srv.URL + "/verify"},
	}}}))
	reg := prometheus.NewRegistry()
	m, err := rolloutmetrics.New(reg)
	require.NoError(t, err)
	h.r.Metrics = m
	h.soakThrough(2)
	assert.Equal(t, []string{"dev-cluster", "stg-cluster"}, h.started(), "prod started before stg's verification passed")
	stg := h.group("stg")
	assert.Equal(t, "Blocked", stg.Phase)
	assert.Equal(t, "Verification", stg.WaitsFor)
	assert.Contains(t, stg.Message, "503 Service Unavailable")
	require.NotNil(t, stg.Until)
	assert.Equal(t, h.clk.Now().Add(30*time.Second).Unix(), stg.Until.Unix())
	assert.Equal(t, "Waiting", h.group("prod").Phase)
	assert.Contains(t, strings.Join(h.events(), "\n"), EventVerificationFailed)
	where := hubtest.SeedNamespace + "/" + hubtest.SeedRef.Name
	assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricVerificationFailing, "addon", hubtest.SeedAddonName, "placement", where, "group", "stg", "verification", "smoke"))
	assert.Equal(t, float64(stg.Until.Unix()), hubtest.Sample(t, reg, rolloutmetrics.MetricGroupUntil, "addon", hubtest.SeedAddonName, "placement", where, "group", "stg"))
	mu.Lock()
	require.Len(t, bodies, 1)
	rev := h.rollout().Status.Placements[0].Revision
	assert.Equal(t, v1alpha1.VerificationRequest{AddOn: hubtest.SeedAddonName, Placement: v1alpha1.PlacementRef{Namespace: hubtest.SeedNamespace, Name: hubtest.SeedRef.Name},
		Group: "stg", Revision: rev, Clusters: []string{"stg-cluster"}}, bodies[0])
	status = http.StatusOK
	mu.Unlock()

	requeue := h.reconcile()
	assert.Equal(t, []string{"dev-cluster", "stg-cluster"}, h.started(), "the check was rerun before its interval")
	assert.LessOrEqual(t, requeue, 30*time.Second)
	h.clk.Step(30 * time.Second)
	h.reconcile()
	assert.Equal(t, hubtest.SeedClusters, h.started())
	assert.Equal(t, "Complete", h.group("stg").Phase)
	assert.Contains(t, strings.Join(h.events(), "\n"), EventVerificationPassed)
	n, err := testutil.GatherAndCount(reg, rolloutmetrics.MetricVerificationFailing)
	require.NoError(t, err)
	assert.Zero(t, n, "a verification that passed is still failing")
}

// TestRolloutInvalidReconcile: an AddOnRollout with an unknown time zone
// and a group no placement has holds the add-on, and says so, naming the
// fields, in its Valid condition and an event.
func TestRolloutInvalidReconcile(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{
		ApprovalRequired: []string{"prdo"},
		Windows:          []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "16:00", TimeZone: "Europe/Berln"}},
	}))
	h.reconcile()
	assert.Empty(t, h.started(), "an invalid AddOnRollout let the add-on roll out ungated")
	valid := meta.FindStatusCondition(h.rollout().Status.Conditions, hubplan.ConditionValid)
	require.NotNil(t, valid)
	assert.Equal(t, metav1.ConditionFalse, valid.Status)
	assert.Equal(t, hubplan.ReasonInvalidSpec, valid.Reason)
	assert.Contains(t, valid.Message, `spec.approvalRequired[0]: Unsupported value: "prdo"`)
	assert.Contains(t, valid.Message, `spec.windows[0].timeZone: Invalid value: "Europe/Berln"`)
	ev := strings.Join(h.events(), "\n")
	assert.Contains(t, ev, "Warning "+EventInvalidSpec)
	assert.Contains(t, ev, "spec.windows[0].timeZone")
	assert.Equal(t, "Invalid", h.group("dev").WaitsFor)
}

// TestRolloutMetrics: the metrics show each group's phase, its clusters by
// status, and the pending approval.
func TestRolloutMetrics(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}))
	reg := prometheus.NewRegistry()
	m, err := rolloutmetrics.New(reg)
	require.NoError(t, err)
	h.r.Metrics = m
	h.soakThrough(2)
	where := hubtest.SeedNamespace + "/" + hubtest.SeedRef.Name
	assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricGroupPhase, "addon", hubtest.SeedAddonName, "placement", where, "group", "prod", "phase", "Blocked"))
	assert.Equal(t, 0.0, hubtest.Sample(t, reg, rolloutmetrics.MetricGroupPhase, "addon", hubtest.SeedAddonName, "placement", where, "group", "prod", "phase", "Waiting"))
	assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricGroupPhase, "addon", hubtest.SeedAddonName, "placement", where, "group", "dev", "phase", "Complete"))
	assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricPendingApprovals, "addon", hubtest.SeedAddonName, "placement", where, "group", "prod"))
	assert.Equal(t, 0.0, hubtest.Sample(t, reg, rolloutmetrics.MetricPendingApprovals, "addon", hubtest.SeedAddonName, "placement", where, "group", "stg"))
	assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricGroupClusters, "addon", hubtest.SeedAddonName, "placement", where, "group", "prod", "status", "toApply"))
	assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricGroupClusters, "addon", hubtest.SeedAddonName, "placement", where, "group", "stg", "status", "succeeded"))

	m.Forget(hubtest.SeedAddonName)
	n, err := testutil.GatherAndCount(reg, rolloutmetrics.MetricGroupPhase, rolloutmetrics.MetricPendingApprovals)
	require.NoError(t, err)
	assert.Zero(t, n, "a deleted add-on's series stayed")
}

// TestRolloutWithoutCRDs: on a hub without the rolloutkit.io CRDs the
// add-on rolls out as before.
func TestRolloutWithoutCRDs(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{Paused: true}))
	h.r.rollouts = false
	h.reconcile()
	assert.Equal(t, []string{"dev-cluster"}, h.started())
}

// TestVerifierPrometheus: a Prometheus check passes on a non-empty vector,
// and fails, saying why, on an empty one, an error, or a scalar.
func TestVerifierPrometheus(t *testing.T) {
	t.Parallel()
	answers := map[string]string{
		"good":   `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0.001"]}]}}`,
		"bad":    `{"status":"success","data":{"resultType":"vector","result":[]}}`,
		"syntax": `{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected end of input"}`,
		"scalar": `{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" || r.ParseForm() != nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		q := r.PostForm.Get("query")
		if q == "syntax" {
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = io.WriteString(w, answers[q])
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		query  string
		passed bool
		msg    string
	}{
		{"good", true, "1 series"},
		{"bad", false, "no series"},
		{"syntax", false, "400 Bad Request: bad_data: 1:5: parse error"},
		{"scalar", false, "a scalar result: want a vector"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			c := hubplan.Check{Verification: v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{
				Address: srv.URL, Query: tc.query, Timeout: &metav1.Duration{Duration: 5 * time.Second}}}}
			res := verify.Verifier{}.Run(context.Background(), []hubplan.Check{c})
			require.Len(t, res, 1)
			assert.Equal(t, tc.passed, res[0].Passed)
			assert.Contains(t, res[0].Message, tc.msg)
		})
	}
}
