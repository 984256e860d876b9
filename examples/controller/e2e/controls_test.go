package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testprom"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// controlled is a hub with the seed's story installed at the old image,
// the controller (its metrics in a registry of the test's own) and the
// agents running.
type controlled struct {
	*env
	o       seeded
	ctl     *running
	reg     *prometheus.Registry
	oldHash string
	newHash string
}

func newControlled(t *testing.T) *controlled {
	t.Helper()
	return newControlledWith(t, func(*env, ctrl.Manager) verify.Verifier { return verify.Verifier{HTTP: &http.Client{}} }, func(*ctrl.Options) {})
}

// newControlledWith is newControlled with the verifier verifier makes for
// the test's hub and the manager, the manager's options changed by tune.
func newControlledWith(t *testing.T, verifier func(*env, ctrl.Manager) verify.Verifier, tune func(*ctrl.Options)) *controlled {
	t.Helper()
	e := sharedEnv(t)
	o := seedHub(t, e, "60s")
	reg := prometheus.NewRegistry()
	ctl := e.startManager(t, e.hub.Config, tune, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true,
			Lifecycles: []string{e.lifecycle}, Metrics: reg, Verifier: verifier(e, mgr)})
		return err
	})
	e.agents(t, applyTime, nil)
	c := &controlled{env: e, o: o, ctl: ctl, reg: reg, oldHash: specHash(t, testhub.Image), newHash: specHash(t, newImage)}
	e.installed(t, o, e.addonName, c.oldHash, 60*time.Second)
	return c
}

// govern creates the add-on's AddOnRollout with spec and waits until the
// controller has written its status for it.
func (c *controlled) govern(t *testing.T, spec v1alpha1.AddOnRolloutSpec) {
	t.Helper()
	require.NoError(t, c.c.Create(context.Background(), &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: c.addonName}, Spec: spec}))
	c.observed(t)
}

// setSpec replaces the AddOnRollout's spec and waits until the controller
// has written its status for it.
func (c *controlled) setSpec(t *testing.T, change func(*v1alpha1.AddOnRolloutSpec)) {
	t.Helper()
	// The controller writes the status meanwhile: read again on a conflict.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ar := c.rollout(t)
		change(&ar.Spec)
		return c.c.Update(context.Background(), ar)
	}))
	c.observed(t)
}

// observed waits until the status is of the spec's generation.
func (c *controlled) observed(t *testing.T) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ar := c.rollout(ct)
		assert.Equal(ct, ar.Generation, ar.Status.ObservedGeneration, "observed generation")
		assert.NotEmpty(ct, ar.Status.Placements, "placements")
	}, 30*time.Second, poll, "AddOnRollout status observed")
}

func (c *controlled) rollout(t tb) *v1alpha1.AddOnRollout {
	t.Helper()
	var ar v1alpha1.AddOnRollout
	require.NoError(t, c.c.Get(context.Background(), types.NamespacedName{Name: c.addonName}, &ar))
	return &ar
}

// group returns the status of a group of the seed's placement.
func (c *controlled) group(t tb, name string) (v1alpha1.GroupStatus, string) {
	t.Helper()
	ar := c.rollout(t)
	for _, ps := range ar.Status.Placements {
		for _, g := range ps.Groups {
			if g.Name == name {
				return g, ps.Revision
			}
		}
	}
	return v1alpha1.GroupStatus{}, ""
}

// waitGroup waits until group name's status satisfies ok.
func (c *controlled) waitGroup(t *testing.T, name string, timeout time.Duration, ok func(v1alpha1.GroupStatus) bool) v1alpha1.GroupStatus {
	t.Helper()
	var g v1alpha1.GroupStatus
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		g, _ = c.group(ct, name)
		assert.True(ct, ok(g), "%+v", g)
	}, timeout, poll, "group %s", name)
	return g
}

// desired returns each cluster's desired hash, by cluster.
func (c *controlled) desired(t tb) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, cl := range c.o.Clusters() {
		out[cl] = c.addon(t, cl, c.addonName).desired
	}
	return out
}

// holds checks for d that prod keeps the old config while dev and stg
// have the new one.
func (c *controlled) holds(t *testing.T, d time.Duration, why string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, cl := range []string{c.dev, c.stg} {
			s := c.addon(ct, cl, c.addonName)
			assert.Equal(ct, c.newHash, s.desired, "%s: desired", cl)
			assert.Equal(ct, c.newHash, s.applied, "%s: applied", cl)
		}
	}, 60*time.Second, poll, "dev and stg applied the new config")
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		require.Equal(t, c.oldHash, c.addon(t, c.prod, c.addonName).desired, "prod started while %s", why)
		time.Sleep(100 * time.Millisecond)
	}
}

