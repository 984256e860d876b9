package rolloutmetrics

import (
	"errors"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// The names of the controller's metrics, each labelled by add-on, and
// those of a group by placement ("namespace/name") and group ("name" or
// "#index") too.
const (
	// MetricGroupPhase is 1 for a group's current phase and 0 for the
	// others (label phase).
	MetricGroupPhase = "rolloutkit_group_phase"
	// MetricGroupClusters counts a group's clusters by status (label
	// status: succeeded, soaking, progressing, failed, timedOut, toApply,
	// skipped).
	MetricGroupClusters = "rolloutkit_group_clusters"
	// MetricPendingApprovals is 1 while a group waits for an approval.
	MetricPendingApprovals = "rolloutkit_pending_approvals"
	// MetricGroupWaiting is 1 for what a group waits for (label
	// waits_for: GroupStatus.WaitsFor, e.g. Approval, Window, Paused,
	// Verification, Invalid, Group, Breach). A group that waits for
	// nothing has no series; when what it waits for changes, the series
	// of the old value is deleted.
	MetricGroupWaiting = "rolloutkit_group_waiting"
	// MetricValid is, per add-on under an AddOnRollout, 1 while the
	// AddOnRollout's Valid condition is True and 0 while it is False (the
	// add-on is then held). An add-on without an AddOnRollout has no
	// series.
	MetricValid = "rolloutkit_valid"
	// MetricPaused is, per add-on under an AddOnRollout, 1 while the
	// AddOnRollout is paused (its Paused condition is True) and 0
	// otherwise. An add-on without an AddOnRollout has no series.
	MetricPaused = "rolloutkit_paused"
	// MetricBreaches counts the times a group breached its failure budget.
	MetricBreaches = "rolloutkit_breaches_total"
	// MetricVerifications counts verification results (labels
	// verification and result: passed, failed).
	MetricVerifications = "rolloutkit_verifications_total"
	// MetricVerificationFailing is, per group and verification (label
	// verification), 1 while the verification's latest result failed.
	// There is no series once it passed, nor while the group waits for no
	// verification (a new revision, say), nor for a group gone.
	MetricVerificationFailing = "rolloutkit_verification_failing"
	// MetricGroupUntil is, per group, the Unix time (seconds) at which
	// what the group waits for may end on the clock (GroupStatus.Until:
	// a soak, a window, a deadline, a verification's next run). A group
	// whose wait ends on an outside change, or that waits for nothing,
	// has no series. The controller plans the group again at that time,
	// so a value long past says the status is stale.
	MetricGroupUntil = "rolloutkit_group_until_timestamp_seconds"
	// MetricRevisionDuration observes, per add-on and placement, the time
	// from a revision's start to its completion (every group complete and
	// verified), in seconds.
	MetricRevisionDuration = "rolloutkit_revision_duration_seconds"
	// MetricWorkGateRefusals counts the ManifestWork writes the work gate
	// refused, by add-on and reason (workgate.Reason: NotHandedOver,
	// ConfigMovedOn, RenderingHeld, Unreadable). Each replica counts the
	// requests it answered: sum them.
	MetricWorkGateRefusals = "rolloutkit_work_gate_refusals_total"
)

// phases are the values of MetricGroupPhase's phase label.
func phases() []string {
	return []string{rollout.Waiting.String(), rollout.Active.String(), rollout.Complete.String(), rollout.Blocked.String(), rollout.Breached.String()}
}

// Metrics are the controller's rollout metrics. Their series for a group
// that is gone (a placement removed, an add-on deleted) are deleted.
type Metrics struct {
	phase    *prometheus.GaugeVec
	clusters *prometheus.GaugeVec
	pending  *prometheus.GaugeVec
	waiting  *prometheus.GaugeVec
	valid    *prometheus.GaugeVec
	paused   *prometheus.GaugeVec
	breaches *prometheus.CounterVec
	verified *prometheus.CounterVec
	failing  *prometheus.GaugeVec
	until    *prometheus.GaugeVec
	duration *prometheus.HistogramVec
	refusals *prometheus.CounterVec

	mu sync.Mutex
	// groups are, per add-on, the groups that have series, each with the
	// value of its MetricGroupWaiting series ("": none).
	groups map[string]map[groupSeries]string
}

// groupSeries names one group's series.
type groupSeries struct{ placement, group string }

// New registers the metrics with reg (controller-runtime's
// metrics.Registry, in the controller).
func New(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"addon", "placement", "group"}
	m := &Metrics{
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricGroupPhase,
			Help: "1 for the phase a decision group of an add-on's rollout is in, 0 for the others."}, append(labels, "phase")),
		clusters: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricGroupClusters,
			Help: "The clusters of a decision group by rollout status."}, append(labels, "status")),
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricPendingApprovals,
			Help: "1 while a decision group waits for a RolloutApproval of the revision rolled out."}, labels),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricGroupWaiting,
			Help: "1 for what a decision group waits for (its status's waitsFor); no series while it waits for nothing."}, append(labels, "waits_for")),
		valid: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricValid,
			Help: "1 while an add-on's AddOnRollout is Valid, 0 while it is not (the add-on is held until its spec is fixed)."}, []string{"addon"}),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricPaused,
			Help: "1 while an add-on's AddOnRollout is paused (no cluster starts), 0 otherwise."}, []string{"addon"}),
		breaches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricBreaches,
			Help: "Times a decision group breached its failure budget, halting the rollout."}, labels),
		verified: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricVerifications,
			Help: "Verification results of decision groups, by verification and result."}, append(labels, "verification", "result")),
		failing: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricVerificationFailing,
			Help: "1 while the latest result of a decision group's verification failed; no series once it passed, or while the group waits for no verification."}, append(labels, "verification")),
		until: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricGroupUntil,
			Help: "Unix time at which what a decision group waits for may end on the clock (its status's until); no series when it ends on an outside change."}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricRevisionDuration,
			Help:    "Seconds from the start of a revision of an add-on's configs to its completion on a placement.",
			Buckets: prometheus.ExponentialBuckets(10, 2, 14)}, []string{"addon", "placement"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricWorkGateRefusals,
			Help: "ManifestWork writes the work gate refused, by add-on and reason."}, []string{"addon", "reason"}),
		groups: make(map[string]map[groupSeries]string),
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.phase, m.clusters, m.pending, m.waiting, m.valid, m.paused, m.breaches, m.verified, m.failing, m.until, m.duration, m.refusals} {
		errs = append(errs, reg.Register(c))
	}
	return m, errors.Join(errs...)
}

