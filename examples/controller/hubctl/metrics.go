package hubctl

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// The names of the controller's metrics, each labelled by add-on,
// placement ("namespace/name") and group ("name" or "#index").
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
	// MetricBreaches counts the times a group breached its failure budget.
	MetricBreaches = "rolloutkit_breaches_total"
	// MetricVerifications counts verification results (labels
	// verification and result: passed, failed).
	MetricVerifications = "rolloutkit_verifications_total"
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
	breaches *prometheus.CounterVec
	verified *prometheus.CounterVec
	duration *prometheus.HistogramVec
	refusals *prometheus.CounterVec

	mu     sync.Mutex
	groups map[string]map[groupSeries]bool // add-on -> the series it has
}

// groupSeries names one group's series.
type groupSeries struct{ placement, group string }

// NewMetrics registers the metrics with reg (controller-runtime's
// metrics.Registry, in the controller).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"addon", "placement", "group"}
	m := &Metrics{
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricGroupPhase,
			Help: "1 for the phase a decision group of an add-on's rollout is in, 0 for the others."}, append(labels, "phase")),
		clusters: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricGroupClusters,
			Help: "The clusters of a decision group by rollout status."}, append(labels, "status")),
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricPendingApprovals,
			Help: "1 while a decision group waits for a RolloutApproval of the revision rolled out."}, labels),
		breaches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricBreaches,
			Help: "Times a decision group breached its failure budget, halting the rollout."}, labels),
		verified: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricVerifications,
			Help: "Verification results of decision groups, by verification and result."}, append(labels, "verification", "result")),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricRevisionDuration,
			Help:    "Seconds from the start of a revision of an add-on's configs to its completion on a placement.",
			Buckets: prometheus.ExponentialBuckets(10, 2, 14)}, []string{"addon", "placement"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricWorkGateRefusals,
			Help: "ManifestWork writes the work gate refused, by add-on and reason."}, []string{"addon", "reason"}),
		groups: make(map[string]map[groupSeries]bool),
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.phase, m.clusters, m.pending, m.breaches, m.verified, m.duration, m.refusals} {
		errs = append(errs, reg.Register(c))
	}
	return m, errors.Join(errs...)
}

// observe sets the gauges of every group of an add-on's status, and
// deletes the series of its groups no longer there. A nil Metrics does
// nothing.
func (m *Metrics) observe(addOn string, st v1alpha1.AddOnRolloutStatus) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := make(map[groupSeries]bool)
	pending := make(map[groupSeries]bool)
	for _, p := range st.PendingApprovals {
		pending[groupSeries{p.Placement.Namespace + "/" + p.Placement.Name, p.Group}] = true
	}
	for _, ps := range st.Placements {
		for _, g := range ps.Groups {
			s := groupSeries{ps.Namespace + "/" + ps.Name, seriesGroup(g)}
			now[s] = true
			for _, ph := range phases() {
				m.phase.WithLabelValues(addOn, s.placement, s.group, ph).Set(boolValue(ph == g.Phase))
			}
			c := g.Counts
			for status, n := range map[string]int32{"succeeded": c.Succeeded - c.Soaking, "soaking": c.Soaking, "progressing": c.Progressing,
				"failed": c.Failed, "timedOut": c.TimedOut, "toApply": c.ToApply, "skipped": c.Skipped} {
				m.clusters.WithLabelValues(addOn, s.placement, s.group, status).Set(float64(n))
			}
			m.pending.WithLabelValues(addOn, s.placement, s.group).Set(boolValue(pending[groupSeries{s.placement, g.Name}] && g.Name != ""))
		}
	}
	for s := range m.groups[addOn] {
		if !now[s] {
			m.deleteGroup(addOn, s)
		}
	}
	m.groups[addOn] = now
}

// forget deletes every series of a deleted add-on.
func (m *Metrics) forget(addOn string) {
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
}

func (m *Metrics) deleteGroup(addOn string, s groupSeries) {
	l := prometheus.Labels{"addon": addOn, "placement": s.placement, "group": s.group}
	m.phase.DeletePartialMatch(l)
	m.clusters.DeletePartialMatch(l)
	m.pending.DeletePartialMatch(l)
}

// breach counts a group's breach.
func (m *Metrics) breach(addOn, placement string, g v1alpha1.GroupStatus) {
	if m != nil {
		m.breaches.WithLabelValues(addOn, placement, seriesGroup(g)).Inc()
	}
}

// verification counts a verification's result.
func (m *Metrics) verification(addOn, placement, group, name string, passed bool) {
	if m == nil {
		return
	}
	result := "failed"
	if passed {
		result = "passed"
	}
	m.verified.WithLabelValues(addOn, placement, group, name, result).Inc()
}

// completed observes a revision's time to completion.
func (m *Metrics) completed(addOn, placement string, seconds float64) {
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
	return "#" + itoa(g.Index)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// refused counts a write the work gate refused. A nil Metrics does
// nothing.
func (m *Metrics) refused(addOn, reason string) {
	if m == nil {
		return
	}
	m.refusals.WithLabelValues(addOn, reason).Inc()
}