// event waits for an event of reason about the AddOnRollout whose note
// contains note.
func (c *controlled) event(t *testing.T, reason, note string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var evs eventsv1.EventList
		require.NoError(ct, c.c.List(context.Background(), &evs))
		var seen []string
		for _, ev := range evs.Items {
			if ev.Regarding.Kind == "AddOnRollout" && ev.Regarding.Name == c.addonName && ev.Reason == reason {
				seen = append(seen, ev.Note)
			}
		}
		assert.True(ct, slices.ContainsFunc(seen, func(n string) bool { return strings.Contains(n, note) }),
			"%s events: %q", reason, seen)
	}, 30*time.Second, poll, "%s event", reason)
}

// series names a series of a rollout metric of the add-on on the seed's
// Placement as the text format writes it: its labels sorted, those
// between addon and placement in between, those after it in after.
func (c *controlled) series(metric, between, after string) string {
	return fmt.Sprintf(`%s{addon=%q,%s,placement="%s/%s"%s}`, metric, c.addonName, between, c.namespace, seedPlacement, after)
}

// scrape returns the controller's metrics in the text format.
func (c *controlled) scrape(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(c.reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestApproval: prod needs an approval. After a config change dev and stg
// roll out and prod waits, listed in pendingApprovals, with an event and a
// metric saying so. An approval of another revision approves nothing; the
// right one starts prod and is marked used. The next change needs a new
// approval.
func TestApproval(t *testing.T) {
	t.Parallel()
	c := newControlled(t)
	ctx := context.Background()
	c.govern(t, v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})
	_, oldRev := c.group(t, "prod")
	require.NotEmpty(t, oldRev)

	c.setAgentImage(t, newImage)
	prod := c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	assert.Equal(t, "Blocked", prod.Phase)
	ar := c.rollout(t)
	require.Len(t, ar.Status.PendingApprovals, 1)
	pa := ar.Status.PendingApprovals[0]
	assert.Equal(t, "prod", pa.Group)
	assert.NotEqual(t, oldRev, pa.Revision, "a config change kept the revision")
	progressing := meta.FindStatusCondition(ar.Status.Conditions, hubplan.ConditionProgressing)
	require.NotNil(t, progressing)
	assert.Equal(t, hubplan.ReasonWaitingForApproval, progressing.Reason)
	c.event(t, addons.EventApprovalRequested, `"prod" waits for an approval of revision `+pa.Revision)
	metrics := c.scrape(t)
	assert.Contains(t, metrics, c.series("rolloutkit_pending_approvals", `group="prod"`, "")+" 1")
	assert.Contains(t, metrics, c.series("rolloutkit_group_phase", `group="prod",phase="Blocked"`, "")+" 1")

	approve := func(name, revision string) {
		require.NoError(t, c.c.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: c.named(name)},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: c.addonName, Placement: pa.Placement, Group: "prod", Revision: revision}}))
	}
	approve("prod-old-revision", oldRev)
	c.holds(t, 3*soak, "only an approval of another revision existed")
	approvalReason := func(t tb, name string) string {
		var a v1alpha1.RolloutApproval
		require.NoError(t, c.c.Get(ctx, types.NamespacedName{Name: c.named(name)}, &a))
		if cond := meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved); cond != nil {
			return cond.Reason
		}
		return ""
	}
	assert.Equal(t, hubplan.ReasonRevisionMismatch, approvalReason(t, "prod-old-revision"))

	approve("prod-"+pa.Revision, pa.Revision)
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Equal(ct, hubplan.ReasonUsed, approvalReason(ct, "prod-"+pa.Revision))
	}, 30*time.Second, poll, "approval used")
	c.event(t, addons.EventApprovalUsed, "prod")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		cond := meta.FindStatusCondition(c.rollout(ct).Status.Conditions, hubplan.ConditionProgressing)
		require.NotNil(ct, cond, "no Progressing condition")
		assert.Equal(ct, hubplan.ReasonCompleted, cond.Reason, "%+v", cond)
	}, 30*time.Second, poll, "rollout completed")
	assert.Contains(t, c.scrape(t), "rolloutkit_revision_duration_seconds_count")

	// A new revision needs a new approval.
	third := "quay.io/open-cluster-management/cluster-proxy:v0.9.2"
	c.setAgentImage(t, third)
	c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	assert.Equal(t, c.newHash, c.addon(t, c.prod, c.addonName).desired, "the old approval carried over to a new revision")
	ar = c.rollout(t)
	require.Len(t, ar.Status.PendingApprovals, 1)
	assert.NotEqual(t, pa.Revision, ar.Status.PendingApprovals[0].Revision)
}