// Observe sets the gauges of an add-on's status: those of the add-on
// (when it has an AddOnRollout: hasRollout), and those of every group,
// deleting the series of its groups no longer there. A nil Metrics does
// nothing.
func (m *Metrics) Observe(addOn string, hasRollout bool, st v1alpha1.AddOnRolloutStatus) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.observeRollout(addOn, hasRollout, st)
	was := m.groups[addOn]
	now := make(map[groupSeries]string)
	pending := make(map[groupSeries]bool)
	for _, p := range st.PendingApprovals {
		pending[groupSeries{p.Placement.Namespace + "/" + p.Placement.Name, p.Group}] = true
	}
	for _, ps := range st.Placements {
		for _, g := range ps.Groups {
			s := groupSeries{ps.Namespace + "/" + ps.Name, seriesGroup(g)}
			m.observeGroup(addOn, s, g, pending[groupSeries{s.placement, g.Name}] && g.Name != "")
			if old, ok := was[s]; ok && old != "" && old != g.WaitsFor {
				m.waiting.DeleteLabelValues(addOn, s.placement, s.group, old)
			}
			now[s] = g.WaitsFor
		}
	}
	for s := range was {
		if _, ok := now[s]; !ok {
			m.deleteGroup(addOn, s)
		}
	}
	m.groups[addOn] = now
}

// observeRollout sets the add-on's gauges of its AddOnRollout's
// conditions, or deletes them when it has none (hasRollout false: the
// status is the view an add-on without one is planned under (withView),
// which is never written).
func (m *Metrics) observeRollout(addOn string, hasRollout bool, st v1alpha1.AddOnRolloutStatus) {
	valid := meta.FindStatusCondition(st.Conditions, hubplan.ConditionValid)
	if !hasRollout || valid == nil {
		m.valid.DeleteLabelValues(addOn)
		m.paused.DeleteLabelValues(addOn)
		return
	}
	m.valid.WithLabelValues(addOn).Set(boolValue(valid.Status == metav1.ConditionTrue))
	m.paused.WithLabelValues(addOn).Set(boolValue(meta.IsStatusConditionTrue(st.Conditions, hubplan.ConditionPaused)))
}

