package planreport

import (
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// StaleGrace is how long past its status.recheckTime an AddOnRollout's
// status is still taken as live: a controller confirms it at that time
// give or take its queue and its write, and clocks differ a little.
const StaleGrace = time.Minute

// Sources of Confirmation.LastConfirmed.
const (
	// SourceLastConfirmedTime: status.lastConfirmedTime.
	SourceLastConfirmedTime = "lastConfirmedTime"
	// SourceStatusWrite: the newest time the status records otherwise, a
	// condition's lastTransitionTime or the time in managedFields of the
	// last write of the status subresource, for a status written by a
	// controller that did not set lastConfirmedTime.
	SourceStatusWrite = "statusWrite"
)

// Confirmation is when the controller last confirmed an AddOnRollout's
// status, and whether it is stale: past its recheck time with no
// controller confirming it.
type Confirmation struct {
	// LastConfirmed is when the controller last confirmed the status.
	// Absent when the status was never written.
	LastConfirmed *time.Time `json:"lastConfirmed,omitempty"`
	// Source says where LastConfirmed comes from: lastConfirmedTime, or
	// statusWrite (see SourceStatusWrite).
	Source string `json:"source,omitempty"`
	// RecheckTime is status.recheckTime: when the controller was to
	// confirm the status again at the latest. Absent when the status does
	// not say, and then nothing tells a stale status.
	RecheckTime *time.Time `json:"recheckTime,omitempty"`
	// Stale is true when the report's time is more than StaleGrace past
	// RecheckTime: no controller confirmed the status when it was due to,
	// and what it says may no longer hold.
	Stale bool `json:"stale"`
	// StaleSeconds is how long it has been stale: the seconds since
	// RecheckTime; 0 when it is not stale.
	StaleSeconds float64 `json:"staleSeconds,omitempty"`
}

// confirmationOf judges the status of ar, as read, at now.
func confirmationOf(ar *v1alpha1.AddOnRollout, now time.Time) Confirmation {
	var c Confirmation
	st := ar.Status
	if t := st.LastConfirmedTime; t != nil {
		c.LastConfirmed, c.Source = timeOf(t.Time), SourceLastConfirmedTime
	} else if t, ok := lastStatusWrite(ar); ok {
		c.LastConfirmed, c.Source = timeOf(t), SourceStatusWrite
	}
	if t := st.RecheckTime; t != nil {
		c.RecheckTime = timeOf(t.Time)
		if late := now.Sub(t.Time); late > StaleGrace {
			c.Stale, c.StaleSeconds = true, late.Seconds()
		}
	}
	return c
}

// lastStatusWrite is the newest time ar's status records: its conditions'
// transitions, and the writes of its status subresource in managedFields.
func lastStatusWrite(ar *v1alpha1.AddOnRollout) (time.Time, bool) {
	var last time.Time
	for _, c := range ar.Status.Conditions {
		if c.LastTransitionTime.After(last) {
			last = c.LastTransitionTime.Time
		}
	}
	for _, m := range ar.ManagedFields {
		if m.Subresource == "status" && m.Time != nil && m.Time.After(last) {
			last = m.Time.Time
		}
	}
	return last, !last.IsZero()
}

// timeOf returns a pointer to a copy of t.
func timeOf(t time.Time) *time.Time { return &t }

// Relative says when t is from now, as kubectl shows an age: "12m ago",
// "in 5m", or "now" within a second.
func Relative(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d >= time.Second:
		return "in " + duration.HumanDuration(d)
	case d <= -time.Second:
		return duration.HumanDuration(-d) + " ago"
	}
	return "now"
}

// TimestampFrom shows t as Timestamp does, and when it is from now.
func TimestampFrom(t, now time.Time) string {
	return Timestamp(t) + " (" + Relative(t, now) + ")"
}