// TestPause: paused before a change, the first group holds; resumed, the
// rollout starts, and paused again mid-rollout it starts nothing new while
// what is in flight finishes; resumed, it completes.
func TestPause(t *testing.T) {
	t.Parallel()
	c := newControlled(t)
	c.govern(t, v1alpha1.AddOnRolloutSpec{Paused: true})
	c.setAgentImage(t, newImage)
	dev := c.waitGroup(t, "dev", 30*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Paused" })
	assert.Equal(t, "Blocked", dev.Phase)
	time.Sleep(2 * soak)
	for cl, h := range c.desired(t) {
		assert.Equal(t, c.oldHash, h, "%s started while paused before the change", cl)
	}
	paused := meta.FindStatusCondition(c.rollout(t).Status.Conditions, hubplan.ConditionPaused)
	require.NotNil(t, paused)
	assert.Equal(t, metav1.ConditionTrue, paused.Status)

	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) { s.Paused = false })
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		d := c.desired(ct)
		assert.Equal(ct, c.newHash, d[c.stg], "%v", d)
	}, 60*time.Second, poll, "stg started")
	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) { s.Paused = true })
	// stg, in flight, finishes; prod does not start.
	c.holds(t, 3*soak, "paused mid-rollout")
	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) { s.Paused = false })
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
}

// TestWindow: prod may start only inside its window. A window an hour from
// now holds it, and says when it opens; a window around now lets it start.
func TestWindow(t *testing.T) {
	t.Parallel()
	c := newControlled(t)
	now := time.Now().UTC()
	hhmm := func(t time.Time) string { return t.Format("15:04") }
	every := []string{"Mon-Sun"}
	later := v1alpha1.RolloutWindow{Groups: []string{"prod"}, Days: every, Start: hhmm(now.Add(time.Hour)), End: hhmm(now.Add(2 * time.Hour)), TimeZone: "UTC"}
	c.govern(t, v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{later}})
	c.setAgentImage(t, newImage)
	prod := c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Window" })
	assert.Equal(t, "Blocked", prod.Phase)
	assert.Contains(t, prod.Message, "outside the time window")
	require.NotNil(t, prod.Until, "no time the window opens")
	assert.WithinDuration(t, now.Add(time.Hour).Truncate(time.Minute), prod.Until.Time, time.Minute)
	c.holds(t, 2*soak, "outside its window")

	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) {
		s.Windows[0].Start, s.Windows[0].End = hhmm(now.Add(-time.Hour)), hhmm(now.Add(time.Hour))
	})
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
}

// webhook is a verification endpoint whose answer the test sets; it
// records the requests.
type webhook struct {
	mu     sync.Mutex
	status int
	got    []v1alpha1.VerificationRequest
	srv    *httptest.Server
}

func newWebhook(t *testing.T, status int) *webhook {
	w := &webhook{status: status}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req v1alpha1.VerificationRequest
		err := json.NewDecoder(r.Body).Decode(&req)
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil || r.Method != http.MethodPost {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		w.got = append(w.got, req)
		rw.WriteHeader(w.status)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *webhook) set(status int) { w.mu.Lock(); w.status = status; w.mu.Unlock() }

func (w *webhook) calls() []v1alpha1.VerificationRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]v1alpha1.VerificationRequest(nil), w.got...)
}