// observeGroup sets the gauges of one group, s, whose status is g.
func (m *Metrics) observeGroup(addOn string, s groupSeries, g v1alpha1.GroupStatus, pending bool) {
	for _, ph := range phases() {
		m.phase.WithLabelValues(addOn, s.placement, s.group, ph).Set(boolValue(ph == g.Phase))
	}
	c := g.Counts
	for status, n := range map[string]int32{"succeeded": c.Succeeded - c.Soaking, "soaking": c.Soaking, "progressing": c.Progressing,
		"failed": c.Failed, "timedOut": c.TimedOut, "toApply": c.ToApply, "skipped": c.Skipped} {
		m.clusters.WithLabelValues(addOn, s.placement, s.group, status).Set(float64(n))
	}
	m.pending.WithLabelValues(addOn, s.placement, s.group).Set(boolValue(pending))
	if g.WaitsFor != "" {
		m.waiting.WithLabelValues(addOn, s.placement, s.group, g.WaitsFor).Set(1)
	}
	if g.WaitsFor != waitsVerification {
		m.failing.DeletePartialMatch(prometheus.Labels{"addon": addOn, "placement": s.placement, "group": s.group})
	}
	if g.Until != nil {
		m.until.WithLabelValues(addOn, s.placement, s.group).Set(float64(g.Until.Unix()))
	} else {
		m.until.DeleteLabelValues(addOn, s.placement, s.group)
	}
}

// waitsVerification is GroupStatus.WaitsFor of a group held by its
// verifications (hubplan's gate of that kind).
const waitsVerification = "Verification"

// Forget deletes every series of a deleted add-on.
func (m *Metrics) Forget(addOn string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for s := range m.groups[addOn] {
		m.deleteGroup(addOn, s)
	}
	delete(m.groups, addOn)
	m.duration.DeletePartialMatch(prometheus.Labels{"addon": addOn})
	m.valid.DeleteLabelValues(addOn)
	m.paused.DeleteLabelValues(addOn)
}

func (m *Metrics) deleteGroup(addOn string, s groupSeries) {
	l := prometheus.Labels{"addon": addOn, "placement": s.placement, "group": s.group}
	m.phase.DeletePartialMatch(l)
	m.clusters.DeletePartialMatch(l)
	m.pending.DeletePartialMatch(l)
	m.waiting.DeletePartialMatch(l)
	m.failing.DeletePartialMatch(l)
	m.until.DeletePartialMatch(l)
}

// Breach counts a group's breach.
func (m *Metrics) Breach(addOn, placement string, g v1alpha1.GroupStatus) {
	if m != nil {
		m.breaches.WithLabelValues(addOn, placement, seriesGroup(g)).Inc()
	}
}

// Verification counts the result of a verification of group g, and sets
// whether it is failing.
func (m *Metrics) Verification(addOn, placement string, g v1alpha1.GroupStatus, name string, passed bool) {
	if m == nil {
		return
	}
	result := "failed"
	if passed {
		result = "passed"
	}
	m.verified.WithLabelValues(addOn, placement, seriesGroup(g), name, result).Inc()
	if passed {
		m.failing.DeleteLabelValues(addOn, placement, seriesGroup(g), name)
	} else {
		m.failing.WithLabelValues(addOn, placement, seriesGroup(g), name).Set(1)
	}
}

// Completed observes a revision's time to completion.
func (m *Metrics) Completed(addOn, placement string, seconds float64) {
	if m != nil {
		m.duration.WithLabelValues(addOn, placement).Observe(seconds)
	}
}

// seriesGroup is a group's label: its name, or "#index" for a group
// without one.
func seriesGroup(g v1alpha1.GroupStatus) string {
	if g.Name != "" {
		return g.Name
	}
	return "#" + strconv.Itoa(int(g.Index))
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Refused counts a write the work gate refused. A nil Metrics does
// nothing.
func (m *Metrics) Refused(addOn, reason string) {
	if m == nil {
		return
	}
	m.refusals.WithLabelValues(addOn, reason).Inc()
}
