package hubplan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// TestConfirm: a status that says what the one read says is written
// again only once the read one's recheckTime is reached; a changed status
// is confirmed now, until the sooner of the next wait's end and
// ConfirmInterval.
func TestConfirm(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { m := metav1.NewTime(t0.Add(d)); return &m }
	read := v1alpha1.AddOnRolloutStatus{ObservedGeneration: 1, LastConfirmedTime: at(0), RecheckTime: at(5 * time.Minute)}
	same := v1alpha1.AddOnRolloutStatus{ObservedGeneration: 1}
	changed := v1alpha1.AddOnRolloutStatus{ObservedGeneration: 2}
	for _, tc := range []struct {
		name          string
		st, read      v1alpha1.AddOnRolloutStatus
		now           time.Duration // after t0
		recheck       time.Duration
		confirmed, by *metav1.Time
		next          time.Duration
	}{
		{name: "unchanged, recheck ahead: the status read, until its recheck", st: same, read: read, now: 2 * time.Minute,
			recheck: time.Minute, confirmed: at(0), by: at(5 * time.Minute), next: 3 * time.Minute},
		{name: "unchanged, recheck reached: confirmed again", st: same, read: read, now: 5 * time.Minute,
			confirmed: at(5 * time.Minute), by: at(10 * time.Minute), next: ConfirmInterval},
		{name: "changed: confirmed now", st: changed, read: read, now: time.Minute,
			confirmed: at(time.Minute), by: at(6 * time.Minute), next: ConfirmInterval},
		{name: "changed, a wait ends sooner: rechecked then", st: changed, read: read, now: time.Minute, recheck: 90 * time.Second,
			confirmed: at(time.Minute), by: at(150 * time.Second), next: 90 * time.Second},
		{name: "a wait ends later than the interval: the interval", st: changed, read: read, now: time.Minute, recheck: time.Hour,
			confirmed: at(time.Minute), by: at(6 * time.Minute), next: ConfirmInterval},
		{name: "never confirmed: confirmed now", st: same, read: same, now: 0,
			confirmed: at(0), by: at(ConfirmInterval), next: ConfirmInterval},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, next := confirm(tc.st, tc.read, t0.Add(tc.now), tc.recheck)
			assert.Equal(t, tc.confirmed, got.LastConfirmedTime)
			assert.Equal(t, tc.by, got.RecheckTime)
			assert.Equal(t, tc.next, next)
			assert.Equal(t, tc.st.ObservedGeneration, got.ObservedGeneration)
		})
	}
}

// TestExpired: only approvals whose Approved condition is
// RevisionMismatch expire, retention after the later of their creation
// and the start of the revision their placement rolls out; the plan's
// new statuses override the ones read.
func TestExpired(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	start := metav1.NewTime(t0)
	st := v1alpha1.AddOnRolloutStatus{Placements: []v1alpha1.PlacementStatus{
		{Namespace: "ns", Name: "p", Revision: "r2", RevisionStartTime: &start}}}
	approval := func(name, rev, reason string, created time.Duration) *v1alpha1.RolloutApproval {
		a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(created))},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-proxy", Placement: v1alpha1.PlacementRef{Namespace: "ns", Name: "p"}, Group: "prod", Revision: rev}}
		if reason != "" {
			status := metav1.ConditionFalse
			if reason == ReasonUsed {
				status = metav1.ConditionTrue
			}
			a.Status.Conditions = []metav1.Condition{{Type: ConditionApproved, Status: status, Reason: reason}}
		}
		return a
	}
	for _, tc := range []struct {
		name      string
		approvals []*v1alpha1.RolloutApproval
		statuses  []ApprovalStatus
		retention time.Duration
		now       time.Duration
		want      []string
		next      time.Duration
	}{
		{name: "superseded past retention", approvals: []*v1alpha1.RolloutApproval{approval("old", "r1", ReasonRevisionMismatch, -48*time.Hour)},
			retention: time.Hour, now: time.Hour, want: []string{"old"}},
		{name: "superseded, not yet: when", approvals: []*v1alpha1.RolloutApproval{approval("old", "r1", ReasonRevisionMismatch, -48*time.Hour)},
			retention: time.Hour, now: 20 * time.Minute, next: 40 * time.Minute},
		{name: "created after the revision started: from its creation", approvals: []*v1alpha1.RolloutApproval{approval("typo", "r9", ReasonRevisionMismatch, 30*time.Minute)},
			retention: time.Hour, now: time.Hour, next: 30 * time.Minute},
		{name: "retention 0 keeps every one", approvals: []*v1alpha1.RolloutApproval{approval("old", "r1", ReasonRevisionMismatch, -48*time.Hour)},
			retention: 0, now: 1000 * time.Hour},
		{name: "used, not used yet, pending, unknown group: kept", approvals: []*v1alpha1.RolloutApproval{
			approval("used", "r2", ReasonUsed, -48*time.Hour), approval("notyet", "r2", ReasonNotUsedYet, -48*time.Hour),
			approval("pending", "r2", "", -48*time.Hour), approval("unknown", "r1", ReasonUnknownGroup, -48*time.Hour)},
			retention: time.Hour, now: 100 * time.Hour},
		{name: "the plan's status overrides the one read", approvals: []*v1alpha1.RolloutApproval{approval("old", "r1", ReasonNotUsedYet, -48*time.Hour)},
			statuses:  []ApprovalStatus{{Name: "old", Conditions: []metav1.Condition{{Type: ConditionApproved, Status: metav1.ConditionFalse, Reason: ReasonRevisionMismatch}}}},
			retention: time.Hour, now: 2 * time.Hour, want: []string{"old"}},
		{name: "mismatch read, but its revision rolls out again: kept", approvals: []*v1alpha1.RolloutApproval{approval("back", "r2", ReasonRevisionMismatch, -48*time.Hour)},
			retention: time.Hour, now: 2 * time.Hour},
		{name: "several, sorted", approvals: []*v1alpha1.RolloutApproval{approval("b", "r1", ReasonRevisionMismatch, -48*time.Hour),
			approval("a", "r0", ReasonRevisionMismatch, -72*time.Hour)}, retention: time.Hour, now: time.Hour, want: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, next := expired(tc.approvals, tc.statuses, "cluster-proxy", st, tc.retention, t0.Add(tc.now))
			var names []string
			for _, e := range got {
				names = append(names, e.Name)
				assert.Equal(t, "r2", e.Current)
			}
			assert.Equal(t, tc.want, names)
			assert.Equal(t, tc.next, next)
		})
	}
}