// TestVerificationWebhook: a webhook verifies stg. While it fails, stg is
// Blocked on its verification, prod waits, and an event says why; the
// check is retried every interval. Once it answers 200, prod starts. The
// request names the add-on, placement, group, revision and clusters.
func TestVerificationWebhook(t *testing.T) {
	t.Parallel()
	c := newControlled(t)
	hook := newWebhook(t, http.StatusServiceUnavailable)
	c.govern(t, v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{
		Name: "smoke", Groups: []string{"stg"}, Interval: &metav1.Duration{Duration: time.Second},
		Webhook: &v1alpha1.WebhookCheck{URL: hook.srv.URL + "/verify"},
	}}})
	c.setAgentImage(t, newImage)
	stg := c.waitGroup(t, "stg", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Verification" })
	assert.Equal(t, "Blocked", stg.Phase)
	assert.Contains(t, stg.Message, "503 Service Unavailable")
	c.holds(t, 3*soak, "stg's verification failed")
	c.event(t, addons.EventVerificationFailed, "503 Service Unavailable")
	calls := hook.calls()
	_, rev := c.group(t, "stg")
	n := 0
	for _, call := range calls {
		if call.Revision == rev {
			n++
		}
	}
	require.GreaterOrEqual(t, n, 2, "a failing check of the new revision was not retried")
	assert.Equal(t, v1alpha1.VerificationRequest{AddOn: c.addonName,
		Placement: v1alpha1.PlacementRef{Namespace: c.namespace, Name: seedPlacement},
		Group:     "stg", Revision: rev, Clusters: []string{c.stg}}, calls[len(calls)-1])
	assert.Equal(t, "Waiting", func() string { g, _ := c.group(t, "prod"); return g.Phase }())

	hook.set(http.StatusOK)
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
	c.event(t, addons.EventVerificationPassed, "200 OK")
	metrics := c.scrape(t)
	assert.Contains(t, metrics, c.series("rolloutkit_verifications_total", `group="stg"`, `,result="passed",verification="smoke"`)+" 1")
	assert.Contains(t, metrics, c.series("rolloutkit_verifications_total", `group="stg"`, `,result="failed",verification="smoke"`))
}

// TestVerificationPrometheus: a real Prometheus scrapes the add-on's error
// ratio from an endpoint of the test; a query gates prod on stg's ratio. It
// holds while the ratio is bad and lets prod start once it is good.
func TestVerificationPrometheus(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	ratio := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "addon_error_ratio", Help: "errors of the add-on's agents"}, []string{"group"})
	require.NoError(t, reg.Register(ratio))
	ratio.WithLabelValues("stg").Set(0.5)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	target := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = target.Serve(ln) }() // returns when closed
	t.Cleanup(func() { _ = target.Close() })
	prom := testprom.ForTest(t, []string{ln.Addr().String()}, 500*time.Millisecond)

	c := newControlled(t)
	query := `max(addon_error_ratio{group="stg"}) < 0.01`
	c.govern(t, v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{{
		Name: "error-ratio", Groups: []string{"stg"}, Interval: &metav1.Duration{Duration: time.Second},
		Prometheus: &v1alpha1.PrometheusCheck{Address: prom.URL, Query: query},
	}}})
	c.setAgentImage(t, newImage)
	stg := c.waitGroup(t, "stg", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Verification" })
	assert.Contains(t, stg.Message, "no series")
	c.holds(t, 3*soak, "the error ratio was bad")

	ratio.WithLabelValues("stg").Set(0.001)
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
	c.event(t, addons.EventVerificationPassed, "1 series")
}

// TestInvalidAddOnRollout: an AddOnRollout with an unknown time zone, an
// end at its start written otherwise and a group no placement has (what
// the schema admits, and the admission webhook, absent here as on a hub
// where the object was written before it existed, would refuse but the
// group) holds the add-on and says so, naming each field, on its Valid
// condition and in an event; fixed, the rollout goes on.
func TestInvalidAddOnRollout(t *testing.T) {
	t.Parallel()
	c := newControlled(t)
	c.govern(t, v1alpha1.AddOnRolloutSpec{
		ApprovalRequired: []string{"production"},
		Windows:          []v1alpha1.RolloutWindow{{Days: []string{"Mon-Sun"}, Start: "9:00", End: "09:00", TimeZone: "Europe/Berln"}},
	})
	c.setAgentImage(t, newImage)
	valid := meta.FindStatusCondition(c.rollout(t).Status.Conditions, hubplan.ConditionValid)
	require.NotNil(t, valid)
	assert.Equal(t, metav1.ConditionFalse, valid.Status)
	for _, want := range []string{`spec.approvalRequired[0]: Unsupported value: "production"`, `spec.windows[0].end: Invalid value: "09:00"`,
		`spec.windows[0].timeZone: Invalid value: "Europe/Berln"`} {
		assert.Contains(t, valid.Message, want)
	}
	c.event(t, addons.EventInvalidSpec, "spec.windows[0].timeZone")
	time.Sleep(2 * soak)
	for cl, h := range c.desired(t) {
		assert.Equal(t, c.oldHash, h, "%s rolled out under an invalid AddOnRollout", cl)
	}
	c.setSpec(t, func(s *v1alpha1.AddOnRolloutSpec) { *s = v1alpha1.AddOnRolloutSpec{} })
	c.installed(t, c.o, c.addonName, c.newHash, 60*time.Second)
	valid = meta.FindStatusCondition(c.rollout(t).Status.Conditions, hubplan.ConditionValid)
	assert.Equal(t, metav1.ConditionTrue, valid.Status)
}
